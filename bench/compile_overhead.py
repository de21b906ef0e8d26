#!/usr/bin/python3
"""What compiling under fxview.backend adds to a torch.compile run, next to backend="eager"
(issue 37's goal: under 1.5x on resnet18's first call, nothing after it while no window is open).

Usage (in a root with torchvision; PYTHONPATH holding python/): python3 bench/compile_overhead.py
[--runs N]

Each first call is measured in a process of its own (Dynamo's caches start empty; torch and
torchvision already imported): torch.compile(resnet18, backend=B)(x) on 1x3x224x224, for
B = "eager" and fxview.backend, in turn, N times each; medians are printed. Then, in one process
per backend, the median of 50 later calls. Random weights, eval mode, no_grad.
"""
import argparse
import json
import statistics
import subprocess
import sys

ONE_RUN = r"""
import json, sys, time
import torch, torchvision
backend_name = sys.argv[1]
torch.manual_seed(0)
model = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, 224, 224)
if backend_name == "fxview":
    import fxview
    backend = fxview.backend
else:
    backend = backend_name
with torch.no_grad():
    compiled = torch.compile(model, backend=backend)
    start = time.perf_counter()
    compiled(x)
    first = time.perf_counter() - start
    later = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter()
        compiled(x)
        later.append(time.perf_counter() - start)
print(json.dumps({"first": first, "later": later}))
"""


def run(backend, later_calls):
    out = subprocess.run([sys.executable, "-c", ONE_RUN, backend, str(later_calls)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    import torch

    first = {"eager": [], "fxview": []}
    run("eager", 0)  # warms the page cache
    for _ in range(args.runs):
        for backend in first:
            first[backend].append(run(backend, 0)["first"])
    later = {backend: statistics.median(run(backend, 50)["later"]) for backend in first}
    print(f"resnet18 1x3x224x224, PyTorch {torch.__version__}, first call median of {args.runs} "
          "processes, later calls median of 50")
    print("| backend | first call (s) | a later call (ms) |")
    print("|---|---:|---:|")
    for backend in first:
        print(f"| {backend} | {statistics.median(first[backend]):.3f} | "
              f"{later[backend] * 1000:.2f} |")
    ratio = statistics.median(first["fxview"]) / statistics.median(first["eager"])
    print(f"ratio first call fxview.backend / eager: {ratio:.2f}; later calls: "
          f"{later['fxview'] / later['eager']:.2f}")


if __name__ == "__main__":
    main()
