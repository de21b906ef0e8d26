"""Each node's operators as torch.profiler sees them (docs/cost.md): one run of the stepper's model
under torch.profiler, where each node's own computation runs inside
`record_function("fxview::<node>")` (stepper.py's `annotate`; fxview's summaries of the value
stay outside it), so that the operators the profiler records within that range are the ones the
node ran. Gives each node's operators with their own (self) time and calls, and the Chrome trace
the profiler exports, in which those ranges name the nodes (Perfetto and chrome://tracing draw
them above their operators)."""

from __future__ import annotations

import os
import tempfile

import torch
from torch.profiler import ProfilerActivity

from . import cost, wire

PREFIX = "fxview::"  # a node's range in the trace: fxview::linear_1
MAX_TRACE_BYTES = 256 << 20  # a longer trace is not sent (the window would hold it whole)


def _self_device_us(event) -> float:
    # PyTorch 2.4 renamed the CUDA figures to device ones; older ones have only the first.
    for name in ("self_device_time_total", "self_cuda_time_total"):
        value = getattr(event, name, None)
        if value is not None:
            return float(value)
    return 0.0


def node_operators(events) -> dict[str, list]:
    """Every node's operators from the profiler's events: the events under each fxview:: range
    (nested ones too, each with its own self time so none is counted twice), by name, the most
    time first. A node that ran more than once (inside a loop) adds up its runs."""
    out: dict[str, dict] = {}
    for event in events:
        if not event.name.startswith(PREFIX):
            continue
        node = event.name[len(PREFIX):]
        by_name = out.setdefault(node, {})
        stack = list(event.cpu_children)
        while stack:
            child = stack.pop()
            stack.extend(child.cpu_children)
            if child.name.startswith(PREFIX):
                continue  # a node inside it (a module stepped into): its own row
            row = by_name.setdefault(child.name, wire.OperatorTime(name=child.name))
            row.selfUs += float(child.self_cpu_time_total)
            row.deviceUs += _self_device_us(child)
            row.calls += 1
    return {node: sorted(rows.values(), key=lambda r: (-(r.selfUs + r.deviceUs), r.name))
            for node, rows in out.items()}


def profiled_run(stepper, go_on=None) -> tuple[dict, str, str]:
    """Runs the stepper's model from its inputs to its end once to warm up (a first run's lazy
    set-up is no operator's own time), then once under torch.profiler (the CPU, and CUDA when
    the model is there). Returns each node's operators {name: [OperatorTime]}, the Chrome
    trace's text ("" when none) and why something is missing ("" when nothing is). The stepper
    is left holding the profiled run; `go_on(next node)` is asked before each node (Pause)."""
    activities = [ProfilerActivity.CPU]
    if stepper.device is not None and stepper.device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    stopped = not cost.whole_run(stepper, go_on)
    if stopped or stepper.failed:
        return {}, "", stepper.failure if stepper.failed else \
            "The torch.profiler run was stopped before its end."
    stepper.annotate = True
    try:
        with torch.profiler.profile(activities=activities) as prof:
            stopped = not cost.whole_run(stepper, go_on)
    finally:
        stepper.annotate = False
    note = stepper.failure if stepper.failed else \
        "The torch.profiler run was stopped before its end." if stopped else ""
    operators = node_operators(prof.events())
    handle, path = tempfile.mkstemp(prefix="fxview-trace-", suffix=".json")
    os.close(handle)
    try:
        prof.export_chrome_trace(path)
        size = os.path.getsize(path)
        if size > MAX_TRACE_BYTES:
            return operators, "", (f"The torch.profiler trace holds {size >> 20} MiB, more than "
                                   f"the {MAX_TRACE_BYTES >> 20} MiB fxview sends; the operators' "
                                   "times are here, the trace is not.")
        with open(path, encoding="utf-8", errors="replace") as f:
            return operators, f.read(), note
    finally:
        os.unlink(path)


def operators_text(operators: dict, shown: int = 10) -> str:
    """The nodes whose operators took the most time, each with its operators, as `python3 -m
    fxview run --profile N --trace FILE` prints them."""
    totals = sorted(((sum(r.selfUs + r.deviceUs for r in rows), node)
                     for node, rows in operators.items()), reverse=True)
    lines = ["operators (one torch.profiler run; their own time, the most first):"]
    for total, node in totals[:shown]:
        ops = ", ".join(f"{r.name} {r.selfUs:.1f} us" + (f" x{r.calls}" if r.calls > 1 else "")
                        for r in operators[node][:4])
        more = len(operators[node]) - 4
        lines.append(f"  {node}  {total:.1f} us: {ops}" + (f", and {more} more" if more > 0
                                                          else ""))
    return "\n".join(lines) + "\n"
