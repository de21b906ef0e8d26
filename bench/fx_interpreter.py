#!/usr/bin/python3
"""torch.fx's side of the interpreter benchmark: on the same models and inputs as
bench_interpreter, times eager forward, torch.fx.Interpreter(gm).run and ShapeProp(gm).propagate,
and prints the per-node overhead ((run - forward) / nodes) as a Markdown table.

Usage: /usr/bin/python3 bench/fx_interpreter.py
"""
import statistics
import time

import os
import sys

import torch
import torch.fx
import torchvision
from torch.fx.passes.shape_prop import ShapeProp

# The seed's TinyNet, as the fixture generator defines it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
from generate_fixtures import TinyNet  # noqa: E402


def median_us(work, warmup, repeats):
    for _ in range(warmup):
        work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def main():
    torch.manual_seed(0)
    cases = [
        ("tinynet", TinyNet(), (3, 4)),
        ("resnet18", torchvision.models.resnet18(), (1, 3, 32, 32)),
        ("mobilenet_v2", torchvision.models.mobilenet_v2(), (1, 3, 32, 32)),
        ("resnet18", torchvision.models.resnet18(), (1, 3, 224, 224)),
    ]
    print("| model | input | nodes | forward | fx.Interpreter | per node | ratio "
          "| ShapeProp | per node | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with torch.no_grad():
        for name, model, shape in cases:
            model.eval()
            gm = torch.fx.symbolic_trace(model)
            torch.manual_seed(0)
            x = torch.randn(*shape)
            big = shape[-1] >= 128
            warmup, repeats = (3, 11) if big else (20, 101)
            nodes = len(gm.graph.nodes)
            forward = median_us(lambda: model(x), warmup, repeats)
            interp = median_us(lambda: torch.fx.Interpreter(gm).run(x), warmup, repeats)
            shapes = median_us(lambda: ShapeProp(gm).propagate(x), warmup, repeats)
            dims = "x".join(str(d) for d in shape)
            print(f"| {name} | {dims} | {nodes} | {forward:.1f} µs | {interp:.1f} µs "
                  f"| {(interp - forward) / nodes:.2f} µs | {interp / forward:.2f}× "
                  f"| {shapes:.1f} µs | {(shapes - forward) / nodes:.2f} µs | {shapes / forward:.2f}× |",
                  flush=True)


if __name__ == "__main__":
    main()
