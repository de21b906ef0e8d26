#!/usr/bin/python3
"""Times a comparison of two runs (`fxtrace compare`, issue 26) against two plain runs of the
same model, as whole processes, on torchvision's resnet50 (traced, random weights) at
1x3x224x224:
  - `fxtrace run`: the interpreter's run and the module's own forward (two runs of the model);
  - python: torch.jit.load and two forward calls, what a person would otherwise time;
  - `fxtrace compare` with B on another seed, in bfloat16, and in bfloat16 --local (both
    models loaded, both runs, five metrics per node in float64).

Usage: /usr/bin/python3 bench/compare.py FXTRACE WORKDIR [--runs N]
Each command runs once to warm the page cache, then N times; the median wall time is reported.
Prints a Markdown table for docs/measurements.md.
"""
import argparse
import os
import sys

from archives import make_archives
from timing import median_seconds

PYTHON = "/usr/bin/python3"
PY_TWO_RUNS = ("import sys, torch; m = torch.jit.load(sys.argv[1]); "
               "x = torch.randn(1, 3, 224, 224)\n"
               "with torch.no_grad():\n    m(x); m(x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fxtrace")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    make_archives(args.workdir, ["resnet50_traced"])
    model = os.path.join(args.workdir, "resnet50_traced.pt")
    shape = ["--input", "1x3x224x224"]
    rows = [
        ("`fxtrace run` (interpreter + forward)", [args.fxtrace, "run", model, *shape]),
        ("python: load, forward twice", [PYTHON, "-c", PY_TWO_RUNS, model]),
        ("`fxtrace compare --seed-b 1`", [args.fxtrace, "compare", model, *shape, "--seed-b", "1"]),
        ("`fxtrace compare --dtype bfloat16`",
         [args.fxtrace, "compare", model, *shape, "--dtype", "bfloat16"]),
        ("`fxtrace compare --dtype bfloat16 --local`",
         [args.fxtrace, "compare", model, *shape, "--dtype", "bfloat16", "--local"]),
    ]
    print(f"resnet50_traced.pt at 1x3x224x224; median of {args.runs} runs, wall time in "
          "seconds, whole processes.\n")
    print("| command | time | against `fxtrace run` |")
    print("|---|---:|---:|")
    base = None
    for title, command in rows:
        seconds = median_seconds(command, args.runs)
        base = base or seconds
        print(f"| {title} | {seconds:.2f} | {seconds / base:.2f}× |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
