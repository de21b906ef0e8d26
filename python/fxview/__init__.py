"""See your PyTorch model in the fxview window, live, from your own Python:

    import fxview, torch
    traced = torch.fx.symbolic_trace(net)
    fxview.show(traced, (torch.randn(3, 4),))     # the graph you traced, stepped here
    fxview.export(traced, (x,), "graph.svg", run=True)

show() serves the model from this process (python/fxview/live.py) to the window over the
engine protocol; export() does the same for fxtrace, which draws and writes the file. save()
writes a model as a file the app opens. torch is imported only when a model is shown, exported
or saved, so `python3 -m fxview model.pt2` starts the app without loading it.
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AppNotFoundError", "Backend", "CompileSession", "LiveSession", "Saved", "backend",
           "compare", "compile_run", "compile_session", "compile_view", "export", "find_app",
           "find_fxtrace", "save", "serve", "show"]
_DYNAMO = ("Backend", "CompileSession", "backend", "compile_run", "compile_session")
__version__ = "0.1.0"


def __getattr__(name):
    # torch.compile's side (python/fxview/dynamo.py) imports torch: only when it is asked for.
    if name in _DYNAMO:
        from . import dynamo

        return getattr(dynamo, name)
    raise AttributeError(f"module 'fxview' has no attribute {name!r}")


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


def show(model, args=(), kwargs=None, *, view=None, wait=None, app=None, extra_args=(),
         **popen_kwargs):
    """Open `model` in the fxview window, live: its graph is the one you traced (a
    torch.fx.GraphModule exactly as gm.graph has it; any other module as symbolic_trace records
    it, else torch.export's graph, else TorchScript's, with a sentence saying why), and every
    step runs in this Python process with torch.fx.Interpreter.run_node on the real module.

    view: "fx", "export" or "script" to choose the graph (default: the best there is).
    wait: True blocks until the window closes and returns the app's exit code; False returns a
    LiveSession at once while a background thread serves the window. The default is False in an
    interactive session (Jupyter, IPython, the REPL) and True in a script, which would otherwise
    end, and its model with it, before the window is used.
    app, extra_args and popen_kwargs (stdout=, stderr=, env=...) are as for find_app() and
    subprocess.Popen. view="script" opens a saved TorchScript file instead, run by the app's own
    engine (save()).

    Where there is no display (an SSH session, a notebook kernel on a server), it serves the
    model as serve() does instead, and prints the command that attaches a window over SSH."""
    from . import fxgraph

    if app is None and _no_display():
        from .serve import serve as serve_here

        return serve_here(model, args, kwargs, view=view, wait=wait)
    executable = find_app(app)  # before tracing, so a missing app costs nothing
    if wait is None:
        wait = not _interactive()
    dynamo = sys.modules.get(__name__ + ".dynamo")
    if dynamo is not None and isinstance(model, dynamo.CompileSession):
        from .dynamo_live import PREFIX, CompileEngine

        if not model.graphs:
            raise ValueError("The compile session holds no graph: call the torch.compile'd "
                             "model (compiled with backend=fxview.backend) first.")
        process, sock = _connect(executable, [PREFIX + "0", *extra_args], popen_kwargs)
        return _serve(CompileEngine(model, sock), process, wait)
    chosen = fxgraph.choose_view(model, _as_args(args), kwargs or {}, view)
    if chosen.note:
        warnings.warn(chosen.note, stacklevel=_caller_level())
    if chosen.kind == "script":
        return _show_file(executable, model, args, kwargs, chosen, wait, extra_args, popen_kwargs)
    from .live import LiveEngine, Session

    session = Session(model, _as_args(args), kwargs, chosen, f"python:{type(model).__name__}")
    process, sock = _connect(executable, [session.source, *extra_args], popen_kwargs)
    return _serve(LiveEngine(session, sock), process, wait)


def compile_view(model, *args, backend_inner="eager", loss=None, wait=None, app=None, **kwargs):
    """Compiles `model` with torch.compile(backend=fxview.backend(inner=backend_inner)) into a
    session of its own, calls it once on (*args, **kwargs) (and, to record the backward, runs
    one backward pass as compile_run does) and opens the window on what Dynamo made: the Compile
    panel lists the graphs, breaks and recompiles, the first graph is open, stepped on the inputs
    it was called with. Returns what show() returns; the compiled model's result is the
    session's `result`."""
    from .dynamo import compile_run

    session = compile_run(model, *args, backend_inner=backend_inner, loss=loss, **kwargs)
    return show(session, wait=wait, app=app)


def _serve(engine, process, wait):
    if wait:
        with process:
            engine.serve()
            return process.wait()
    thread = threading.Thread(target=engine.serve, name="fxview live engine", daemon=True)
    thread.start()
    return LiveSession(process, thread, engine)


class LiveSession:
    """A window serving a model from this process (show(wait=False)). The model is not copied:
    a change to its weights shows at the next Reset."""

    def __init__(self, process, thread, engine):
        self.process, self._thread, self._engine = process, thread, engine

    @property
    def alive(self) -> bool:
        """Whether the window is still connected."""
        return self._thread.is_alive()

    def wait(self, timeout=None) -> int:
        """Waits for the window to close; returns the app's exit code."""
        self._thread.join(timeout)
        return self.process.wait(timeout)

    def close(self) -> None:
        """Ends the session: the window keeps its picture and says so."""
        import socket

        try:
            self._engine.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(5)


def compare(model, args=(), *, dtype=None, device=None, other=None, other_args=None,
            local=False):
    """Runs `model` (a GraphModule, or a module torch.fx.symbolic_trace traces) on `args` as run
    A and run B beside it, node by node, in this process: a copy moved to `device` and/or cast to
    `dtype` (floating weights and inputs, as model.to(dtype)), or `other` (a module whose nodes
    pair by name within a scope, then by scope and order), on `other_args` if given. With
    local=True each of B's nodes is fed A's values, so its error is its own. Returns a
    Comparison: print() it for one row per node (max and mean |a-b|, relative L2, cosine, SQNR)
    and the first divergence; .nodes, .first_divergence(), .save("c.json") as fxtrace compare
    --json writes (docs/comparison.md)."""
    from . import comparison

    return comparison.compare(model, args, dtype=dtype, device=device, other=other,
                              other_args=other_args, local=local)


def export(model, args=(), path=None, kwargs=None, *, run=False, view=None, depth=None,
           expand=(), fxtrace=None):
    """Writes what the app's File > Export writes, by `path`'s extension: .svg .png .pdf .dot
    .json, or .txt (the graph as text: print(gm.graph) for a GraphModule), through fxtrace's
    layout and export code. run=True runs the graph first (in this process, as show() does):
    every node carries its record, and the JSON its output_check against model(*args).
    depth=N draws every module scope deeper than N as one box, expand=("layer1.0",...) opens
    those on top (as fxtrace export's --depth and --expand). Raises RuntimeError with fxtrace's
    sentence if it fails.

    export(session, folder) writes a compile session (compile_session(), what fxview.backend
    recorded) to a folder: graph_N.svg and graph_N.txt per graph and index.json
    (docs/compile-session.md); it returns index.json's path."""
    dynamo = sys.modules.get(__name__ + ".dynamo")
    if dynamo is not None and isinstance(model, dynamo.CompileSession):
        from .dynamo_export import export_session

        return export_session(model, path if path is not None else args, fxtrace=fxtrace)
    if path is None:
        raise TypeError("export() needs a path to write: export(model, args, 'graph.svg')")
    from . import fxgraph

    executable = find_fxtrace(fxtrace)
    chosen = fxgraph.choose_view(model, _as_args(args), kwargs or {}, view)
    if chosen.note:
        warnings.warn(chosen.note, stacklevel=_caller_level())
    out = os.path.abspath(os.fspath(path))
    options = ["-o", out] + (["--run"] if run else [])
    if depth is not None:
        options += ["--depth", str(int(depth))]
    for scope in expand:
        options += ["--expand", scope]
    if chosen.kind == "script":
        with tempfile.TemporaryDirectory(prefix="fxview-") as folder:
            saved = _save_script(chosen.script, _as_args(args), kwargs, folder)
            result = subprocess.run(
                [*_launcher(executable), "export", saved.path, *options,
                 *(["--input", f"file:{saved.inputs}"] if run else [])],
                capture_output=True, text=True)
    else:
        from .live import LiveEngine, Session

        session = Session(model, _as_args(args), kwargs, chosen,
                          f"python:{type(model).__name__}")
        process, sock = _connect(executable, ["export", *options, session.source],
                                 {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE},
                                 attach_last=True)
        with process:
            LiveEngine(session, sock).serve()
            out_text, err_text = process.communicate()
        result = subprocess.CompletedProcess(process.args, process.returncode,
                                             out_text.decode(), err_text.decode())
    if result.returncode != 0:
        raise RuntimeError(f"fxtrace export failed ({result.returncode}): "
                           f"{(result.stderr or result.stdout).strip()}")


def find_fxtrace(fxtrace=None) -> str:
    """The fxtrace executable: `fxtrace`, else $FXTRACE, else beside the app find_app() finds."""
    for given in (fxtrace, os.environ.get("FXTRACE")):
        if given:
            found = shutil.which(os.fspath(given))
            if found is None:
                raise AppNotFoundError(f"{os.fspath(given)!r} is not an executable fxtrace.")
            return found
    beside = Path(find_app()).with_name("fxtrace")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("fxtrace")
    if found is None:
        raise AppNotFoundError("fxtrace was not found beside fxview nor on PATH; set FXTRACE.")
    return found


def _as_args(args) -> tuple:
    import torch

    # A lone tensor would otherwise be split along its first dimension by tuple().
    return (args,) if isinstance(args, torch.Tensor) else tuple(args)


def serve(model, args=(), kwargs=None, *, view=None, wait=None, on_detach="return"):
    """Serve `model` live to a window on another machine, over SSH: see fxview.serve.serve."""
    from .serve import serve as serve_here

    return serve_here(model, args, kwargs, view=view, wait=wait, on_detach=on_detach)


def _no_display() -> bool:
    """Linux with neither X11 nor Wayland to draw on, and no Qt platform named (offscreen)."""
    return (sys.platform.startswith("linux") and not os.environ.get("DISPLAY") and
            not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("QT_QPA_PLATFORM"))


def _interactive() -> bool:
    """Jupyter, IPython or the Python REPL: the process goes on after show() returns."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    return bool(ipython and getattr(ipython, "get_ipython", lambda: None)() is not None)


def _launcher(executable: str) -> list[str]:
    """How to start a program of this checkout's build: directly, or through scripts/in-root
    on a host older than the Debian 13 the build was made in (a Python with its own PyTorch on
    a Debian 12 host)."""
    checkout = Path(__file__).resolve().parent.parent.parent
    in_root = checkout / "scripts" / "in-root"
    built = Path(executable).resolve()
    if in_root.is_file() and checkout in built.parents and not os.environ.get("FXVIEW_IN_ROOT"):
        try:
            release = Path("/etc/debian_version").read_text().split(".")[0]
            if release.isdigit() and int(release) < 13:
                return [str(in_root), executable]
        except OSError:
            pass
    return [executable]


def _connect(executable, arguments, popen_kwargs, attach_last=False):
    """Starts `executable arguments --attach SOCKET` on one end of a new socket and returns
    (the process, this side's connected socket). The socket is an inherited descriptor, or
    through scripts/in-root (and sudo, which closes inherited descriptors) a Unix socket in a
    private folder that the app connects to."""
    import socket

    launcher = _launcher(executable)
    if len(launcher) == 1:
        ours, theirs = socket.socketpair()
        with theirs:
            attach = ["--attach", str(theirs.fileno())]
            process = subprocess.Popen(
                [*launcher, *(arguments + attach if attach_last else attach + arguments)],
                pass_fds=(theirs.fileno(),), **popen_kwargs)
        return process, ours
    folder = tempfile.mkdtemp(prefix="fxview-live-")
    path = os.path.join(folder, "engine.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
        listener.listen(1)
        listener.settimeout(0.5)
        attach = ["--attach", path]
        process = subprocess.Popen(
            [*launcher, *(arguments + attach if attach_last else attach + arguments)],
            **popen_kwargs)
        while True:
            try:
                ours, _ = listener.accept()
                ours.settimeout(None)
                return process, ours
            except socket.timeout:
                if process.poll() is not None:
                    raise RuntimeError(f"{executable} exited ({process.returncode}) before it "
                                       "connected to this Python") from None
    finally:
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)


def _save_script(script, args, kwargs, folder) -> Saved:
    import torch

    path = os.path.join(folder, "model.pt")
    torch.jit.save(script, path)
    inputs = os.path.join(folder, "inputs.pt")
    torch.save(tuple(args) + tuple(_in_signature_order(script, dict(kwargs or {})).values()),
               inputs)
    return Saved(path, inputs)


def _show_file(executable, model, args, kwargs, chosen, wait, extra_args, popen_kwargs):
    """The TorchScript view: saved to a temporary folder that the app opens and runs in its
    own engine; the folder goes when the app exits."""
    folder = tempfile.mkdtemp(prefix="fxview-")
    handed_over = False  # True once the cleanup helper owns the folder
    try:
        saved = _save_script(chosen.script, _as_args(args), kwargs, folder)
        command = [*_launcher(executable), saved.path, "--input", f"file:{saved.inputs}",
                   *extra_args]
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
