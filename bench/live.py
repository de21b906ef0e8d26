#!/usr/bin/python3
"""The live path's figures (issue 22), printed as Markdown tables:

1. show -> window drawn: fxview.show(gm, args, wait=True) with the app's --report-open-time,
   which quits once the graph is painted. Columns: the Python side before the app starts
   (reading the GraphModule into the protocol's graph), the app's own start-to-painted time as it
   reports it, and the wall time of the whole show() call (the app's exit included).
2. Time per step, each as a ratio to torch.fx.Interpreter(gm).run(x) measured in the same run:
   the live engine answering Continue over a socket (the run, its RunState encoded and sent,
   the output check), and Step (F10) on every node in turn: the round trip less the node's own
   time (its record's timeUs), median and worst. The machine's `python3 -c "import torch"`
   comes first, to compare machines.

Usage: scripts/in-root env PYTHONPATH=python FXVIEW_APP=build/app/fxview \
           QT_QPA_PLATFORM=offscreen /usr/bin/python3 bench/live.py
"""

import os
import re
import socket
import statistics
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
import timing  # noqa: E402

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


class Engine:
    """A live engine serving `gm` on a socket pair, asked as the window asks."""

    def __init__(self, gm, args):
        session = Session(gm, args, {}, fxgraph.choose_view(gm, args, {}, None), "python:bench")
        self.ours, theirs = socket.socketpair()
        threading.Thread(target=LiveEngine(session, theirs).serve, daemon=True).start()
        self.stream = self.ours.makefile("rb")
        wire.read_frame(self.stream)  # hello
        self.ask(wire.OPEN, wire.encode(wire.OpenRequest("python:bench")))

    def ask(self, kind, payload=b""):
        """The answers' frames up to Done (read, not decoded: the window decodes in C++)."""
        self.ours.sendall(wire.frame(kind, payload))
        frames = []
        while (frame := wire.read_frame(self.stream))[0] != wire.DONE:
            frames.append(frame)
        return frames

    def command(self, command):
        return self.ask(wire.COMMAND, wire.encode(wire.CommandRequest(command)))

    def close(self):
        self.ours.close()


def engine_continue(gm, args, pairs=9):
    """Reset, then Continue, alternating with torch.fx.Interpreter(gm).run on the same input so
    that both see the same machine (a shared one drifts by a third within a minute): the medians
    of each, and the median of the pairs' ratios."""
    engine = Engine(gm, args)
    interpreter, engine_times, ratios = [], [], []
    for _ in range(pairs):
        with torch.no_grad():
            start = time.perf_counter()
            torch.fx.Interpreter(gm).run(*args)
            interpreter.append(time.perf_counter() - start)
        engine.command(wire.RESET)
        start = time.perf_counter()
        engine.command(wire.RUN_TO_END)
        engine_times.append(time.perf_counter() - start)
        ratios.append(engine_times[-1] / interpreter[-1])
    engine.close()
    return statistics.median(interpreter), statistics.median(engine_times), \
        statistics.median(ratios)


def engine_steps(gm, args):
    """Step (F10) through every node: each round trip less the node's own time, in seconds:
    the median, and the worst with its node's name."""
    engine = Engine(gm, args)
    overheads = []
    for _ in range(len(gm.graph.nodes)):
        start = time.perf_counter()
        frames = engine.command(wire.STEP)
        elapsed = time.perf_counter() - start
        state = wire.decode([p for k, p in frames if k == wire.STATE][0], wire.RunState)
        own = state.records[state.last].timeUs * 1e-6
        overheads.append((elapsed - own, state.last))
    engine.close()
    return statistics.median(o for o, _ in overheads), max(overheads)


def import_torch_seconds():
    return timing.median_seconds([sys.executable, "-c", "import torch"], 3)


def main():
    print(f'python3 -c "import torch": {import_torch_seconds():.2f} s (median of 3)')
    print()
    print("| model | nodes | Python side | app start to painted | show() wall |")
    print("|---|---:|---:|---:|---:|")
    steps = []
    for name, model, args in cases():
        gm = torch.fx.symbolic_trace(model)
        nodes = len(gm.graph.nodes)
        python_side, painted, wall = show_times(gm, args)
        print(f"| {name} | {nodes} | {python_side * 1e3:.0f} ms | {painted} ms | "
              f"{wall * 1e3:.0f} ms |")
        interpreter, engine, ratio = engine_continue(gm, args)
        step_median, step_worst = engine_steps(gm, args)
        steps.append((name, nodes, interpreter, engine, ratio, step_median, step_worst))
    print()
    print("| model | nodes | fx.Interpreter.run | live Continue | ratio (median of 9 pairs) | "
          "F10 less the node's time: median | worst |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, nodes, interpreter, engine, ratio, step_median, step_worst in steps:
        print(f"| {name} | {nodes} | {interpreter * 1e3:.2f} ms | {engine * 1e3:.2f} ms | "
              f"{ratio:.2f}x | {step_median * 1e3:.2f} ms | {step_worst[0] * 1e3:.2f} ms "
              f"({step_worst[1]}) |")


if __name__ == "__main__":
    main()
