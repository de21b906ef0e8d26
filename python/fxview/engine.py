"""python3 -m fxview.engine [--import MODULE]... [--device DEVICE]: the Python engine as a process
of its own, the person's own PyTorch running files for the fxview window. It speaks the engine
protocol (docs/protocol.md) on its stdin/stdout, its log on stderr, and opens a .pt2 by path with
torch.export.load in whatever Python runs it (program.py). It ends when its stdin closes.

Only frames reach the real stdout: it is set aside first, and whatever anything else prints (a
module imported, a warning) goes to stderr, so the window never reads a banner as a frame."""

from __future__ import annotations

import argparse
import os
import sys
import threading


class StdioChannel:
    """The window's end, as LiveEngine uses a socket: frames read from `read_fd`, written to
    `write_fd`."""

    def __init__(self, read_fd: int, write_fd: int):
        self.read_fd, self.write_fd = read_fd, write_fd
        self._closed = False

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.write_fd, view):]

    def makefile(self, mode: str):
        return os.fdopen(self.read_fd, "rb", closefd=False)

    def fileno(self) -> int:
        return -1 if self._closed else self.read_fd

    def close(self) -> None:
        self._closed = True


def _runtime() -> str:
    import platform

    try:
        import torch

        version = torch.__version__
    except Exception:  # noqa: BLE001 - no PyTorch: said when a file is opened
        version = "none"
    return f"Python {platform.python_version()}, PyTorch {version}, pid {os.getpid()}"


def serve(channel: StdioChannel, imports: list[str], device: str,
          send_program: bool = False) -> None:
    python = f"This Python ({sys.executable}, Python {sys.version.split()[0]})"
    if send_program:  # the window is on another machine: say which one this is
        import platform

        python = f"The Python on {platform.node()} ({sys.executable}, " \
                 f"Python {sys.version.split()[0]})"
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - this Python cannot be an engine: say why
        return _serve_refusing(channel, f"{python} has no PyTorch ({type(error).__name__}: "
                                        f"{error}): start fxview with --python PATH naming a "
                                        "Python that has it.")
    # Before anything of fxview's that needs a newer PyTorch is imported.
    if not (hasattr(torch, "export") and hasattr(torch.export, "load")):
        return _serve_refusing(channel, f"{python} has PyTorch {torch.__version__}, which has no "
                                        "torch.export (PyTorch 2.1 added it): start fxview with "
                                        "--python PATH naming a Python whose PyTorch is 2.1 or "
                                        "newer.")
    from .engine_files import FileEngine

    FileEngine(channel, imports, device, _runtime(), send_program).serve()


def _serve_refusing(channel: StdioChannel, sentence: str) -> None:
    """Hello, then every request answered with the sentence why this Python runs nothing."""
    from . import wire

    channel.sendall(wire.frame(wire.HELLO, wire.encode(wire.EngineHello(
        pid=os.getpid(), runtime=_runtime(),
        confinement=f"it would run in your Python (pid {os.getpid()}), as your own code does"))))
    stream = channel.makefile("rb")
    try:
        while (got := wire.read_frame(stream)) is not None:
            if got[0] == wire.INTERRUPT:
                continue
            kind = wire.OPEN_FAILED if got[0] == wire.OPEN else wire.FAILED
            channel.sendall(wire.frame(kind, wire.encode(sentence)))
            channel.sendall(wire.frame(wire.DONE))
    except (wire.WireError, OSError):
        pass


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m fxview.engine", description=__doc__)
    parser.add_argument("--import", dest="imports", action="append", default=[],
                        metavar="MODULE", help="import MODULE before any file is loaded")
    parser.add_argument("--device", default="", help="put weights and inputs on this device")
    parser.add_argument("--send-program", action="store_true",
                        help="send each program's JSON with the model: the window is on another "
                             "machine and cannot read the files opened here")
    parser.add_argument("--frames-marker", action="store_true",
                        help="write wire.FRAMES_FOLLOW before the first frame, so that a window "
                             "reading through SSH skips what a login shell printed first")
    args = parser.parse_args(argv)
    # The frames' stdout, set aside; fd 1 (print, sys.stdout, C libraries) becomes stderr.
    frames = os.dup(1)
    os.dup2(2, 1)
    channel = StdioChannel(0, frames)
    if args.frames_marker:
        from . import wire

        channel.sendall(wire.FRAMES_FOLLOW)
    serve(channel, args.imports, args.device, args.send_program)
    # A run left going in another thread (a model that never returns) must not keep us alive
    # once the window has gone.
    if threading.active_count() > 1:
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
