#!/usr/bin/env python3
"""What crosses an SSH connection to a model on another machine, and what an F10 costs over it
(issue 50): `fxview --report-run --report-steps N` on one .pt2, with the engine on this machine
(sid's root's `python3 -m fxview.engine`, as a local Python engine) and through ssh to 127.0.0.1
(tests/remote/sshd-in-root: the same root's PyTorch behind Debian's sshd), side by side, ROUNDS
times each. Prints, per model, its file size, the bytes each way for opening it and for a
Continue, and the median F10 of each engine with their ratio.

Usage (as root, after scripts/run-tests made sid's root and build-window):
    bench/remote.py [--rounds 3] [--steps 30] [--import MODULE]... MODEL.pt2...
The models are paths both machines see (build-sid/... is bound into the root at the same path);
docs/measurements.md has the figures and the models' command lines.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT_ENV = dict(os.environ, FXVIEW_DIST="sid",
                FXVIEW_BUILD_DIR=os.path.join(CHECKOUT, "build-sid"))


def report(command, env):
    """fxview's --report-run lines as numbers."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    out = done.stdout
    if done.returncode != 0 or "outputs equal to ep.module()" not in out:
        sys.exit(f"{' '.join(command)} failed:\n{out}\n{done.stderr[-2000:]}")
    wire = {phase: (int(a), int(b)) for phase, a, b in
            re.findall(r"wire: (\w+): (\d+) bytes from the engine, (\d+) to it", out)}
    step = float(re.search(r"steps: \d+, median ([\d.]+) ms", out).group(1))
    run = float(re.search(r"run: (\d+) ms", out).group(1))
    return wire, step, run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--import", dest="imports", action="append", default=[],
                        help="a module both engines import first (a Hugging Face program's "
                             "output class: transformers.modeling_outputs)")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    app = os.path.join(CHECKOUT, "build-window", "app", "fxview")
    folder = tempfile.mkdtemp(prefix="fxview-bench-sshd-", dir="/tmp")
    server = subprocess.Popen([os.path.join(CHECKOUT, "tests", "remote", "sshd-in-root"), folder],
                              env=ROOT_ENV, stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        port = int(server.stdout.readline())
        local_engine = (f"{CHECKOUT}/scripts/in-root env PYTHONPATH={CHECKOUT}/python "
                        "python3 -m fxview.engine")
        remote_env = dict(ROOT_ENV, FXVIEW_SSH=f"ssh -F {folder}/ssh_config",
                          QT_QPA_PLATFORM="offscreen")
        local_env = dict(ROOT_ENV, QT_QPA_PLATFORM="offscreen")
        steps = ["--report-run", "--report-steps", str(args.steps)]
        for module in args.imports:
            steps += ["--import", module]
        print("| model | file | open: from / to the engine | Continue: from / to | "
              "F10 local | F10 over ssh | ratio |")
        print("|---|---|---|---|---|---|---|")
        for model in args.models:
            local, remote = [], []
            for _ in range(args.rounds):  # side by side, alternating
                local.append(report([app, *steps, "--engine", local_engine, model], local_env))
                remote.append(report([app, *steps, f"ssh://127.0.0.1:{port}{model}"],
                                     remote_env))
            wire = remote[-1][0]
            f10_local = statistics.median(r[1] for r in local)
            f10_remote = statistics.median(r[1] for r in remote)
            print(f"| {os.path.basename(model)} | {os.path.getsize(model) / 1e6:.1f} MB "
                  f"| {wire['open'][0] / 1e3:.1f} KB / {wire['open'][1] / 1e3:.1f} KB "
                  f"| {wire['run'][0] / 1e3:.1f} KB / {wire['run'][1] / 1e3:.1f} KB "
                  f"| {f10_local:.2f} ms | {f10_remote:.2f} ms "
                  f"| {f10_remote / f10_local:.2f} |", flush=True)
    finally:
        os.killpg(server.pid, 15)
        server.wait()


if __name__ == "__main__":
    main()
