"""The first thing a window runs on another machine, over SSH, for a model that lives there
(fxview ssh://host/path/model.pt2). The window (ui/engineclient/RemoteEngine.cpp) passes this file
in the command line itself, so nothing of fxview's need be installed on the host and nothing is
written there:

    python3 -c 'B="<this file, base64>";import base64;exec(base64.b64decode(B))' search|given

It then writes fxview's own Python package to the engine's stdin, ahead of any frame: 8 bytes
(little-endian) giving the length of a zlib stream that inflates to, for every file, its path's
length (4 bytes), its path ("fxview/engine.py"), its size (4 bytes) and its bytes. The package is
imported from memory (this window's own, so both ends speak one wire version) and its engine
serves on stdin/stdout: `python3 -m fxview.engine --send-program --frames-marker`, the program's
JSON sent with each model (the window cannot read the file) and wire.FRAMES_FOLLOW first (the
window skips what a login shell printed before it). It ends when its stdin closes, as the SSH
session does when the window goes.

`search`: the remote `python3` runs this; when it has no torch, the first python3 on the remote
PATH that has it is run in its place (--python PATH names one instead: `given`).

`attach SOCKET` (fxview ssh://host --attach SOCKET): no package is sent; this relays the SSH
session to the Unix socket where fxview.serve waits (serve.py), after wire.FRAMES_FOLLOW.

Python 3.8 or newer; only the standard library until the package is in place."""

import os
import sys

_ORIGIN = "<fxview over ssh>/"  # modules' __file__: the package has no folder on this machine
_FRAMES_FOLLOW = b"\0FXVIEW-FRAMES\0"  # wire.FRAMES_FOLLOW: the package is not here to import
_TORCH_PROBE = "import importlib.util,sys;sys.exit(importlib.util.find_spec('torch') is None)"


def _has_torch(python):
    import subprocess

    try:
        return subprocess.run([python, "-c", _TORCH_PROBE], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _python_with_torch():
    """The first python3 on PATH, in an absolute folder, that finds torch; None for none."""
    seen = {os.path.realpath(sys.executable)}
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        python = os.path.join(folder, "python3")
        if not os.path.isabs(folder) or not os.access(python, os.X_OK):
            continue
        real = os.path.realpath(python)
        if real not in seen and _has_torch(python):
            return python
        seen.add(real)
    return None


def _read_exactly(count):
    """`count` bytes of stdin, read from the descriptor itself: a buffered read would take frames
    meant for the engine, which reads fd 0 afresh."""
    chunks, left = [], count
    while left:
        chunk = os.read(0, min(left, 1 << 20))
        if not chunk:
            raise SystemExit("fxview: the window closed the connection before sending fxview")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _package_files():
    import zlib

    size = int.from_bytes(_read_exactly(8), "little")
    blob = zlib.decompress(_read_exactly(size))
    files, at = {}, 0
    while at < len(blob):
        length = int.from_bytes(blob[at:at + 4], "little")
        path = blob[at + 4:at + 4 + length].decode()
        at += 4 + length
        length = int.from_bytes(blob[at:at + 4], "little")
        files[path] = blob[at + 4:at + 4 + length]
        at += 4 + length
    return files


def _import_from_memory(files):
    import importlib.abc
    import importlib.machinery

    class Package(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """fxview and its modules from `files`, ahead of any fxview installed here."""

        def find_spec(self, name, path=None, target=None):
            if name != "fxview" and not name.startswith("fxview."):
                return None
            base = name.replace(".", "/")
            for file, package in ((base + "/__init__.py", True), (base + ".py", False)):
                if file in files:
                    spec = importlib.machinery.ModuleSpec(name, self, origin=_ORIGIN + file,
                                                          is_package=package)
                    spec.has_location = True  # __file__ is set: stepper.py tells its own frames
                    if package:
                        spec.submodule_search_locations = [_ORIGIN + base]
                    return spec
            return None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            origin = module.__spec__.origin
            exec(compile(files[origin[len(_ORIGIN):]], origin, "exec"), module.__dict__)

    sys.meta_path.insert(0, Package())


def _write_all(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def relay(path):
    """The SSH session's stdin and stdout to and from the socket at `path`, until either ends."""
    import socket
    import threading

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError as error:
        raise SystemExit(f"fxview: nothing serves at {path} on this machine ({error.strerror}): "
                         "the script that called fxview.serve printed the socket to attach to")

    def to_socket():
        try:
            while True:
                chunk = os.read(0, 1 << 16)
                if not chunk:
                    break
                connection.sendall(chunk)
        except OSError:
            pass
        try:
            connection.shutdown(socket.SHUT_WR)  # the window detached
        except OSError:
            pass

    threading.Thread(target=to_socket, daemon=True).start()
    _write_all(_FRAMES_FOLLOW)
    try:
        while True:
            chunk = connection.recv(1 << 16)
            if not chunk:
                break
            _write_all(chunk)
    except OSError:
        pass


def main(mode, source):
    if mode == "attach":
        return relay(sys.argv[2])
    import importlib.util

    if mode == "search" and importlib.util.find_spec("torch") is None:
        python = _python_with_torch()
        if python:
            os.execv(python, [python, "-c", source, "given"])
    _import_from_memory(_package_files())
    from fxview.engine import main as engine

    sys.argv = ["python3 -m fxview.engine"]
    sys.exit(engine(["--send-program", "--frames-marker"]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "given",
         'B="%s";import base64;exec(base64.b64decode(B))' % globals().get("B", ""))
