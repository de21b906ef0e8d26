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


def joint_of(forward: AotGraph, backward: AotGraph) -> AotGraph:
    """Forward and backward as one graph to draw and step side by side: the forward's nodes in
    a scope "forward", the backward's in "backward", each saved activation an edge from the
    forward node that made it to the backward nodes that read it (its placeholder gone), the
    incoming gradients (tangents) as placeholders. It returns the forward's own outputs, then
    the gradients; stepped on the forward's and the tangents' first-call values."""
    graph = torch.fx.Graph()
    fw_nodes = list(forward.gm.graph.nodes)
    bw_nodes = list(backward.gm.graph.nodes)
    fw_output = fw_nodes[-1].args[0]
    saved = dict(saved_activations(forward, backward))
    made = {}  # forward node name -> the joint's node
    env = {}

    def scoped(node: torch.fx.Node, scope: str) -> torch.fx.Node:
        node.meta = dict(node.meta, nn_module_stack={scope: (scope, scope.capitalize())})
        return node

    # Placeholders first, as fx wants them: the forward's inputs, then the tangents.
    tangents = [n for n in bw_nodes if n.op == "placeholder" and n.name not in saved]
    for n in fw_nodes:
        if n.op == "placeholder":
            env[n] = made[n.name] = scoped(graph.node_copy(n), "forward")
    for n in tangents:
        env[n] = scoped(graph.node_copy(n), "backward")
    for n in fw_nodes:
        if n.op not in ("placeholder", "output"):
            env[n] = made[n.name] = scoped(graph.node_copy(n, lambda x: env[x]), "forward")
    for n in bw_nodes:
        if n.op == "placeholder":
            if n.name in saved:
                env[n] = made[saved[n.name]]
        elif n.op != "output":
            env[n] = scoped(graph.node_copy(n, lambda x: env[x]), "backward")
    users = len(fw_output) - len(saved)  # the forward's own outputs come before the saved ones
    grads = bw_nodes[-1].args[0]
    graph.output(tuple(env[a] if isinstance(a, torch.fx.Node) else a
                       for a in list(fw_output[:users]) + list(grads)))
    root = torch.nn.Module()
    for owner in (forward.gm, backward.gm):  # constants a graph reads with get_attr
        for name, value in list(owner.named_buffers()) + list(owner.named_parameters()):
            if "." not in name and not hasattr(root, name):
                root.register_buffer(name, value)
    gm = torch.fx.GraphModule(root, graph, class_name="ForwardAndBackward")
    joint = AotGraph("joint", gm)
    if forward.called and backward.called:
        bw_placeholders = [n for n in bw_nodes if n.op == "placeholder"]
        tangent_values = [v for n, v in zip(bw_placeholders, backward.inputs)
                          if n.name not in saved]
        joint.inputs = list(forward.inputs) + tangent_values
        joint.outputs = list(forward.outputs)[:users] + list(backward.outputs)
        joint.calls = 1
    return joint


def joint_for(graph) -> AotGraph | None:
    """graph's forward and backward as one (joint_of), made once; None without both."""
    if graph.joint is None:
        forward = next((a for a in graph.aot if a.kind == "forward"), None)
        backward = next((a for a in graph.aot if a.kind == "backward"), None)
        if forward is not None and backward is not None:
            graph.joint = joint_of(forward, backward)
    return graph.joint
