"""What the Python tests share: check() notes a failure and goes on, run_groups() runs each
group of checks, says which failed and gives the exit status; fxtrace() runs the built fxtrace
(the FXTRACE environment variable names it)."""

import os
import subprocess
import traceback

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def run_groups(groups):
    """groups: (name, function, args). A group passes when it adds no failure and raises
    nothing; returns the process's exit status."""
    passed = failed = 0
    for name, run, args in groups:
        before = len(failures)
        try:
            run(*args)
        except Exception:
            check(False, f"{name}: {traceback.format_exc()}")
        passed, failed = (passed + 1, failed) if len(failures) == before else (passed, failed + 1)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def fxtrace(*args):
    """fxtrace with `args`, its output captured as text."""
    return subprocess.run([os.environ["FXTRACE"], *map(str, args)], capture_output=True,
                          text=True, timeout=600)
