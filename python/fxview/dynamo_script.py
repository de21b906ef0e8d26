"""python3 -m fxview compile [--out DIR] [--inner BACKEND] SCRIPT [ARGS...]: runs SCRIPT as
`python3 SCRIPT ARGS...` would, with every torch.compile in it (and nn.Module.compile, which
calls it) compiling through fxview.backend, then writes the whole run's compile session to DIR
(fxview_compile/ by default; docs/compile-session.md) and prints what it holds. Each compiled
region keeps the backend the script asked for (Inductor by default, as torch.compile's), unless
--inner names another for all of them."""

from __future__ import annotations

import argparse
import os
import runpy
import sys

USAGE = "python3 -m fxview compile [--out DIR] [--inner BACKEND] SCRIPT [ARGS...]"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m fxview compile", usage=USAGE,
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="fxview_compile",
                        help="the folder the session is written to (default: fxview_compile)")
    parser.add_argument("--inner", help="the backend that compiles every graph after fxview "
                                        "has recorded it (default: each torch.compile's own)")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    if not os.path.isfile(options.script):
        print(f"fxview compile: {options.script!r} is not a file; give the Python script to run.",
              file=sys.stderr)
        return 2

    import torch

    from . import dynamo
    from .dynamo_export import export_session

    session = dynamo.compile_session()
    real_compile = torch.compile
    forced = options.inner

    def compile_through_fxview(model=None, *, backend=None, mode=None, options=None, **kwargs):
        # torch.compile's decorator form calls torch.compile again with the backend made here.
        if isinstance(backend, dynamo.Backend):
            return real_compile(model, backend=backend, mode=mode, options=options, **kwargs)
        if forced:  # --inner: every graph compiled by it; the script's mode and options were
            ours = dynamo.Backend(forced, session)  # for the backend it named
        else:
            ours = dynamo.Backend(backend if backend is not None else "inductor", session)
            if mode is not None or options is not None:
                ours = _with_options(ours, mode, options)  # for the inner backend
        if model is None:
            return real_compile(backend=ours, **kwargs)
        return real_compile(model, backend=ours, **kwargs)

    torch.compile = compile_through_fxview
    sys.argv = [options.script, *options.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(options.script)))
    code = 0
    try:
        runpy.run_path(options.script, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    finally:
        torch.compile = real_compile
    print(session)
    if session.graphs:
        index = export_session(session, options.out)
        print(f"fxview compile: the session is in {os.path.dirname(index) or '.'} "
              f"({os.path.basename(index)}, and a text and a picture per graph)")
    else:
        print("fxview compile: the script compiled no graph (no torch.compile call ran)")
    return code


def _with_options(backend, mode, options):
    """A Backend whose inner gets torch.compile's mode or options."""
    from . import dynamo

    inner = backend.inner

    class WithOptions(dynamo.Backend):
        def _inner(self, given):
            merged = dict(given)
            if mode is not None:
                merged["mode"] = mode
            if options is not None:
                merged["options"] = options
            return super()._inner(merged)

    return WithOptions(inner, backend.session)
