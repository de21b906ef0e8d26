"""Forward and backward: with fxview.backend(inner="aot_eager"), each Dynamo graph goes through
AOTAutograd as torch's own aot_eager backend sends it (its min-cut partition of the joint graph),
and the forward and backward graphs it hands its compilers are recorded here, each with its
first call's inputs and outputs: the backward's are the saved activations and the gradients
coming in, and the gradients going out. Each graph is run as aot_eager runs it (boxed_nop)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.fx


@dataclass
class AotGraph:
    """A graph AOTAutograd made from one Dynamo graph: "forward" (of a run that may need
    gradients, or of an inference run) or "backward"."""

    kind: str
    gm: torch.fx.GraphModule
    inputs: list = field(default_factory=list)
    requires_grad: list = field(default_factory=list)
    outputs: object = None
    calls: int = 0
    error: str = ""

    @property
    def called(self) -> bool:
        return self.calls > 0


def aot_compilers(graph, recorded_copy, first_call):
    """(fw_compiler, bw_compiler) for aot_eager that record into graph.aot: each compiles as
    aot_eager's boxed_nop does, around a copy of the graph kept as AOTAutograd made it."""
    from torch._dynamo.backends.debugging import boxed_nop

    def compiler_of(kind):
        def compiler(fx_g, example_inputs):
            # Copied before boxed_nop: it gives fx_g a boxed forward (one list argument).
            kept = AotGraph(kind, recorded_copy(fx_g))
            graph.aot.append(kept)
            return first_call(kept, boxed_nop(fx_g, example_inputs))

        return compiler

    return compiler_of("forward"), compiler_of("backward")


def saved_activations(forward: AotGraph, backward: AotGraph) -> list[tuple[str, str]]:
    """The edges between a forward and its backward: (the forward's output, the backward's
    placeholder) for each value the forward saves for the backward. The partitioner gives a
    saved value's placeholder in the backward the name of its node in the forward."""
    outputs = next(n for n in forward.gm.graph.nodes if n.op == "output").args[0]
    returned = {a.name for a in outputs if isinstance(a, torch.fx.Node)}
    return [(n.name, n.name) for n in backward.gm.graph.nodes
            if n.op == "placeholder" and n.name in returned]
