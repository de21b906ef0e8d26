"""Open a PyTorch model in the fxview app from Python, in one line:

    import fxview, torch
    fxview.show(torch.nn.Linear(4, 2), (torch.randn(3, 4),))

show() exports the model with torch.export (torch.jit.trace if export fails), writes it and its
sample input to a temporary folder and starts the app on them. torch is imported only when a
model is saved, so `python3 -m fxview model.pt2` starts the app without loading it.
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AppNotFoundError", "Saved", "find_app", "save", "show"]
__version__ = "0.1.0"


class AppNotFoundError(FileNotFoundError):
    """The fxview app could not be found (see find_app)."""


@dataclass(frozen=True)
class Saved:
    """What save() wrote."""

    path: str  # model.pt2 (torch.export.save) or model.pt (torch.jit.save of a trace)
    inputs: str  # inputs.pt: torch.save of the tuple of every input, in the program's order
    fallback: str | None = None  # why torch.export failed (its first line), when it did


def find_app(app: str | os.PathLike | None = None) -> str:
    """The fxview executable: `app`, else $FXVIEW_APP, else `fxview` on PATH, else this
    checkout's build/app/fxview. Raises AppNotFoundError with what to do when there is none."""
    # An app that was asked for by name must exist: falling back would open a different build.
    for given, source in ((app, "app="), (os.environ.get("FXVIEW_APP"), "FXVIEW_APP")):
        if given:
            found = shutil.which(os.fspath(given))
            if found is None:
                raise AppNotFoundError(
                    f"{source} names {os.fspath(given)!r}, which is not an executable file; "
                    "point it at a built fxview (build/app/fxview after scripts/build)."
                )
            return found
    found = shutil.which("fxview")
    if found is not None:
        return found
    # Run from the repository (PYTHONPATH=python or an editable install): python/fxview/ is
    # two folders below the checkout, whose build lands in build/app/.
    built = Path(__file__).resolve().parent.parent.parent / "build" / "app" / "fxview"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    raise AppNotFoundError(
        "The fxview app was not found: build it in the fxview checkout with scripts/run-app or "
        "scripts/build (it becomes build/app/fxview), or set FXVIEW_APP to its path."
    )


def save(model, args, folder, kwargs=None) -> Saved:
    """Write `model` as a program fxview opens, and its sample input, into `folder`.

    torch.export.export(model, args, kwargs) is saved as folder/model.pt2; if export raises,
    torch.jit.trace's graph is saved as folder/model.pt instead, with a warning naming the
    export error. The inputs go to folder/inputs.pt as one tuple, which fxview's
    `--input file:inputs.pt` spreads over the program's inputs."""
    import torch

    # A lone tensor would otherwise be split along its first dimension by tuple().
    args = (args,) if isinstance(args, torch.Tensor) else tuple(args)
    kwargs = _in_signature_order(model, dict(kwargs or {}))
    # Both exporters number keyword inputs after the positional ones, in the order given here.
    inputs = args + tuple(kwargs.values())
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        program = torch.export.export(model, args, kwargs=kwargs)
    except Exception as export_error:
        # Still inside the except block: if tracing fails too, its traceback shows both errors.
        if kwargs:
            bound = inspect.signature(_forward(model)).bind(*args, **kwargs)
            traced = torch.jit.trace(model, example_kwarg_inputs=dict(bound.arguments))
        else:
            traced = torch.jit.trace(model, args)
        path = folder / "model.pt"
        torch.jit.save(traced, str(path))
        lines = str(export_error).strip().splitlines()
        reason = f"{type(export_error).__name__}: {lines[0] if lines else 'no message'}"
        warnings.warn(
            f"torch.export failed ({reason}); showing torch.jit.trace's graph instead",
            stacklevel=_caller_level(),
        )
    else:
        path = folder / "model.pt2"
        torch.export.save(program, str(path))
        reason = None
    torch.save(inputs, str(folder / "inputs.pt"))
    return Saved(str(path), str(folder / "inputs.pt"), reason)


def show(model, args, kwargs=None, *, wait=False, app=None, extra_args=(), **popen_kwargs):
    """Open `model` in the fxview app, run on `args` (and `kwargs`).

    Saves it with save() into a new temporary folder and starts
    `fxview FOLDER/model.pt2 --input file:FOLDER/inputs.pt *extra_args`; `app` is as for
    find_app(), and popen_kwargs (stdout=, stderr=, env=...) go to subprocess.Popen.

    Like netron.start it returns at once, with the app's subprocess.Popen; the folder is removed
    when the app exits, also if this Python exits first. wait=True waits for the app, removes
    the folder and returns the app's exit code."""
    executable = find_app(app)  # before saving, so a missing app costs no export
    folder = tempfile.mkdtemp(prefix="fxview-")
    handed_over = False  # True once the cleanup helper owns the folder
    try:
        saved = save(model, args, folder, kwargs)
        command = [executable, saved.path, "--input", f"file:{saved.inputs}", *extra_args]
        if wait:
            # With wait=True give stdout= a file, not PIPE: nothing reads a pipe while waiting.
            with subprocess.Popen(command, **popen_kwargs) as app_process:
                return app_process.wait()
        app_process = _start_with_cleanup(command, folder, popen_kwargs)
        handed_over = True
        return app_process
    finally:
        if not handed_over:
            shutil.rmtree(folder, ignore_errors=True)


# Removes the folder once the app has exited: it blocks reading a pipe whose only writer is the
# app, and the kernel closes that end when the app (and any child it left) is gone. (An app
# that is a wrapper closing inherited files, as sudo does, would see its folder go at once.)
_CLEANUP = (
    "import os, shutil, sys; os.read(int(sys.argv[1]), 1); shutil.rmtree(sys.argv[2], True)"
)


def _start_with_cleanup(command, folder, popen_kwargs) -> subprocess.Popen:
    # A helper process rather than a thread or atexit: `python3 -c "...fxview.show(...)"` exits
    # long before the window is closed, and the app may read its files until then (the input
    # bar keeps file:inputs.pt), so neither could remove them at the right time.
    read_end, write_end = os.pipe()
    try:
        app_process = subprocess.Popen(command, pass_fds=(write_end,), **popen_kwargs)
        os.close(write_end)
        write_end = -1
        subprocess.Popen(
            [sys.executable, "-c", _CLEANUP, str(read_end), folder],
            pass_fds=(read_end,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl+C meant for this Python does not stop it
        )
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    return app_process


def _forward(model):
    return model.forward if hasattr(model, "forward") else model


def _in_signature_order(model, kwargs: dict) -> dict:
    # torch.export numbers keyword inputs in the dict's order, torch.jit.trace in forward's
    # parameter order; putting the dict in forward's order makes one inputs.pt right for both.
    try:
        names = list(inspect.signature(_forward(model)).parameters)
    except (TypeError, ValueError):  # no signature to read (a builtin): keep the caller's order
        return kwargs

    def position(item):
        return names.index(item[0]) if item[0] in names else len(names)

    return dict(sorted(kwargs.items(), key=position))


def _caller_level() -> int:
    # The warning names the caller's line: save()'s caller, or show()'s when show called save.
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    return level
