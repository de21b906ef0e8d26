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


def values_in_fx(model, *args):
    """Each node's value when torch.fx's Interpreter ran it, by name (cloned: later in-place ops
    must not change it). `model`: a GraphModule as it is, any other module symbolic_trace'd."""
    import torch
    import torch.fx

    gm = model if isinstance(model, torch.fx.GraphModule) else torch.fx.symbolic_trace(model)
    values = {}

    class Recording(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            values[n.name] = result.clone() if isinstance(result, torch.Tensor) else result
            return result

    with torch.no_grad():
        Recording(gm).run(*args)
    return values
