#!/usr/bin/python3
"""The live path's figures (issue 22), printed as Markdown tables:

1. show -> window drawn: fxview.show(gm, args, wait=True) with the app's --report-open-time,
   which quits once the graph is painted. Columns: the Python side before the app starts
   (reading the GraphModule into the protocol's graph), the app's own start-to-painted time as it
   reports it, and the wall time of the whole show() call (the app's exit included).
2. Time per step: torch.fx.Interpreter(gm).run(x) against the live engine's stepper running the
   same graph node by node (each node's summary made: statistics, histogram) and against the
   whole live engine answering Continue over a socket (the run, its RunState encoded and sent,
   and the output check: one more forward of the model).

Usage: scripts/in-root env PYTHONPATH=python FXVIEW_APP=build/app/fxview \
           QT_QPA_PLATFORM=offscreen /usr/bin/python3 bench/live.py
"""

import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import torch
import torch.fx
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures"))
import live_models  # noqa: E402

import fxview  # noqa: E402
from fxview import fxgraph, wire  # noqa: E402
from fxview.live import LiveEngine, Session  # noqa: E402

OPEN = re.compile(r"open time: (\d+) ms \(model shown after (\d+) ms\)")


def cases():
    torch.manual_seed(0)
    yield "tinynet", live_models.TinyNet(), (torch.randn(3, 4),)
    image = torch.randn(1, 3, 224, 224)
    for name in ("resnet18", "vit_b_16"):
        yield name, getattr(torchvision.models, name)(weights=None).eval(), (image,)


def median(work, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def show_times(gm, args):
    start = time.perf_counter()
    Session(gm, args, {}, fxgraph.choose_view(gm, args, {}, None), "python:bench").opened()
    python_side = time.perf_counter() - start
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        code = fxview.show(gm, args, wait=True, extra_args=["--report-open-time"], stdout=out)
        wall = time.perf_counter() - start
        out.seek(0)
        found = OPEN.search(out.read())
    assert code == 0 and found, f"fxview exited {code}"
    return python_side, int(found.group(1)), wall


def engine_continue(gm, args):
    """Open, then Continue, through a live engine on a socket pair: the time Continue takes."""
    session = Session(gm, args, {}, fxgraph.choose_view(gm, args, {}, None), "python:bench")
    ours, theirs = socket.socketpair()
    threading.Thread(target=LiveEngine(session, theirs).serve, daemon=True).start()
    stream = ours.makefile("rb")

    def ask(kind, payload=b""):
        ours.sendall(wire.frame(kind, payload))
        while wire.read_frame(stream)[0] != wire.DONE:
            pass

    wire.read_frame(stream)  # hello
    ask(wire.OPEN, wire.encode(wire.OpenRequest("python:bench")))
    reset = wire.encode(wire.CommandRequest(wire.RESET))
    run = wire.encode(wire.CommandRequest(wire.RUN_TO_END))

    def once():
        ask(wire.COMMAND, run)

    times = []
    for _ in range(5):
        ask(wire.COMMAND, reset)
        start = time.perf_counter()
        once()
        times.append(time.perf_counter() - start)
    ours.close()
    return statistics.median(times)


def main():
    print("| model | nodes | Python side | app start to painted | show() wall |")
    print("|---|---:|---:|---:|---:|")
    steps = []
    for name, model, args in cases():
        gm = torch.fx.symbolic_trace(model)
        nodes = len(gm.graph.nodes)
        python_side, painted, wall = show_times(gm, args)
        print(f"| {name} | {nodes} | {python_side * 1e3:.0f} ms | {painted} ms | "
              f"{wall * 1e3:.0f} ms |")
        with torch.no_grad():
            interpreter = median(lambda: torch.fx.Interpreter(gm).run(*args), 5)
            session = Session(gm, args, {}, fxgraph.choose_view(gm, args, {}, None), "b")

            def stepped():
                session.stepper.reset()
                session.stepper.run_to_end()

            stepper = median(stepped, 5)
        engine = engine_continue(gm, args)
        steps.append((name, nodes, interpreter, stepper, engine))
    print()
    print("| model | nodes | fx.Interpreter.run | live stepper | stepper overhead per node | "
          "live engine's Continue |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, nodes, interpreter, stepper, engine in steps:
        print(f"| {name} | {nodes} | {interpreter * 1e3:.2f} ms | {stepper * 1e3:.2f} ms | "
              f"{(stepper - interpreter) / nodes * 1e6:.0f} us | {engine * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
