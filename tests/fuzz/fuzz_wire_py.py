"""fuzz_wire_py: the live engine's side of the protocol (python/fxview/wire.py's frame and message
readers, and LiveEngine handling what they decode) against hostile bytes from the window side
(issue 38). The Python engine runs in the person's own process, so a bad frame must end the
session with a sentence: never a hang, never a traceback or an exception in their program.

    python3 fuzz_wire_py.py [--runs N | --seconds T] [--seed S] [--wire-peer PATH]
                            [--save-failures DIR] [REGRESSIONS_DIR]

Each input is a stream of bytes the window side writes to a LiveEngine serving a traced TinyNet
over a socket pair, then closes. The seeds are every request the window sends, well formed
(made with wire.py's encoder) and wire_peer's samples of every message (C++'s encoder); the
inputs are the regressions folder's files, the seeds, then N mutations of them (bit flips, bytes
set to edge values, cuts, insertions, splices, frame lengths and counts changed), drawn from a
fixed seed so a failure reproduces. An input fails when the engine has not ended 10 s after the
window closed, when an exception escapes its threads or a traceback reaches stderr, when it
answers with a frame that does not read, or when it ends on an unreadable frame without telling
the window (a Failed frame) and this process (one line) why.

Save values (SaveValue) are recorded, not written: the harness fuzzes the reader, not the
person's own request to write a file.
"""

import argparse
import io
import random
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch
import torch.fx

import fxview.live as live
from fxview import fxgraph, wire

HANG_SECONDS = 10


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def requests() -> list[bytes]:
    """One well-formed frame of every request the window sends, as the window would send it."""
    spec = wire.InputSpec(shape=[3, 4], dtype="float32")
    made = [
        (wire.OPEN, wire.OpenRequest("python:fuzz", [spec], 1, "as given")),
        (wire.SET_INPUTS, wire.InputsRequest([spec], 2)),
        (wire.COMMAND, wire.CommandRequest(wire.STEP)),
        (wire.COMMAND, wire.CommandRequest(wire.RUN_TO, "relu")),
        (wire.COMMAND, wire.CommandRequest(wire.RUN_TO_END)),
        (wire.SET_BREAKPOINT, wire.BreakpointRequest("fc2", True, wire.BreakCondition())),
        (wire.SET_WATCH, wire.WatchRequest(True)),
        (wire.VALUE_REQUEST, wire.ValueSliceRequest(node="fc1", rowAxis=0, colAxis=1)),
        (wire.DETAIL_REQUEST, wire.ValueSliceRequest(node="fc1")),
        (wire.SAVE_VALUE, wire.SaveValueRequest(wire.ValueSliceRequest(node="fc1"))),
        (wire.COMPARE, wire.CompareRequest(dtype="float64")),
    ]
    frames = [wire.frame(kind, wire.encode(message)) for kind, message in made]
    frames += [wire.frame(wire.EXECUTED_PATH), wire.frame(wire.INTERRUPT)]
    return frames + [b"".join(frames)]


def peer_samples(wire_peer: str) -> list[bytes]:
    """wire_peer's samples of every message kind (both directions), one frame each."""
    data = subprocess.run([wire_peer, "samples"], capture_output=True, check=True).stdout
    frames, at = [], 0
    while at + wire.HEADER.size <= len(data):
        length = wire.HEADER.unpack_from(data, at)[3]
        frames.append(data[at:at + wire.HEADER.size + length])
        at += wire.HEADER.size + length
    return frames


EDGES = [0, 1, 0x7F, 0x80, 0xFF]


def split_frames(data: bytes) -> list[tuple[int, bytes]]:
    frames, at = [], 0
    while at + wire.HEADER.size <= len(data):
        kind, length = wire.HEADER.unpack_from(data, at)[2:]
        frames.append((kind, data[at + wire.HEADER.size:at + wire.HEADER.size + length]))
        at += wire.HEADER.size + length
    return frames


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """Half the time one frame's payload is mutated and framed again with its true length, so
    the message readers (not only the frame's header) meet the damage."""
    frames = split_frames(data)
    if frames and rng.randrange(2):
        k = rng.randrange(len(frames))
        kind, payload = frames[k]
        frames[k] = (kind if rng.randrange(8) else rng.randrange(130),
                     mutate_bytes(rng, payload, [p for _, p in split_frames(b"".join(pool))]))
        return b"".join(wire.frame(kind, payload) for kind, payload in frames)
    return mutate_bytes(rng, data, pool)


def mutate_bytes(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        at = rng.randrange(len(out)) if out else 0
        if choice == 0 and out:
            out[at] ^= 1 << rng.randrange(8)
        elif choice == 1 and out:
            out[at] = rng.choice(EDGES)
        elif choice == 2:
            del out[at:at + rng.randint(1, 16)]
        elif choice == 3:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif choice == 4:
            other = rng.choice(pool)
            start = rng.randrange(len(other)) if other else 0
            out[at:at] = other[start:start + rng.randint(1, 64)]
        elif choice == 5 and len(out) >= at + 4:
            # A length or count (u32): the frame's, a string's or a list's.
            value = rng.choice([0, 1, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, rng.randrange(1 << 32)])
            out[at:at + 4] = struct.pack("=I", value)
        elif choice == 6 and len(out) >= 12:
            out[8:12] = struct.pack("=I", rng.randrange(len(out) * 2 + 1))  # the frame's length
        elif choice == 7:
            out += rng.choice(pool)
    return bytes(out)


class Run:
    """One input against a fresh LiveEngine; what went wrong, or ""."""

    def __init__(self, gm, x):
        self.gm, self.x = gm, x
        self.ended_unreadable = 0  # inputs whose session ended on a frame that did not read

    def __call__(self, data: bytes) -> str:
        session = live.Session(self.gm, (self.x,), {}, fxgraph.choose_view(self.gm, (self.x,),
                                                                          {}, None),
                               "python:fuzz")
        session.save_value = lambda request: iter([wire.SavedValue(error="not written while fuzzing")])
        ours, theirs = socket.socketpair()
        engine = live.LiveEngine(session, theirs)
        errors: list[str] = []
        hook = threading.excepthook
        threading.excepthook = lambda args: errors.append(
            f"{args.exc_type.__name__}: {args.exc_value}")
        stderr, sys.stderr = sys.stderr, io.StringIO()
        try:
            serving = threading.Thread(target=engine.serve, daemon=True)
            serving.start()
            answers = bytearray()
            reading = threading.Thread(target=self._read_all, args=(ours, answers), daemon=True)
            reading.start()
            try:
                ours.sendall(data)
                ours.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the engine ended the session before reading everything: allowed
            serving.join(HANG_SECONDS)
            reading.join(HANG_SECONDS)
            if serving.is_alive() or reading.is_alive():
                return f"the engine did not end within {HANG_SECONDS} s of the window closing"
            said = sys.stderr.getvalue()
        finally:
            sys.stderr = stderr
            threading.excepthook = hook
            ours.close()
        if errors:
            return "an exception escaped the engine: " + errors[0]
        if "Traceback" in said:
            return "a traceback reached stderr:\n" + said
        frames = self._frames(bytes(answers))
        if isinstance(frames, str):
            return frames
        if engine.unreadable:
            self.ended_unreadable += 1
            told = [p for kind, p in frames if kind == wire.FAILED]
            if not told or "could not read" not in wire.decode(told[-1], "str"):
                return f"the session ended on '{engine.unreadable}' without telling the window"
            if said.count("\n") != 1 or not said.startswith("fxview: "):
                return f"the session ended on '{engine.unreadable}' without one line here: {said!r}"
        return ""

    @staticmethod
    def _read_all(sock, into: bytearray) -> None:
        try:
            while chunk := sock.recv(1 << 16):
                into += chunk
        except ConnectionResetError:
            pass  # the engine ended the session with frames of ours unread: allowed

    @staticmethod
    def _frames(data: bytes):
        stream, frames = io.BytesIO(data), []
        try:
            while (got := wire.read_frame(stream)) is not None:
                frames.append(got)
        except wire.WireError as error:
            return f"the engine answered with a frame that does not read: {error}"
        return frames


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("regressions", nargs="?")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seconds", type=float, help="mutate until this time is up instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wire-peer")
    parser.add_argument("--save-failures", help="a folder to write failing inputs to")
    options = parser.parse_args()
    torch.manual_seed(0)
    gm, x = torch.fx.symbolic_trace(TinyNet()), torch.randn(3, 4)
    seeds = requests() + (peer_samples(options.wire_peer) if options.wire_peer else [])
    regressions = sorted(Path(options.regressions).iterdir()) if options.regressions else []
    inputs = [(f"regression {p.name}", p.read_bytes()) for p in regressions]
    inputs += [(f"seed {i}", s) for i, s in enumerate(seeds)]
    rng = random.Random(options.seed)

    def mutations():
        i = 0
        while (time.monotonic() - start < options.seconds if options.seconds
               else i < options.runs):
            yield f"mutation {i} (--seed {options.seed})", mutate(rng, rng.choice(seeds), seeds)
            i += 1

    run, failures, count, start = Run(gm, x), 0, 0, time.monotonic()
    for name, data in [*inputs, *mutations()]:
        count += 1
        why = run(data)
        if why:
            failures += 1
            print(f"FAIL {name}: {why}")
            if options.save_failures:
                folder = Path(options.save_failures)
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{name.split()[0]}-{failures}.bin").write_bytes(data)
    print(f"{count} inputs ({len(regressions)} regressions, {len(seeds)} seeds, "
          f"{count - len(inputs)} mutations) in {time.monotonic() - start:.1f} s; "
          f"{run.ended_unreadable} ended the session on a frame that did not read")
    print(f"{count - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
