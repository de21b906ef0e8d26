"""A compile session in the window: the live engine serves one of the session's graphs at a time,
stepped on the inputs it was first called with, exactly as fxview.show steps a GraphModule, and
after every Opened sends the whole session (CompileSession) for the Compile panel. The window
opens another graph as any model is opened, by its source:

    python:compile:3           Dynamo's graph 3
    python:compile:3:forward   AOTAutograd's forward of graph 3 (inner="aot_eager")
    python:compile:3:backward  its backward
    python:compile:3:joint     both as one graph, the saved activations as edges between them
    python:compile:3:pass:0    graph 3 after the person's first pass (passes=)

Any other source opens the first graph that was called. A graph's output check compares the
run with what the compiled code returned on the same inputs."""

from __future__ import annotations

import json

import torch

from . import comparison, fxgraph, wire
from .dynamo import CompileSession
from .dynamo_aot import joint_for
from .dynamo_export import as_list, index_of
from .dynamo_passes import values_part
from .live import LiveEngine, Session
from .stepper import finish_outputs
from .summary import exactly_equal

PREFIX = "python:compile:"


class RecordedSession(Session):
    """One graph of the session with its recorded first call: the window's check of the run's
    output is against what the compiled code returned (inputs the window made: gm's own). A
    comparison whose run B is another graph of the session (the graph a pass was given) steps
    both on this run's inputs."""

    def __init__(self, graph, source: str, title: str, others=None):
        view = fxgraph.choose_view(graph.gm, tuple(graph.inputs), {}, None)
        super().__init__(graph.gm, tuple(graph.inputs), {}, view, source)
        self.recorded = graph
        self.class_name = title
        self.others = others  # source -> chosen()'s (graph, kind, title), or None

    def compare(self, r: wire.CompareRequest, before_node) -> wire.ComparisonAnswer:
        if not (r.modelB.startswith(PREFIX) and self.others):
            return super().compare(r, before_node)
        picked = self.others(r.modelB)
        if picked is None:
            return wire.ComparisonAnswer(error=f"The compile session has no graph '{r.modelB}' "
                                               "to compare with.")
        other, _, title = picked

        def inputs():  # each run its own copy: a graph may write into its inputs
            return [v.clone() if isinstance(v, torch.Tensor) else v for v in self.stepper.inputs]

        with torch.no_grad():
            result = comparison.compare_runs(self.gm, inputs(), other.gm, inputs(),
                                             local=r.local, before_node=before_node)
        result.model_a, result.model_b = self.source, r.modelB
        result.run_a, result.run_b = self.class_name, title
        return wire.ComparisonAnswer(json=result.to_json())

    def check_outputs(self) -> wire.OutputCheck:
        if not (self.recorded.called and all(spec.example for spec in self.specs)):
            return super().check_outputs()
        got = finish_outputs(self.gm, self.stepper.output)
        if exactly_equal(as_list(got), as_list(self.recorded.outputs)):
            return wire.OutputCheck(wire.EQUAL)
        if getattr(self.recorded, "kind", "") in ("pre-grad", "post-grad"):
            return wire.OutputCheck(wire.DIFFERS,
                                    "The stepped graph's output differs from what Inductor's "
                                    "generated code returned on the same inputs: fxview steps "
                                    "the graph with ATen's kernels, and Inductor's own round "
                                    "differently; see by how much with the Values dock.")
        if getattr(self.recorded, "passes", None):
            return wire.OutputCheck(wire.DIFFERS,
                                    "The stepped graph's output differs from what the compiled "
                                    "code returned on the same inputs: that code is what your "
                                    "passes made; open each pass's graph to see which changed "
                                    "the values.")
        return wire.OutputCheck(wire.DIFFERS,
                                "The stepped graph's output differs from what the compiled code "
                                "returned on the same inputs: this is a bug of fxview's, please "
                                "report it with the model.")


def chosen(session: CompileSession, source: str):
    """(graph, kind, title) that `source` names; kind "" for Dynamo's graph itself."""
    index, kind = None, ""
    if source.startswith(PREFIX):
        parts = source[len(PREFIX):].split(":")
        if parts[0].isdigit():
            index = int(parts[0])
            kind = parts[1] if len(parts) > 1 else ""
    if index is None:
        index = next((g.index for g in session.graphs if g.called), 0)
    if not 0 <= index < len(session.graphs):
        return None
    graph = session.graphs[index]
    if kind == "joint":
        joint = joint_for(graph)
        return (joint, kind, f"graph {index} forward and backward") if joint else None
    if kind == "pass":
        k = parts[2] if len(parts) > 2 else ""
        run = graph.passes[int(k)] if k.isdigit() and int(k) < len(graph.passes) else None
        if run is None or run.after is None:
            return None
        return _AfterPass(graph, run), kind, f"graph {index} after {run.name}"
    if kind:
        graph = next((a for a in graph.aot if a.kind == kind), None)
        if graph is None:
            return None
    title = f"graph {index}" + (f" {kind}" if kind else "")
    return graph, kind, title


class _AfterPass:
    """A graph after one of the person's passes, stepped on the graph's own first call."""

    def __init__(self, graph, run):
        self.gm, self.inputs, self.outputs = run.after, graph.inputs, graph.outputs
        self.called, self.passes = graph.called, graph.passes


class CompileEngine(LiveEngine):
    def __init__(self, session: CompileSession, sock):
        self.compile_session = session
        self.open_source = PREFIX + "0"
        first = chosen(session, "")
        super().__init__(RecordedSession(first[0], self.open_source, first[2]), sock)

    def handle(self, kind: int, payload: bytes) -> None:
        if kind != wire.OPEN:
            return super().handle(kind, payload)
        request = wire.decode(payload, wire.OpenRequest)
        picked = chosen(self.compile_session, request.source)
        if picked is None:
            return self.send(wire.OPEN_FAILED, wire.encode(
                f"The compile session has no graph '{request.source}': it holds "
                f"{self.compile_session.graph_count} graph(s); open one from the Compile panel."))
        graph, _, title = picked
        if not graph.called:
            return self.send(wire.OPEN_FAILED, wire.encode(
                f"{title} was compiled but never called, so there are no inputs to step it on."))
        self.session = RecordedSession(graph, request.source, title,
                                       lambda source: chosen(self.compile_session, source))
        self.open_source = (request.source if request.source.startswith(PREFIX)
                            else PREFIX + str(graph.index))
        super().handle(kind, payload)
        for g in self.compile_session.graphs:  # where each pass's values part: once, for the panel
            for run in g.passes:
                values_part(g, run)
        index = index_of(self.compile_session, stepped=False)
        index["open"] = self.open_source
        self.send(wire.COMPILE_SESSION, wire.encode(json.dumps(index)))
