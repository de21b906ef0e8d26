"""A person's passes over what Dynamo made: fxview.backend(passes=...) runs each pass (any
GraphModule -> GraphModule callable; one returning None changed its argument in place) on each
Dynamo graph in turn, records the graph before and after it with what changed (nodes added,
removed, retargeted), and hands the last result to the inner backend, so the compiled code is
what the passes made. Both sides are stepped on the graph's first call's inputs, node by node
side by side (fxview.compare's runs), to say where their values first part."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.fx


@dataclass
class PassRun:
    """One pass over one graph."""

    name: str
    before: torch.fx.GraphModule
    after: torch.fx.GraphModule | None  # None when the pass raised
    added: list[str] = field(default_factory=list)  # node names only `after` has
    removed: list[str] = field(default_factory=list)  # node names only `before` has
    retargeted: list[str] = field(default_factory=list)  # same name, another op or target
    error: str = ""
    parted: dict | None = None  # values_part's answer, once asked


def named_passes(passes) -> list[tuple[str, object]]:
    """passes as (name, callable): a callable, a list of them, or a dict by name."""
    if passes is None:
        return []
    if callable(passes):
        passes = [passes]
    if isinstance(passes, dict):
        return list(passes.items())
    return [(getattr(p, "__name__", type(p).__name__), p) for p in passes]


def run_passes(graph, passes, recorded_copy) -> torch.fx.GraphModule:
    """Runs the passes on graph.gm (a copy each: the recorded graph stays as Dynamo made it);
    records each into graph.passes; returns what the last one made (graph.gm if none ran)."""
    current = graph.gm
    for name, fn in named_passes(passes):
        before = current
        try:
            work = recorded_copy(before)
            result = fn(work)
            after = work if result is None else result
            if not isinstance(after, torch.fx.GraphModule):
                raise TypeError(f"it returned a {type(after).__name__}, not a GraphModule")
            after.graph.lint()  # a malformed graph is this pass's, said here
            after.recompile()
        except Exception as error:  # noqa: BLE001 - said in the session; Dynamo's graph runs
            graph.passes.append(PassRun(name, before, None,
                                        error=f"{type(error).__name__}: {error}"))
            continue
        graph.passes.append(PassRun(name, before, after, *diff(before, after)))
        current = after
    return current


def diff(before: torch.fx.GraphModule, after: torch.fx.GraphModule):
    """(added, removed, retargeted) node names: fx names a node for good, so a node of the same
    name on both sides is the same node; retargeted if its op or target changed."""
    old = {n.name: n for n in before.graph.nodes}
    new = {n.name: n for n in after.graph.nodes}
    added = [name for name in new if name not in old]
    removed = [name for name in old if name not in new]
    retargeted = [name for name, n in new.items() if name in old and
                  (old[name].op, str(old[name].target)) != (n.op, str(n.target))]
    return added, removed, retargeted


def values_part(graph, run: PassRun) -> dict:
    """Both sides stepped on the graph's recorded inputs: whether their outputs are equal, and
    the first node (of `before`, in its order) whose value parts from its partner's."""
    from .comparison import compare_runs
    from .dynamo_export import as_list
    from .stepper import Stepper, finish_outputs
    from .summary import exactly_equal

    if run.parted is not None:
        return run.parted
    if run.after is None or not graph.called:
        return {"outputs_equal": None, "first_divergence": None}
    outputs = []
    for gm in (run.before, run.after):
        stepper = Stepper(gm, [v.clone() if isinstance(v, torch.Tensor) else v
                               for v in graph.inputs])
        with torch.no_grad():
            stepper.run_to_end()
        outputs.append(as_list(finish_outputs(gm, stepper.output)) if stepper.finished else None)
    with torch.no_grad():
        parted = compare_runs(run.before, list(graph.inputs), run.after, list(graph.inputs))
    run.parted = {"outputs_equal": outputs[0] is not None and outputs[1] is not None
                  and exactly_equal(outputs[0], outputs[1]),
                  "first_divergence": parted.first_divergence()}
    return run.parted
