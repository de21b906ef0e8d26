"""python3 -m fxview graph|run MODEL.pt2: the Python engine without a window, in this Python's
PyTorch (program.py, the code the window's Python engine runs).

  graph MODEL.pt2 [--import M]...        prints print(torch.export.load(MODEL).graph)
  run MODEL.pt2 [--input SPEC|file:IN.pt] [--save-outputs OUT.pt] [--device D] [--import M]...
                [--ops LIB.so]... [--profile N] [--csv FILE] [--trace FILE]
                                          steps it to the end: a line per node (name, op, target,
                                          shape, dtype, time) as fxtrace run prints them, then
                                          `Outputs equal to ep.module(): True|False`; exit 1 when
                                          a node fails or the outputs differ. --profile N runs it
                                          N more times after that one and prints what each node
                                          costs as `fxtrace run --profile` does; --csv FILE
                                          writes that table; --trace FILE runs it
                                          once more first under torch.profiler,
                                          prints the nodes whose operators took the
                                          most time and writes the profiler's Chrome
                                          trace, each node a range named
                                          fxview::NODE (docs/cost.md)

SPEC is 3x4, 2x8:int64 (random after torch.manual_seed(--seed)) or example, once per input in
the graph's order; file:IN.pt is ep.module()'s arguments as torch.save wrote them: a tensor, a
tuple of arguments, or (args, kwargs)."""

from __future__ import annotations

import argparse
import sys

import torch
import torch.utils._pytree as pytree

from . import cost, fxgraph, operators, wire
from .program import ProgramError, ProgramSession, load_program


def _spec(text: str) -> wire.InputSpec:
    if text == "example":
        return wire.InputSpec(example=True)
    shape, _, dtype = text.partition(":")
    try:
        sizes = [int(s) for s in shape.split("x")] if shape else []
    except ValueError:
        raise ProgramError(f"--input {text}: a shape is sizes joined by x (1x3x224x224), "
                           "optionally :dtype, or file:IN.pt, or example.") from None
    return wire.InputSpec(shape=sizes, dtype=dtype or "float32")


def _file_inputs(session: ProgramSession, path: str) -> list:
    """ep.module()'s arguments from a torch.save file, flattened as its in_spec flattens them."""
    try:
        given = torch.load(path, map_location=session.device or "cpu")
    except Exception as error:  # noqa: BLE001
        raise ProgramError(f"Cannot read {path}: {error}.") from error
    if isinstance(given, tuple) and len(given) == 2 and isinstance(given[1], dict) \
            and isinstance(given[0], (tuple, list)):
        args, kwargs = tuple(given[0]), given[1]
    else:
        args, kwargs = (given if isinstance(given, (tuple, list)) else (given,)), {}
    leaves = pytree.tree_leaves((tuple(args), kwargs))
    if len(leaves) != len(session.user_placeholders):
        raise ProgramError(f"{path} holds {len(leaves)} values, but the program takes "
                           f"{len(session.user_placeholders)} inputs.")
    return leaves


def _describe(summary: wire.ValueSummary) -> tuple[str, str]:
    """A node's output as fxtrace run prints it: its shape and dtype, a tuple's shapes."""
    if summary.type == "Tensor":
        return str(summary.shape), summary.dtype
    if summary.items:
        return "(" + ", ".join(_describe(item)[0] for item in summary.items) + ")", ""
    return summary.value or summary.type, ""


def run(args) -> int:
    session = ProgramSession(load_program(args.model, args.imports, args.ops), args.model,
                             args.device)
    files = [s[len("file:"):] for s in args.input if s.startswith("file:")]
    if files:
        if len(args.input) != 1:
            raise ProgramError("--input file:IN.pt holds every input: give it alone.")
        session.stepper = session._stepper(_file_inputs(session, files[0]))
    elif args.input:
        error = session.set_inputs([_spec(s) for s in args.input], args.seed)
        if error:
            raise ProgramError(error)
    stepper = session.stepper
    times = {}
    ran_operators, trace = {}, ""
    with session.run_mode():
        if args.trace:  # one run under torch.profiler first (operators.py)
            ran_operators, trace, note = operators.profiled_run(stepper)
            if note:
                print(note, file=sys.stderr)
        if args.profile and not stepper.failed:  # warmed up by --trace's runs, or a run now
            times, _, _ = cost.profile(stepper, args.profile, warm_up=not args.trace)
        elif not stepper.failed:
            stepper.run_to_end()
    table = cost.table_rows(stepper, times)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as f:
            f.write(cost.table_csv(table))
    if args.profile:
        sys.stdout.write(cost.table_text(table, args.profile, stepper.peak))
    else:
        _print_run(stepper)
    if args.trace:
        sys.stdout.write(operators.operators_text(ran_operators))
        if trace:
            with open(args.trace, "w", encoding="utf-8") as f:
                f.write(trace)
    if stepper.failed:
        print(stepper.failure, file=sys.stderr)
        return 1
    check = session.check_outputs()
    print(f"Outputs equal to ep.module(): {check.verdict == wire.EQUAL}")
    if check.verdict != wire.EQUAL:
        print(check.message, file=sys.stderr)
    if args.save_outputs:
        outputs = pytree.tree_unflatten(session.user_outputs(stepper.output),
                                        session.ep.call_spec.out_spec)
        torch.save(outputs, args.save_outputs)
    return 0 if check.verdict == wire.EQUAL else 1


def _print_run(stepper) -> None:
    rows = [("name", "op", "target", "shape", "dtype", "time")]
    for node in stepper.nodes:
        record = stepper.records[node.name]
        if record.state != wire.DONE_STATE:
            continue
        shape, dtype = _describe(record.value)
        rows.append((node.name, node.op, fxgraph._target(node), shape, dtype,
                     f"{record.timeUs:.1f} us"))
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def _positive(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= wire.MAX_PROFILE_RUNS:
        raise argparse.ArgumentTypeError("--profile needs how many timed runs, a whole number "
                                         f"from 1 to {wire.MAX_PROFILE_RUNS}")
    return int(text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m fxview", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    graph = commands.add_parser("graph", help="print the program's graph")
    step = commands.add_parser("run", help="step the program to the end")
    for p in (graph, step):
        p.add_argument("model", metavar="MODEL.pt2")
        p.add_argument("--import", dest="imports", action="append", default=[],
                       metavar="MODULE")
        p.add_argument("--ops", action="append", default=[], metavar="LIB.so")
    step.add_argument("--input", action="append", default=[], metavar="SPEC")
    step.add_argument("--seed", type=int, default=0)
    step.add_argument("--device", default="")
    step.add_argument("--save-outputs", metavar="OUT.pt")
    step.add_argument("--profile", type=_positive, default=0, metavar="N")
    step.add_argument("--csv", metavar="FILE")
    step.add_argument("--trace", metavar="FILE")
    args = parser.parse_args(argv)
    try:
        if args.command == "graph":
            ep = load_program(args.model, args.imports, args.ops)
            sys.stdout.write(fxgraph.graph_text(ep.graph_module))
            return 0
        return run(args)
    except ProgramError as error:
        print(f"fxview: {error}", file=sys.stderr)
        return 2
