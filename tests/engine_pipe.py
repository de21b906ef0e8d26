"""python3 -m fxview.engine on pipes, as the window starts it: for the tests that speak the
protocol to the Python engine (tst_python_engine.py, tst_cost.py)."""

import os
import subprocess
import sys
from pathlib import Path

from fxview import wire

PACKAGE = str(Path(__file__).resolve().parents[1] / "python")


class Engine:
    """python3 -m fxview.engine on pipes, as the window starts it."""

    def __init__(self, *args, env=None, start=("-m", "fxview.engine")):
        environment = dict(os.environ, PYTHONPATH=PACKAGE)
        environment.update(env or {})
        self.process = subprocess.Popen([sys.executable, *start, *args],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=environment)
        kind, payload = wire.read_frame(self.process.stdout)
        assert kind == wire.HELLO
        self.hello = wire.decode(payload, wire.EngineHello)

    def send(self, kind, message=None, payload_type=None):
        payload = b"" if message is None else wire.encode(message, payload_type)
        self.process.stdin.write(wire.frame(kind, payload))
        self.process.stdin.flush()

    def answers(self):
        """The messages up to Done, as {kind: [decoded, ...]}."""
        got = {}
        while True:
            frame = wire.read_frame(self.process.stdout)
            if frame is None or frame[0] == wire.DONE:
                return got
            kind, payload = frame
            payload_type = wire.PAYLOADS[kind]
            got.setdefault(kind, []).append(
                wire.decode(payload, payload_type) if payload_type else None)

    def request(self, kind, message=None, payload_type=None):
        self.send(kind, message, payload_type)
        return self.answers()

    def open(self, path, **fields):
        return self.request(wire.OPEN, wire.OpenRequest(source=str(path), **fields))

    def command(self, command, node=""):
        return self.request(wire.COMMAND, wire.CommandRequest(command=command, node=node))

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=60)
