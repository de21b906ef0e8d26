#!/usr/bin/python3
"""Times, as whole processes, `fxtrace graph MODEL` against what a user would otherwise do:
the Debian python3 running torch.jit.load on the same archive and printing its graph.

Usage: /usr/bin/python3 bench/fxtrace_vs_python.py FXTRACE WORKDIR [--runs N]

WORKDIR receives the benchmark archives (torchvision resnet50 and resnet18, scripted and
traced, random weights), made once. Each command runs once to warm the page cache, then N
times; the median wall time is reported. Prints a Markdown table for docs/measurements.md.
"""
import argparse
import os
import sys

from archives import make_archives
from timing import median_seconds

PYTHON = "/usr/bin/python3"  # Debian's, the one with torch and torchvision

MODELS = ["resnet50", "resnet18", "mobilenet_v2"]
PY_GRAPH = "import sys, torch; m = torch.jit.load(sys.argv[1]); print(m.graph)"
PY_INLINED = "import sys, torch; m = torch.jit.load(sys.argv[1]); print(m.inlined_graph)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fxtrace")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    make_archives(args.workdir, [f"{m}_{v}" for m in MODELS for v in ("scripted", "traced")])

    print(f"Median of {args.runs} runs, wall time in seconds, whole processes.\n")
    print("| archive | size | `fxtrace graph` | python `print(m.graph)` | ratio "
          "| python `print(m.inlined_graph)` | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in MODELS:
        for variant in ("scripted", "traced"):
            path = os.path.join(args.workdir, f"{name}_{variant}.pt")
            ours = median_seconds([args.fxtrace, "graph", path], args.runs)
            graph = median_seconds([PYTHON, "-c", PY_GRAPH, path], args.runs)
            inlined = median_seconds([PYTHON, "-c", PY_INLINED, path], args.runs)
            size = os.path.getsize(path) / 1e6
            print(f"| {name}_{variant}.pt | {size:.0f} MB | {ours:.3f} | {graph:.3f} "
                  f"| {ours / graph:.2f}× | {inlined:.3f} | {ours / inlined:.2f}× |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
