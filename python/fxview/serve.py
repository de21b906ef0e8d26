"""fxview.serve: a live model on a machine without a window (a GPU server, a notebook kernel on
one), stepped from a window anywhere SSH reaches it. No port is opened: the model waits on a Unix
socket in a folder only its owner can enter, and prints the one command that attaches a window:

    fxview ssh://ana@gpu-box --attach /run/user/1000/fxview/serve-4242.sock

That window runs ssh to this machine, whose ssh_bootstrap.py relays the SSH session to the
socket; the model is then served as fxview.show serves it (live.py), in this process."""

from __future__ import annotations

import getpass
import os
import socket
import sys
import tempfile
import threading

_DETACH = ("return", "wait", "exit")


def runtime_folder() -> str:
    """This user's own folder for the socket, mode 0700: $XDG_RUNTIME_DIR/fxview, else a new
    private folder in the temporary one. A folder of that name another user could enter is
    refused."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        folder = os.path.join(base, "fxview")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        if info.st_uid == os.getuid() and not info.st_mode & 0o077 and not os.path.islink(folder):
            return folder
    return tempfile.mkdtemp(prefix="fxview-serve-")  # mkdtemp makes it 0700


def attach_command(path: str) -> str:
    """The command that attaches a window from another machine."""
    return f"fxview ssh://{getpass.getuser()}@{socket.gethostname()} --attach {path}"


class Served:
    """A model waiting for a window on a Unix socket (serve(wait=False)); close() ends it."""

    def __init__(self, make_engine, on_detach: str):
        self.path = os.path.join(runtime_folder(), f"serve-{os.getpid()}-{id(self):x}.sock")
        self.command = attach_command(self.path)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is its owner's alone from the moment it exists
        try:
            self._listener.bind(self.path)
        finally:
            os.umask(old)
        self._listener.listen(1)
        self._make_engine, self._on_detach = make_engine, on_detach
        self._closed = False
        self._thread: threading.Thread | None = None
        self.windows = 0  # windows that attached and detached

    def serve(self) -> None:
        """Serves one window after another until one detaches (on_detach "return" or "exit")
        or close() is called."""
        try:
            while not self._closed:
                try:
                    connection, _ = self._listener.accept()
                except OSError:
                    return  # closed
                print("fxview: a window attached", file=sys.stderr, flush=True)
                self._make_engine(connection).serve()
                self.windows += 1
                print("fxview: the window detached", file=sys.stderr, flush=True)
                if self._on_detach == "exit":
                    os._exit(0)
                if self._on_detach == "return":
                    return
        finally:
            self.close()

    def start(self) -> Served:
        self._thread = threading.Thread(target=self.serve, name="fxview serve", daemon=True)
        self._thread.start()
        return self

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout=None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stops waiting for windows; the socket goes."""
        if self._closed:
            return
        self._closed = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


def serve(model, args=(), kwargs=None, *, view=None, wait=None, on_detach="return") -> Served:
    """Serve `model` (a module, a GraphModule, or fxview.compile_session()) live, as show()
    does, to a window on another machine: nothing is drawn
    here and no display is needed. Prints the command that attaches a window over SSH, then
    (wait=True, the default in a script) waits for it and serves it in this thread, or
    (wait=False, the default in a notebook) serves from a background thread and returns.

    on_detach: what happens when the window detaches: "return" (serve returns and the script
    goes on), "wait" (the next window may attach) or "exit" (this process ends)."""
    from . import _as_args, _interactive, fxgraph
    from .live import LiveEngine, Session

    if on_detach not in _DETACH:
        raise ValueError(f"on_detach is one of {', '.join(_DETACH)}, not {on_detach!r}")
    if wait is None:
        wait = not _interactive()
    dynamo = sys.modules.get("fxview.dynamo")
    if dynamo is not None and isinstance(model, dynamo.CompileSession):
        # What torch.compile made (fxview.backend): the window's Compile dock lists its graphs.
        from .dynamo_live import CompileEngine

        if not model.graphs:
            raise ValueError("The compile session holds no graph: call the torch.compile'd "
                             "model (compiled with backend=fxview.backend) first.")
        served = Served(lambda connection: CompileEngine(model, connection), on_detach)
        what = "the torch.compile session"
    else:
        chosen = fxgraph.choose_view(model, _as_args(args), kwargs or {}, view)
        session = Session(model, _as_args(args), kwargs, chosen,
                          f"python:{type(model).__name__}")
        served = Served(lambda connection: LiveEngine(session, connection), on_detach)
        what = type(model).__name__
    print(f"fxview: serving {what}; to step it, run where your window is:\n"
          f"  {served.command}", flush=True)
    if not wait:
        return served.start()
    served.serve()
    return served
