"""The engine protocol's Python side: the same frames and messages as core/protocol/Wire.h and
EngineProtocol.h, field for field (docs/protocol.md is the one specification; tests/tst_wire.py
round-trips every message through the C++ implementation both ways).

Each struct lists its fields once, in wire order, as (name, type); one encoder and one decoder
walk those lists, as the C++ side's `walk` functions do. Types: "bool" and "enum" (one byte),
"int" (i64), "float" (f64), "str" (u32 length + UTF-8), "bytes" (u32 length + the bytes, as a
C++ std::string holds them), ("vec", T), ("map", T) (by string key),
("opt", T) (present flag + T), or a struct class.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

WIRE_VERSION = 14
MAGIC = b"FXVE"
# Numbers travel little-endian whatever the two machines are (core/protocol/Wire.h).
HEADER = struct.Struct("<4sHHI")  # magic, version, kind, payload length
MAX_PAYLOAD = 1 << 30
# Written before the first frame by an engine reached through a login shell (over SSH), whose
# banner the window skips up to it (core/protocol/Wire.h's kFramesFollow).
FRAMES_FOLLOW = b"\0FXVIEW-FRAMES\0"
# Nesting deeper than this is a broken or hostile peer: the C++ reader (Wire.h's
# kMaxWireDepth) counts the same way, the message itself at depth 1.
MAX_DEPTH = 256


class WireError(ValueError):
    """A frame or payload that does not decode (cut short, absurd length, another version)."""


# Message kinds (EngineMessage).
(OPEN, SET_INPUTS, COMMAND, SET_BREAKPOINT, EXECUTED_PATH, INTERRUPT, VALUE_REQUEST, SAVE_VALUE,
 SET_WATCH, COMPARE, DETAIL_REQUEST, PROFILE) = range(1, 13)
(HELLO, PROGRESS, RUNNING, OPENED, OPEN_FAILED, INPUTS_APPLIED, INPUTS_REJECTED, STATE, PATH,
 FAILED, DONE, VALUES, VALUE_SAVED, COMPARISON, COMPILE_SESSION, DETAIL,
 IMPORTS_OFFERED, PROFILED) = range(100, 118)
MAX_PROFILE_RUNS = 10000  # kMaxProfileRuns

# RunCommand
STEP, STEP_INTO, STEP_OUT, RUN_TO, RUN_TO_END, RESET = range(6)
# Op, in torch.fx's spelling
OPS = ["placeholder", "get_attr", "call_module", "call_function", "call_method", "output"]
# Argument.Kind
A_NONE, A_BOOL, A_INT, A_FLOAT, A_STRING, A_NODE, A_LIST, A_TUPLE, A_REPR, A_DICT = range(10)
# NodeState
PENDING, DONE_STATE, FAILED_STATE, NOT_EXECUTED = range(4)
# BreakCondition.Kind
ALWAYS, NON_FINITE, ABS_ABOVE = range(3)
# ValueFileFormat
TORCH_SAVE, NPY = range(2)
# OutputCheck.Verdict
NOT_CHECKED, EQUAL, DIFFERS, NONDETERMINISTIC, FORWARD_FAILED, NO_REFERENCE = range(6)


def _struct(cls):
    """A dataclass whose FIELDS (name, type, default) become its fields, in wire order."""
    cls.__annotations__ = {name: object for name, _, _ in cls.FIELDS}
    for name, _, default in cls.FIELDS:
        setattr(cls, name, field(default_factory=default) if callable(default) else default)
    return dataclass(cls)


@_struct
class Argument:
    FIELDS = [("kind", "enum", A_NONE), ("boolean", "bool", False), ("integer", "int", 0),
              ("real", "float", 0.0), ("text", "str", ""), ("items", ("vec", "Argument"), list)]


@_struct
class KeywordArgument:
    FIELDS = [("name", "str", ""), ("value", Argument, Argument)]


@_struct
class HeldTensor:
    FIELDS = [("name", "str", ""), ("shape", ("vec", "int"), list), ("dtype", "str", "")]


@_struct
class OutputRole:
    FIELDS = [("kind", "str", ""), ("target", "str", "")]


@_struct
class Block:
    FIELDS = [("label", "str", ""), ("params", ("vec", "str"), list),
              ("nodes", ("vec", "Node"), list), ("results", ("vec", Argument), list),
              ("subgraph", "bool", False)]


@_struct
class Node:
    FIELDS = [("op", "enum", 3), ("name", "str", ""), ("target", "str", ""), ("schema", "str", ""),
              ("moduleType", "str", ""), ("typeName", "str", ""),
              ("args", ("vec", Argument), list),
              ("kwargs", ("vec", KeywordArgument), list), ("users", ("vec", "str"), list),
              ("scope", "str", ""), ("scopeType", "str", ""), ("hidden", "bool", False),
              ("blocks", ("vec", Block), list), ("tensors", ("vec", HeldTensor), list),
              ("placeholderKind", "enum", 0), ("sourceTrace", "str", ""),
              ("outputRoles", ("vec", OutputRole), list), ("collapsedNodes", "int", 0),
              ("symbolicShape", ("vec", "str"), list)]


@_struct
class Graph:
    FIELDS = [("modelClass", "str", ""), ("nodes", ("vec", Node), list)]


@_struct
class ValueSummary:
    FIELDS = [("type", "str", ""), ("shape", ("vec", "int"), list),
              ("stride", ("vec", "int"), list), ("dtype", "str", ""), ("device", "str", ""),
              ("numel", "int", 0), ("bytes", "int", 0), ("hasStats", "bool", False),
              ("min", "float", 0.0), ("max", "float", 0.0), ("mean", "float", 0.0),
              ("std", "float", 0.0), ("nanCount", "int", 0), ("infCount", "int", 0),
              ("histogram", ("vec", "int"), list), ("histogramSample", "int", 0),
              ("hasDetail", "bool", False),
              ("qscheme", "str", ""), ("qaxis", "int", -1), ("scaleMin", "float", 0.0),
              ("scaleMax", "float", 0.0), ("zeroPointMin", "int", 0), ("zeroPointMax", "int", 0),
              ("intMin", "int", 0), ("intMax", "int", 0),
              ("items", ("vec", "ValueSummary"), list), ("value", "str", "")]


@_struct
class NodeRecord:
    FIELDS = [("state", "enum", PENDING), ("value", ValueSummary, ValueSummary),
              ("timeUs", "float", 0.0), ("runs", "int", 0), ("blockRuns", ("vec", "int"), list),
              ("error", "str", ""), ("warning", "str", ""), ("newBytes", "int", 0),
              ("aliasKind", "str", ""), ("liveBytes", "int", 0), ("flops", "int", 0)]


@_struct
class InputSpec:
    FIELDS = [("shape", ("vec", "int"), list), ("dtype", "str", "float32"), ("file", "str", ""),
              ("example", "bool", False)]


@_struct
class OutputCheck:
    FIELDS = [("verdict", "enum", NOT_CHECKED), ("message", "str", "")]


@_struct
class EngineHello:
    FIELDS = [("pid", "int", 0), ("confined", "bool", False), ("confinement", "str", ""),
              ("tempDir", "str", ""), ("memoryLimit", "int", 0), ("live", "bool", False),
              ("runtime", "str", "")]


@_struct
class OpenRequest:
    FIELDS = [("source", "str", ""), ("inputs", ("vec", InputSpec), list), ("seed", "int", 0),
              ("origin", "str", ""), ("opLibraries", ("vec", "str"), list),
              ("imports", ("vec", "str"), list), ("device", "str", "")]


@_struct
class ProgressNote:
    FIELDS = [("stage", "str", ""), ("percent", "int", 0)]


@_struct
class OpenedModel:
    FIELDS = [("className", "str", ""), ("graph", Graph, Graph), ("graphText", "str", ""),
              ("inputs", ("vec", InputSpec), list), ("seed", "int", 0), ("inputNote", "str", ""),
              ("inputError", "str", ""), ("note", "str", ""), ("schemas", "str", ""),
              ("program", "bytes", b"")]


@_struct
class InputsRequest:
    FIELDS = [("inputs", ("vec", InputSpec), list), ("seed", "int", 0)]


@_struct
class CommandRequest:
    FIELDS = [("command", "enum", STEP), ("node", "str", "")]


@_struct
class BreakCondition:
    FIELDS = [("kind", "enum", ALWAYS), ("threshold", "float", 0.0)]


@_struct
class BreakpointRequest:
    FIELDS = [("node", "str", ""), ("on", "bool", False),
              ("condition", BreakCondition, BreakCondition)]


@_struct
class WatchRequest:
    FIELDS = [("breakOnNonFinite", "bool", False)]


@_struct
class SavedValue:
    FIELDS = [("data", "bytes", b""), ("more", "bool", False), ("error", "str", "")]


SAVED_VALUE_PIECE = 16 << 20  # kSavedValuePiece: a saved value's file goes in pieces this big


@_struct
class ValueSliceRequest:
    FIELDS = [("frame", "str", ""), ("node", "str", ""), ("weight", "str", ""),
              ("item", ("vec", "int"), list), ("index", ("vec", "int"), list),
              ("planeAxis", "int", -1), ("rowAxis", "int", -1), ("colAxis", "int", -1),
              ("planeStart", "int", 0), ("planeCount", "int", 1), ("rowStart", "int", 0),
              ("rowCount", "int", 1), ("colStart", "int", 0), ("colCount", "int", 1)]


@_struct
class ValueSlice:
    FIELDS = [("error", "str", ""), ("note", "str", ""),
              ("summary", ValueSummary, ValueSummary),
              ("request", ValueSliceRequest, ValueSliceRequest),
              ("reals", ("vec", "float"), list), ("imags", ("vec", "float"), list),
              ("ints", ("vec", "int"), list)]


@_struct
class SaveValueRequest:
    FIELDS = [("value", ValueSliceRequest, ValueSliceRequest), ("format", "enum", TORCH_SAVE)]


@_struct
class CompareRequest:
    FIELDS = [("modelB", "str", ""), ("dtype", "str", ""), ("device", "str", ""),
              ("inputsB", ("vec", InputSpec), list), ("hasSeedB", "bool", False),
              ("seedB", "int", 0), ("local", "bool", False)]


@_struct
class ComparisonAnswer:
    FIELDS = [("error", "str", ""), ("json", "str", "")]


@_struct
class ImportOffer:
    FIELDS = [("modules", ("vec", "str"), list)]


@_struct
class ProfileRequest:
    FIELDS = [("runs", "int", 10), ("operators", "bool", False)]


@_struct
class OperatorTime:
    FIELDS = [("name", "str", ""), ("selfUs", "float", 0.0), ("deviceUs", "float", 0.0),
              ("calls", "int", 0)]


@_struct
class ProfileAnswer:
    FIELDS = [("error", "str", ""), ("runs", "int", 0), ("times", ("map", ("vec", "float")), dict),
              ("operators", ("map", ("vec", OperatorTime)), dict), ("trace", "str", ""),
              ("operatorsNote", "str", "")]


@_struct
class LiveValue:
    FIELDS = [("node", "str", ""), ("bytes", "int", 0)]


@_struct
class PeakLive:
    FIELDS = [("node", "str", ""), ("bytes", "int", 0), ("values", ("vec", LiveValue), list)]


@_struct
class FrameState:
    FIELDS = [("node", "str", ""), ("moduleType", "str", ""), ("graph", Graph, Graph),
              ("graphText", "str", ""), ("records", ("map", NodeRecord), dict),
              ("last", "str", ""), ("next", "str", "")]


@_struct
class RunState:
    FIELDS = [("records", ("map", NodeRecord), dict), ("recordsAreChanges", "bool", False),
              ("order", ("vec", "str"), list),
              ("last", "str", ""), ("next", "str", ""), ("finished", "bool", False),
              ("failed", "bool", False), ("failure", "str", ""), ("stopNote", "str", ""),
              ("outputCheck", OutputCheck, OutputCheck), ("depth", "int", 0),
              ("inputs", ("vec", InputSpec), list), ("seed", "int", 0),
              ("inputValues", ("vec", ValueSummary), list),
              ("steppedInto", ("opt", FrameState), lambda: None),
              ("peak", PeakLive, PeakLive)]


@_struct
class PathState:
    FIELDS = [("graph", Graph, Graph), ("records", ("map", NodeRecord), dict)]


_BY_NAME = {c.__name__: c for c in (Argument, Node, ValueSummary)}
# Each message kind's payload; a sentence (str) for the rest, none for Done and the requests
# without one.
PAYLOADS = {
    OPEN: OpenRequest, SET_INPUTS: InputsRequest, COMMAND: CommandRequest,
    SET_BREAKPOINT: BreakpointRequest, EXECUTED_PATH: None, INTERRUPT: None,
    HELLO: EngineHello, PROGRESS: ProgressNote, RUNNING: "str", OPENED: OpenedModel,
    OPEN_FAILED: "str", INPUTS_APPLIED: InputsRequest, INPUTS_REJECTED: "str", STATE: RunState,
    PATH: PathState, FAILED: "str", DONE: None, VALUE_REQUEST: ValueSliceRequest,
    SAVE_VALUE: SaveValueRequest, SET_WATCH: WatchRequest, VALUES: ValueSlice,
    VALUE_SAVED: SavedValue, COMPARE: CompareRequest, COMPARISON: ComparisonAnswer,
    COMPILE_SESSION: "str", DETAIL_REQUEST: ValueSliceRequest, DETAIL: ValueSlice,
    IMPORTS_OFFERED: ImportOffer, PROFILE: ProfileRequest, PROFILED: ProfileAnswer,
}

_U8, _U32, _I64, _F64 = struct.Struct("<B"), struct.Struct("<I"), struct.Struct("<q"), \
    struct.Struct("<d")
_INT_RANGE = (-(1 << 63), (1 << 63) - 1)


def _write(out: bytearray, kind, value, depth=1) -> None:
    if depth > MAX_DEPTH:
        raise WireError("a value nested deeper than the protocol allows")
    if isinstance(kind, str) and kind in _BY_NAME:
        kind = _BY_NAME[kind]
    if kind in ("bool", "enum"):
        out += _U8.pack(int(value))
    elif kind == "int":
        # The C++ side holds uint64 seeds in the same eight bytes.
        out += _I64.pack(value - (1 << 64) if value > _INT_RANGE[1] else value)
    elif kind == "float":
        out += _F64.pack(value)
    elif kind == "str":
        data = value.encode("utf-8", "surrogateescape")
        out += _U32.pack(len(data)) + data
    elif kind == "bytes":
        out += _U32.pack(len(value)) + value
    elif isinstance(kind, tuple):
        shape, item = kind
        if shape == "vec":
            out += _U32.pack(len(value))
            if item in ("float", "int") and value:  # a slice of a tensor: one pack, not millions
                out += struct.pack(f"<{len(value)}{'d' if item == 'float' else 'q'}", *value)
                return
            for v in value:
                _write(out, item, v, depth + 1)
        elif shape == "map":
            out += _U32.pack(len(value))
            for key, v in value.items():
                _write(out, "str", key)
                _write(out, item, v, depth + 1)
        else:  # opt
            out += _U8.pack(value is not None)
            if value is not None:
                _write(out, item, value, depth + 1)
    else:
        for name, ftype, _ in kind.FIELDS:
            _write(out, ftype, getattr(value, name), depth + 1)


class _Reader:
    def __init__(self, payload: bytes):
        self.data, self.at = memoryview(payload), 0

    def take(self, n: int) -> memoryview:
        if len(self.data) - self.at < n:
            raise WireError("the message is cut short")
        piece = self.data[self.at:self.at + n]
        self.at += n
        return piece

    def count(self, min_size: int) -> int:
        (n,) = _U32.unpack(self.take(4))
        if len(self.data) - self.at < n * min_size:
            raise WireError("a length runs past the end of the message")
        return n

    def read(self, kind, depth=1):
        if depth > MAX_DEPTH:
            raise WireError("a value nested deeper than the protocol allows")
        if isinstance(kind, str) and kind in _BY_NAME:
            kind = _BY_NAME[kind]
        if kind == "bool":
            return self.take(1)[0] != 0
        if kind == "enum":
            return self.take(1)[0]
        if kind == "int":
            return _I64.unpack(self.take(8))[0]
        if kind == "float":
            return _F64.unpack(self.take(8))[0]
        if kind == "str":
            return bytes(self.take(self.count(1))).decode("utf-8", "surrogateescape")
        if kind == "bytes":
            return bytes(self.take(self.count(1)))
        if isinstance(kind, tuple):
            shape, item = kind
            if shape == "vec":
                if item in ("float", "int"):
                    n = self.count(8)
                    return list(struct.unpack(f"<{n}{'d' if item == 'float' else 'q'}",
                                              self.take(8 * n)))
                return [self.read(item, depth + 1) for _ in range(self.count(1))]
            if shape == "map":
                n = self.count(5)
                return {self.read("str"): self.read(item, depth + 1) for _ in range(n)}
            return self.read(item, depth + 1) if self.take(1)[0] else None
        obj = kind.__new__(kind)
        for name, ftype, _ in kind.FIELDS:
            setattr(obj, name, self.read(ftype, depth + 1))
        return obj


def encode(value, kind=None) -> bytes:
    """The payload of one message: a struct, or a sentence (a str)."""
    out = bytearray()
    _write(out, kind or ("str" if isinstance(value, str) else type(value)), value)
    return bytes(out)


def decode(payload: bytes, kind):
    """The message of type `kind` (a struct class or "str"), read whole."""
    reader = _Reader(payload)
    value = reader.read(kind)
    if reader.at != len(payload):
        raise WireError("a message has bytes past its end")
    return value


def frame(kind: int, payload: bytes = b"") -> bytes:
    return HEADER.pack(MAGIC, WIRE_VERSION, kind, len(payload)) + payload


def read_frame(stream) -> tuple[int, bytes] | None:
    """One frame from a binary file object (a socket's makefile("rb")); None at its end."""
    header = stream.read(HEADER.size)
    if not header:
        return None
    if len(header) < HEADER.size:
        raise WireError("the window's message is cut short")
    magic, version, kind, length = HEADER.unpack(header)
    if magic != MAGIC:
        raise WireError("the peer sent something that is not an fxview engine message")
    if version != WIRE_VERSION:
        raise WireError(f"the peer speaks wire version {version}, this fxview {WIRE_VERSION}")
    if length > MAX_PAYLOAD:
        raise WireError(f"the peer sent a message of {length} bytes")
    payload = stream.read(length)
    if len(payload) < length:
        raise WireError("the window's message is cut short")
    return kind, payload
