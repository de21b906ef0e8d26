#!/usr/bin/python3
"""torch.export programs (.pt2) against the same models as TorchScript, as whole processes:

1. `fxtrace graph M.pt2` against the Debian python3 doing torch.export.load(M.pt2) and printing
   its graph (what a person would otherwise run to see it);
2. the app, offscreen: launch to graph painted (`--report-open-time`) and to the end of the first
   step (`--report-first-step-time`, where a .pt2 reads its weights), for the .pt2 and for the
   traced TorchScript archive of the same model, and TinyNet's .pt2 (a .pt2 the window draws
   itself while its engine starts: the first step waits for the engine), each also as a ratio
   of `python3 -c "import torch"` timed in the same run.

3. with `--versus OTHER_FXVIEW`: another build's app on the same files, launch by launch in turn
   with this one's (A B A B ...), and the ratio of their medians: how a change moved the first
   picture, measured side by side.

Usage: /usr/bin/python3 bench/export_open.py FXTRACE FXVIEW WORKDIR [--runs N]
                                             [--versus OTHER_FXVIEW]

WORKDIR receives torchvision vit_b_16 and resnet18 (random weights after torch.manual_seed(0),
eval mode) exported on a 1x3x224x224 input and traced on the same input, and TinyNet (fc1,
relu, fc2) exported on a 3x4 input, made once. Each command
runs once to warm the page cache, then N times; medians are reported as Markdown tables.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from timing import median_seconds

PYTHON = "/usr/bin/python3"  # Debian's, the one with torch and torchvision
MODELS = ["resnet18", "vit_b_16"]
PY_GRAPH = "import sys, torch; print(torch.export.load(sys.argv[1]).graph)"


def make_tinynet(workdir):
    """The tests' TinyNet (fc1, relu, fc2), exported on a 3x4 input."""
    path = os.path.join(workdir, "tinynet.pt2")
    if os.path.exists(path):
        return path
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                    "fixtures"))
    from generate_fixtures import TinyNet
    torch.manual_seed(0)
    torch.export.save(torch.export.export(TinyNet().eval(), (torch.randn(3, 4),)), path)
    return path


def make_programs(workdir):
    missing = [m for m in MODELS
               if not all(os.path.exists(os.path.join(workdir, f"{m}{ext}"))
                          for ext in (".pt2", "_traced224.pt"))]
    if not missing:
        return
    import torch
    import torchvision
    os.makedirs(workdir, exist_ok=True)
    for name in missing:
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, 224, 224)
        torch.export.save(torch.export.export(model, (x,)), os.path.join(workdir, name + ".pt2"))
        with torch.no_grad():
            torch.jit.trace(model, x).save(os.path.join(workdir, name + "_traced224.pt"))


def app_ms(fxviews, path, runs):
    """Per app of `fxviews`, medians of (open, first step) in ms as it reports them, the apps
    launched in turn, run by run."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    commands = [[fxview, path, "--report-first-step-time"] for fxview in fxviews]
    for command in commands:  # warm the page cache
        subprocess.run(command, env=env, capture_output=True, check=True)
    opens, steps = [[] for _ in fxviews], [[] for _ in fxviews]
    for _ in range(runs):
        for i, command in enumerate(commands):
            out = subprocess.run(command, env=env, capture_output=True, text=True,
                                 check=True).stdout
            opens[i].append(float(re.search(r"open time: (\d+) ms", out).group(1)))
            steps[i].append(float(re.search(r"first step: (\d+) ms", out).group(1)))
    return [(statistics.median(o), statistics.median(s)) for o, s in zip(opens, steps)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fxtrace")
    parser.add_argument("fxview")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--versus", help="another build's fxview, launched in turn with this one")
    args = parser.parse_args()
    make_programs(args.workdir)
    print(f"Median of {args.runs} runs.\n")
    print("| program | size | fxtrace graph | python3: torch.export.load + print | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name in MODELS:
        path = os.path.join(args.workdir, name + ".pt2")
        ours = median_seconds([args.fxtrace, "graph", path], args.runs)
        python = median_seconds([PYTHON, "-c", PY_GRAPH, path], args.runs)
        size = os.path.getsize(path) / 1e6
        print(f"| {name}.pt2 | {size:.0f} MB | {ours:.2f} s | {python:.2f} s | "
              f"{ours / python:.2f}× |", flush=True)
    torch_s = median_seconds([PYTHON, "-c", "import torch"], args.runs)
    print(f"\n`python3 -c \"import torch\"`: {torch_s:.2f} s (median of {args.runs}, this run)\n")
    versus = (" | other build: graph painted | this ÷ other" if args.versus else "")
    print("| model | archive | launch to graph painted | ÷ import torch | "
          f"launch to first step done{versus} |")
    print("|---|---|---:|---:|---:" + ("|---:|---:" if args.versus else "") + "|")
    rows = [("tinynet", "torch.export (.pt2)", make_tinynet(args.workdir))]
    for name in MODELS:
        rows += [(name, "torch.export (.pt2)", os.path.join(args.workdir, name + ".pt2")),
                 (name, "TorchScript, traced", os.path.join(args.workdir, name + "_traced224.pt"))]
    apps = [args.fxview] + ([args.versus] if args.versus else [])
    for name, label, path in rows:
        medians = app_ms(apps, path, args.runs)
        opened, stepped = medians[0]
        other = (f" | {medians[1][0] / 1000:.2f} s | {opened / medians[1][0]:.2f}×"
                 if args.versus else "")
        print(f"| {name} | {label} | {opened / 1000:.2f} s | {opened / 1000 / torch_s:.2f}× | "
              f"{stepped / 1000:.2f} s{other} |", flush=True)


if __name__ == "__main__":
    main()
