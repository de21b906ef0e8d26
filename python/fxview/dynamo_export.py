"""A compile session (python/fxview/dynamo.py) written to a folder without a window: for each
graph Dynamo made, its picture (stepped on its first call's inputs) and its text as fxview draws
and prints them, and index.json listing the graphs, the graph breaks (deduplicated, counted) and
the recompiles with their source lines. The format is docs/compile-session.md's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from .dynamo import CompiledGraph, CompileSession, SourceLine
from .dynamo_aot import AotGraph, joint_for, saved_activations
from .dynamo_passes import values_part
from .stepper import Stepper, finish_outputs
from .summary import exactly_equal

FORMAT, VERSION = "fxview.compile_session", 1


def export_session(session: CompileSession, folder, *, picture="svg", fxtrace=None) -> Path:
    """Writes graph_N.txt and graph_N.<picture> for every graph and index.json into `folder`
    (made if missing); returns index.json's path. picture=None writes the text files only."""
    from . import export

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    index = index_of(session, stepped=True)
    for g, entry in zip(session.graphs, index["graphs"]):
        args = tuple(g.inputs)
        text = folder / f"graph_{g.index}.txt"
        export(g.gm, args, text, fxtrace=fxtrace)
        entry["text"] = text.name
        if picture:
            drawn = folder / f"graph_{g.index}.{picture}"
            # Stepped on the inputs it was called with: every node carries its value.
            export(g.gm, args, drawn, run=g.called, fxtrace=fxtrace)
            entry["picture"] = drawn.name
        for a, aot in zip(g.aot, entry["aot"]):
            _write_aot(g, a, aot, folder, picture, fxtrace)
        if "joint" in entry:  # forward and backward side by side, saved activations as edges
            joint = joint_for(g)
            stem = f"graph_{g.index}_joint"
            export(joint.gm, tuple(joint.inputs), folder / f"{stem}.txt", fxtrace=fxtrace)
            entry["joint"]["text"] = f"{stem}.txt"
            if picture:
                export(joint.gm, tuple(joint.inputs), folder / f"{stem}.{picture}",
                       run=joint.called, fxtrace=fxtrace)
                entry["joint"]["picture"] = f"{stem}.{picture}"
        for k, (run, written) in enumerate(zip(g.passes, entry["passes"])):
            if run.after is None:
                continue
            stem = f"graph_{g.index}_pass_{k}"
            export(run.after, args, folder / f"{stem}.txt", fxtrace=fxtrace)
            written["text"] = f"{stem}.txt"
            if picture:
                export(run.after, args, folder / f"{stem}.{picture}", run=g.called,
                       fxtrace=fxtrace)
                written["picture"] = f"{stem}.{picture}"
    path = folder / "index.json"
    path.write_text(json.dumps(index, indent=1) + "\n")
    return path


def index_of(session: CompileSession, *, stepped: bool) -> dict:
    """The session as index.json has it, without the files; stepped=True steps every graph
    (stepped_outputs_equal), otherwise that field is null."""
    graphs = []
    for g in session.graphs:
        entry = _graph_entry(g, stepped)
        entry["aot"] = [{"kind": a.kind, "nodes": sum(1 for _ in a.gm.graph.nodes),
                         "calls": a.calls, "error": a.error,
                         "stepped_outputs_equal": stepped_outputs_equal(a) if stepped else None}
                        for a in g.aot]
        entry["passes"] = [dict({"name": r.name, "added": r.added, "removed": r.removed,
                                 "retargeted": r.retargeted, "error": r.error},
                                **(values_part(g, r) if stepped or r.parted else
                                   {"outputs_equal": None, "first_divergence": None}))
                           for r in g.passes]
        forward = next((a for a in g.aot if a.kind == "forward"), None)
        backward = next((a for a in g.aot if a.kind == "backward"), None)
        if forward and backward:
            entry["saved"] = [{"forward": f, "backward": b}
                              for f, b in saved_activations(forward, backward)]
            joint = joint_for(g)
            entry["joint"] = {"nodes": sum(1 for _ in joint.gm.graph.nodes),
                              "calls": joint.calls,
                              "stepped_outputs_equal": stepped_outputs_equal(joint)
                              if stepped else None}
        graphs.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "torch": torch.__version__,
        "graph_count": session.graph_count,
        "graph_break_count": session.graph_break_count,
        "graphs": graphs,
        "breaks": [{
            "reason": group.summary,
            "detail": group.breaks[0].reason,
            "where": _source(group.where),
            "stack": [_source(s) for s in group.breaks[0].stack],
            "instruction": group.instruction,
            "count": group.count,
            "graphs": [b.graph for b in group.breaks],
        } for group in session.breaks()],
        "recompiles": [{
            "function": _source(r.function),
            "guard": r.summary,
            "reasons": r.reasons,
            "where": _source(r.guard),
            "graph": r.before_graph,
        } for r in session.recompiles],
        "notes": list(session.notes),
    }


def _write_aot(g: CompiledGraph, a: AotGraph, entry: dict, folder: Path, picture, fxtrace):
    """One of AOTAutograd's graphs of graph g: graph_N_forward.txt and .svg, stepped on the
    inputs it was first called with (a backward: the saved activations and incoming gradients)."""
    from . import export

    stem = f"graph_{g.index}_{a.kind}"
    export(a.gm, tuple(a.inputs), folder / f"{stem}.txt", fxtrace=fxtrace)
    entry["text"] = f"{stem}.txt"
    if picture:
        export(a.gm, tuple(a.inputs), folder / f"{stem}.{picture}", run=a.called,
               fxtrace=fxtrace)
        entry["picture"] = f"{stem}.{picture}"


def stepped_outputs_equal(g: CompiledGraph | AotGraph) -> bool | None:
    """Whether fxview's step-by-step run of the graph on its first call's inputs returns, bit
    for bit, what the compiled code returned on them; None when it was never called."""
    if not g.called:
        return None
    stepper = Stepper(g.gm, [_fresh(v) for v in g.inputs])
    with torch.no_grad():
        stepper.run_to_end()
    if not stepper.finished:
        return False
    return exactly_equal(as_list(finish_outputs(g.gm, stepper.output)), as_list(g.outputs))


def _graph_entry(g: CompiledGraph, stepped: bool) -> dict:
    nodes = list(g.gm.graph.nodes)
    return {
        "index": g.index,
        "compile_id": g.compile_id,
        "frame": _source(g.frame),
        "ended_by": g.ended_by.strip().splitlines()[0] if g.ended_by.strip() else "",
        "nodes": len(nodes),
        "ops": sum(1 for n in nodes if n.op == "call_function"),
        "calls": g.calls,
        "inputs": [_described(v) for v in g.inputs],
        "stepped_outputs_equal": stepped_outputs_equal(g) if stepped else None,
        "error": g.error,
    }


def _source(s: SourceLine | None) -> dict | None:
    if s is None:
        return None
    return {"file": os.fspath(s.file), "line": s.line, "function": s.function, "code": s.code}


def _described(v) -> dict:
    if isinstance(v, torch.Tensor):
        return {"shape": list(v.shape), "dtype": str(v.dtype).removeprefix("torch.")}
    return {"value": repr(v)}


def _fresh(v):
    # The recorded copy stays as it was when the graph is stepped again (an in-place op).
    return v.clone() if isinstance(v, torch.Tensor) else v


def as_list(v):
    # Dynamo's graphs return a tuple; a compiled callable may hand back a list of the same.
    return list(v) if isinstance(v, (tuple, list)) else [v]
