#!/usr/bin/python3
"""Two fxtrace builds' run of the same .pt2 files, node by node: the sum of the time column
`fxtrace run --in-process` prints (the nodes' own times, without LibTorch's start-up or the
file's reading), the median of 7 runs taken in turns, and the difference per node.

Usage: scripts/in-root python3 bench/node_times.py FXTRACE_NEW FXTRACE_OLD MODEL.pt2...
(both binaries and the files where the root sees them, e.g. copied to /tmp). Prints Markdown rows
for docs/measurements.md: | file | nodes | old | new | ratio | per node |.
"""
import re
import statistics
import subprocess
import sys

UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


def node_times(fxtrace, model):
    """The summed node times of one run in microseconds, and how many nodes ran."""
    out = subprocess.run([fxtrace, "run", model, "--in-process"], capture_output=True,
                         text=True, check=True).stdout
    total, nodes = 0.0, 0
    for line in out.splitlines()[1:]:
        m = re.search(r"(\d+(?:\.\d+)?) (us|ms|s)\s*$", line)
        if m:
            total += float(m.group(1)) * UNITS[m.group(2)]
            nodes += 1
    return total, nodes


def main():
    new, old, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    print("| file | nodes | old | new | ratio | per node |\n|---|---:|---:|---:|---:|---:|")
    for model in models:
        a, b = [], []
        for _ in range(7):
            a.append(node_times(new, model))
            b.append(node_times(old, model))
        ma, mb = statistics.median(t for t, _ in a), statistics.median(t for t, _ in b)
        nodes = a[0][1]
        print(f"| {model.rsplit('/', 1)[-1]} | {nodes} | {mb / 1e3:.2f} ms | {ma / 1e3:.2f} ms "
              f"| {ma / mb:.2f}× | {(ma - mb) / nodes:+.1f} µs |")


if __name__ == "__main__":
    main()
