"""Inductor's own graphs: with fxview.backend(inner="inductor"), the graph Inductor's pre-grad
passes leave (torch IR, before AOTAutograd) and each graph its post-grad passes leave (ATen IR,
what its code is generated from) are recorded into graph.aot as kinds "pre-grad" and
"post-grad", through Inductor's own hooks for a person's passes (pre_grad_custom_pass,
post_grad_custom_post_pass), with its FX graph cache off for the compile (a cached graph would
skip the passes). A recorded graph that takes the Dynamo graph's inputs and returns as many
values as it (the pre-grad graph, the post-grad graph of an inference run) is stepped on the
Dynamo graph's first call, against what the compiled code returned."""

from __future__ import annotations

import copy

import torch
import torch.fx

from .dynamo_aot import AotGraph


def recording(graph):
    """A context in which Inductor's compile records its pre-grad and post-grad graphs of
    `graph` (a dynamo.CompiledGraph) into graph.aot."""
    from torch._inductor import config

    def recorder(kind):
        def record(fx_graph: torch.fx.Graph) -> None:
            owner = fx_graph.owning_module
            kept = torch.fx.GraphModule(owner if owner is not None else torch.nn.Module(),
                                        copy.deepcopy(fx_graph))
            graph.aot.append(AotGraph(kind, kept))

        return record

    patches = {"fx_graph_cache": False}
    for option, kind in (("pre_grad_custom_pass", "pre-grad"),
                         ("post_grad_custom_post_pass", "post-grad")):
        if not hasattr(config, option):
            continue
        patches[option] = _then(recorder(kind), getattr(config, option))
    return config.patch(patches)


def _then(mine, theirs):
    """mine, then the person's own pass(es) there (a callable or, from 2.8, a list): one
    callable, which every Inductor takes."""
    if theirs is None:
        return mine
    passes = list(theirs) if isinstance(theirs, (list, tuple)) else [theirs]

    def both(fx_graph: torch.fx.Graph) -> None:
        mine(fx_graph)
        for p in passes:
            p(fx_graph)

    return both


def share_first_call(graph) -> None:
    """Gives each recorded Inductor graph that has the Dynamo graph's signature (as many
    placeholders as its inputs, as many outputs as it returned) the Dynamo graph's first call."""
    from .dynamo_export import as_list

    returned = len(as_list(graph.outputs))
    for kept in graph.aot:
        if kept.kind not in ("pre-grad", "post-grad") or kept.called:
            continue
        placeholders = sum(1 for n in kept.gm.graph.nodes if n.op == "placeholder")
        output = next(n for n in kept.gm.graph.nodes if n.op == "output").args[0]
        outputs = len(output) if isinstance(output, (tuple, list)) else 1
        if placeholders == len(graph.inputs) and outputs == returned:
            kept.inputs, kept.outputs, kept.calls = graph.inputs, graph.outputs, graph.calls
