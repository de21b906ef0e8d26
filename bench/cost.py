#!/usr/bin/env python3
"""What a profiled run costs against a plain one (issue 51), in a root's own PyTorch.

For each .pt2 given, side by side in one process, ROUNDS rounds of:
  plain     ep.module()(*example inputs): the model run as its author runs it;
  stepped   the Python engine's run from a reset to the end (python/fxview/stepper.py), with
            every node's record, value summary and cost figures (docs/cost.md) made: what one
            of Run ▸ Profile…'s runs is;
  uncosted  the same run with the cost figures' code (python/fxview/cost.py: storages, the live
            set, FLOPs) replaced by nothing, to say what those figures add on their own.
Each round runs the three in turn (so that a busy machine slows all three alike), five runs of
each in a row, after one warm-up each: what one kind leaves behind slows the first run of the
next (ep.module() more than the others), which the median over all of a kind's runs leaves out. Prints each one's median and the ratios stepped/plain and stepped/uncosted.

Usage, inside a root (scripts/in-root) with the package on PYTHONPATH:
    PYTHONPATH=python python3 bench/cost.py [--rounds 20] MODEL.pt2...
docs/measurements.md has the figures.
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
from fxview import cost  # noqa: E402
from fxview.program import ProgramSession, load_program  # noqa: E402


BLOCK = 5


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1e3


def bench(path: str, rounds: int) -> None:
    ep = load_program(path, [])
    session = ProgramSession(ep, path)
    module = ep.module()
    args, kwargs = ep.example_inputs
    stepper = session.stepper

    def plain():
        with session.run_mode():  # as the engine runs it, and as a person calls ep.module()
            module(*args, **kwargs)

    def stepped():
        stepper.reset()
        with session.run_mode():
            stepper.run_to_end()
        assert stepper.finished, stepper.failure

    figures = (cost.note_output_cost, cost.count_flops, cost.distinct_bytes, cost.versions)

    def uncosted():
        cost.note_output_cost = lambda *a: None
        cost.count_flops = lambda *a: 0
        cost.distinct_bytes = lambda *a: 0
        cost.versions = lambda *a: {}
        try:
            stepped()
        finally:
            (cost.note_output_cost, cost.count_flops, cost.distinct_bytes,
             cost.versions) = figures

    runs = [("plain", plain), ("stepped", stepped), ("uncosted", uncosted)]
    times = {name: [] for name, _ in runs}
    for _, run in runs:
        run()  # warm-up
    # In blocks of BLOCK runs of one kind, the kinds in turn: the first run after another kind
    # pays for what that one left behind (ep.module()'s allocations, the caches), which the
    # median over the block's runs leaves out.
    for _ in range(rounds):
        for name, run in runs:
            times[name] += [timed(run) for _ in range(BLOCK)]
    median = {name: statistics.median(t) for name, t in times.items()}
    nodes = len(stepper.nodes)
    print(f"{os.path.basename(path)} ({nodes} nodes, PyTorch {torch.__version__}, {rounds} "
          f"rounds of {BLOCK}): plain {median['plain']:.2f} ms, stepped {median['stepped']:.2f} ms, "
          f"uncosted {median['uncosted']:.2f} ms; stepped/plain "
          f"{median['stepped'] / median['plain']:.2f}, stepped/uncosted "
          f"{median['stepped'] / median['uncosted']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("models", nargs="+", metavar="MODEL.pt2")
    options = parser.parse_args()
    torch.set_num_threads(1)  # one core each, as the machine's other work allows
    for path in options.models:
        bench(path, options.rounds)


if __name__ == "__main__":
    main()
