#!/usr/bin/python3
"""A ~1B-parameter llama-style decoder in bfloat16, saved by the PyTorch of the root this runs
in (sid's 2.14): launch to the collapsed picture painted in the app against
`torch.export.load` of the same file in Python, and what each process holds at its peak.

Usage (in the sid root): python3 bench/big_program.py FXVIEW WORKDIR [--runs N]

WORKDIR receives decoder_1b.pt2 (made once: 16 layers, width 2048, SwiGLU 5632, 16 heads,
vocabulary 32000, random weights, exported on 1x16 token ids). Each side runs once to warm the
page cache, then N times in turn (app, Python, app, ...); medians are printed, with the peak
resident memory of the window process, of the engine process, and of Python. The window and
the engine are sampled from /proc every 20 ms while the app runs (VmHWM only grows, so the last
sample is the peak).
"""
import argparse
import os
import statistics
import subprocess
import time

import torch

LAYERS, WIDTH, HIDDEN, HEADS, VOCAB, TOKENS = 16, 2048, 5632, 16, 32000, 16
PY_LOAD = "import sys, torch; torch.export.load(sys.argv[1])"


class RMSNorm(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(width, dtype=torch.bfloat16))

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + 1e-6)).to(x.dtype) * self.weight


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        linear = lambda i, o: torch.nn.Linear(i, o, bias=False, dtype=torch.bfloat16)  # noqa: E731
        self.attn_norm, self.mlp_norm = RMSNorm(WIDTH), RMSNorm(WIDTH)
        self.q, self.k, self.v, self.o = (linear(WIDTH, WIDTH) for _ in range(4))
        self.gate, self.up, self.down = linear(WIDTH, HIDDEN), linear(WIDTH, HIDDEN), linear(
            HIDDEN, WIDTH)

    def forward(self, x):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q, k, v = (p(h).view(b, t, HEADS, WIDTH // HEADS).transpose(1, 2)
                   for p in (self.q, self.k, self.v))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, WIDTH))
        h = self.mlp_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, WIDTH, dtype=torch.bfloat16)
        self.layers = torch.nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = RMSNorm(WIDTH)
        self.head = torch.nn.Linear(WIDTH, VOCAB, bias=False, dtype=torch.bfloat16)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def make_program(path):
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    with torch.no_grad():
        model = Decoder().eval()
        ids = torch.randint(0, VOCAB, (1, TOKENS))
        ep = torch.export.export(model, (ids,))
    torch.export.save(ep, path)


def peak_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def descendants(pid):
    """Every process below pid (the engine is the window's grandchild: its confinement starts
    it), from each process's parent in /proc/N/stat."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [pid]
    while frontier:
        kids = [p for p, pp in parent.items() if pp in frontier]
        found += kids
        frontier = kids
    return found


def run_app(fxview, path, first_step=False):
    """Wall seconds from launch to exit (--report-open-time quits once painted; with
    first_step, once the first step, which reads the weights, has run), the reported time, and
    the peak KB of the window and of its engine."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    flag = "--report-first-step-time" if first_step else "--report-open-time"
    start = time.monotonic()
    app = subprocess.Popen([fxview, path, flag], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    window = engine = 0
    while app.poll() is None:
        window = max(window, peak_kb(app.pid) or 0)
        for child in descendants(app.pid):
            engine = max(engine, peak_kb(child) or 0)
        time.sleep(0.02)
    wall = time.monotonic() - start
    out, err = app.communicate()
    key = "first step: " if first_step else "open time: "
    if app.returncode != 0 or key not in out:
        raise SystemExit(f"fxview did not open {path}: {out}{err}")
    reported = float(out.split(key)[1].split(" ms")[0]) / 1000
    return wall, reported, window, engine


def run_python(path):
    """Wall seconds of a process loading the file, and its peak KB (measured by a process of
    its own, so that nothing else this benchmark ran counts)."""
    measure = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    start = time.monotonic()
    done = subprocess.run(["python3", "-c", measure, "python3", "-c", PY_LOAD, path],
                          capture_output=True, text=True, check=True)
    return time.monotonic() - start, int(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fxview")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    path = os.path.join(args.workdir, "decoder_1b.pt2")
    make_program(path)
    size = os.path.getsize(path)
    run_app(args.fxview, path)
    run_python(path)
    apps, steps, pythons = [], [], []
    for _ in range(args.runs):
        apps.append(run_app(args.fxview, path))
        steps.append(run_app(args.fxview, path, first_step=True))
        pythons.append(run_python(path))
    med = lambda rows, i: statistics.median(r[i] for r in rows)  # noqa: E731
    mb = lambda kb: f"{kb / 1024:.0f} MB"  # noqa: E731
    print(f"decoder_1b.pt2: {size / 2**30:.2f} GiB, PyTorch {torch.__version__}, "
          f"median of {args.runs}")
    print("| | launch to exit (s) | reported (s) | peak memory |")
    print("|---|---|---|---|")
    print(f"| fxview, to painted (--report-open-time) | {med(apps, 0):.2f} | {med(apps, 1):.2f} | "
          f"window {mb(med(apps, 2))}, engine {mb(med(apps, 3))} |")
    print(f"| fxview, to its first step (--report-first-step-time) | {med(steps, 0):.2f} | "
          f"{med(steps, 1):.2f} | window {mb(med(steps, 2))}, engine {mb(med(steps, 3))} |")
    print(f"| python3 torch.export.load | {med(pythons, 0):.2f} | | {mb(med(pythons, 1))} |")
    print(f"ratio fxview painted / torch.export.load: {med(apps, 1) / med(pythons, 0):.2f}")


if __name__ == "__main__":
    main()
