#!/usr/bin/python3
"""Launch -> graph painted, as the app reports it (`fxview MODEL --report-open-time`), for the
models Netron was timed on. Offscreen, median of N runs. Prints a Markdown table.

Usage: /usr/bin/python3 bench/open_time.py FXVIEW WORKDIR [--runs N]
"""
import argparse
import os
import re
import statistics
import subprocess

from archives import make_archives

# Netron in headless Chromium on this kind of machine, navigation to drawn graph (issue 5).
NETRON_S = {"resnet18_scripted": 4.6, "resnet50_scripted": 6.7, "densenet121_scripted": 7.4}
MODELS = ["resnet18_scripted", "resnet18_traced", "resnet50_scripted", "resnet50_traced",
          "densenet121_scripted"]


def open_ms(fxview, path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([fxview, path, "--report-open-time"], env=env, capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"open time: (\d+) ms", out).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fxview")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    make_archives(args.workdir, MODELS)
    print(f"Median of {args.runs} launches, offscreen.\n")
    print("| model | fxview: launch to graph painted | Netron | fxview / Netron |")
    print("|---|---:|---:|---:|")
    for name in MODELS:
        path = os.path.join(args.workdir, name + ".pt")
        open_ms(args.fxview, path)  # warm the page cache
        ms = statistics.median(open_ms(args.fxview, path) for _ in range(args.runs))
        netron = NETRON_S.get(name)
        versus = f"{netron:.1f} s | {ms / 1000 / netron:.2f}×" if netron else "— | —"
        print(f"| {name} | {ms / 1000:.2f} s | {versus} |", flush=True)


if __name__ == "__main__":
    main()
