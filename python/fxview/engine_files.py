"""The Python engine's server (python3 -m fxview.engine): LiveEngine's requests and commands on a
program it opens itself, by path (program.py), instead of a live model handed to it."""

from __future__ import annotations

import os

from . import wire
from .live import LiveEngine
from .program import (ProgramError, ProgramSession, close_vmap_levels, compressed_program,
                      load_program)


class FileEngine(LiveEngine):
    """Serves the files the window opens, one at a time, over `channel` (engine.StdioChannel)."""

    NAME = "Python engine"
    AGAIN = "open the file again"

    def __init__(self, channel, imports: list[str], device: str, runtime: str,
                 send_program: bool = False):
        super().__init__(None, channel)
        self.imports, self.device, self.runtime = list(imports), device, runtime
        # The window is on another machine (over SSH) and cannot read the files opened here:
        # each program's JSON goes with its Opened for the window to draw.
        self.send_program = send_program

    def hello(self) -> wire.EngineHello:
        return wire.EngineHello(
            pid=os.getpid(), runtime=self.runtime,
            confinement=f"it runs in your Python (pid {os.getpid()}), as your own code does; "
                        "only fxview-engine is confined")

    def handle(self, kind: int, payload: bytes) -> None:
        # A run that stopped inside torch.vmap (failed, or reset) leaves no level open behind it.
        if kind in (wire.OPEN, wire.SET_INPUTS) or (
                kind == wire.COMMAND and
                wire.decode(payload, wire.CommandRequest).command == wire.RESET):
            close_vmap_levels()
        if kind == wire.OPEN:
            return self.open(wire.decode(payload, wire.OpenRequest))
        if self.session is None:
            if kind in (wire.SET_WATCH, wire.SET_BREAKPOINT):
                return None  # nothing open yet to watch: the window sends them again with Open
            return self.send(wire.FAILED, wire.encode("No file is open in the Python engine."))
        return super().handle(kind, payload)

    def open(self, request: wire.OpenRequest) -> None:
        name = os.path.basename(request.source)
        try:
            self.send(wire.PROGRESS, wire.encode(wire.ProgressNote(f"Loading {name}", 10)))
            ep = load_program(request.source, self.imports + list(request.imports),
                              list(request.opLibraries))
            self.send(wire.PROGRESS, wire.encode(wire.ProgressNote(f"Reading {name}", 50)))
            session = ProgramSession(ep, request.source, request.device or self.device)
        except ProgramError as error:
            if error.imports:
                self.send(wire.IMPORTS_OFFERED, wire.encode(wire.ImportOffer(error.imports)))
            return self.send(wire.OPEN_FAILED, wire.encode(str(error)))
        except Exception as error:  # noqa: BLE001 - PyTorch's own error, as one sentence
            line = (str(error).strip().splitlines() or ["no message"])[0]
            return self.send(wire.OPEN_FAILED, wire.encode(
                f"The Python engine could not open {name} ({type(error).__name__}: {line})."))
        opened = session.opened()
        if self.send_program:
            opened.program = compressed_program(request.source)
        if request.inputs:
            error = session.set_inputs(list(request.inputs), request.seed)
            if error:
                opened.inputError = error
            else:
                opened.inputs, opened.seed = session.specs, session.seed
                opened.inputNote = f"input as given ({request.origin or 'on the command line'})"
        self.session = session
        self.send(wire.OPENED, wire.encode(opened))
        self.publish()
