"""The engine protocol's two implementations against each other: the C++ one (core/engine,
driven through tests/wire_peer) and the Python one (python/fxview/wire.py).

1. Python -> C++ -> Python: every message, every field filled with a value of its own, encoded
   by Python, decoded and re-encoded by C++, must come back byte for byte.
2. C++ -> Python: wire_peer's samples of every message, in which each string field holds its
   own field name, decode in Python with each string where its name says, and re-encode to the
   same bytes.
3. Numbers are little-endian on the wire, from both.
Run by CTest as wire_round_trip with WIRE_PEER naming the built wire_peer; exits 1 with one
FAIL line per failed check.
"""

import io
import os
import subprocess
import sys

from fxview import wire

PEER = os.environ["WIRE_PEER"]
failures = []
checks = [0]


def check(condition, message):
    checks[0] += 1
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def filled(kind, name="", depth=0, counter=[0]):
    """A value of `kind` with every field set to something of its own: strings to their field
    name, numbers to a running count, one item in every list and map (two levels deep)."""
    if isinstance(kind, str) and kind in wire._BY_NAME:
        kind = wire._BY_NAME[kind]
    counter[0] += 1
    if kind == "bool":
        return True
    if kind == "enum":
        return 1  # valid for every enum (ValueFileFormat has two values)
    if kind == "int":
        return counter[0] * 1000 + 7
    if kind == "float":
        return counter[0] + 0.25
    if kind == "str":
        return name
    if kind == "bytes":  # any bytes at all, not only UTF-8
        return name.encode() + b"\x00\xff\x80"
    if isinstance(kind, tuple):
        shape, item = kind
        if depth > 2:
            return {} if shape == "map" else [] if shape == "vec" else None
        value = filled(item, name, depth + 1)
        return [value] if shape == "vec" else {name: value} if shape == "map" else value
    obj = kind()
    for field_name, field_type, _ in kind.FIELDS:
        setattr(obj, field_name, filled(field_type, field_name, depth + 1))
    return obj


def python_to_cpp():
    sent = []
    for kind, payload_type in wire.PAYLOADS.items():
        if payload_type is None:
            payload = b""
        elif payload_type == "str":
            payload = wire.encode(f"sentence {kind}")
        else:
            payload = wire.encode(filled(payload_type))
        sent.append((kind, payload))
    stream = b"".join(wire.frame(k, p) for k, p in sent)
    result = subprocess.run([PEER, "echo"], input=stream, capture_output=True, timeout=60)
    check(result.returncode == 0, f"wire_peer echo exited {result.returncode}: "
                                  f"{result.stderr.decode()}")
    back = io.BytesIO(result.stdout)
    for kind, payload in sent:
        got = wire.read_frame(back)
        check(got is not None and got[0] == kind, f"kind {kind}: no answer ({got})")
        if got:
            check(got[1] == payload, f"kind {kind}: C++ re-encoded it differently "
                                     f"({len(payload)} bytes sent, {len(got[1])} back)")


def strings_named(value, name, path, problems):
    """Every string in `value` equals the name of the field holding it (map keys too)."""
    if isinstance(value, str):
        if value != name:
            problems.append(f"{path} = {value!r}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            strings_named(item, name, f"{path}[{i}]", problems)
    elif isinstance(value, dict):
        for key, item in value.items():
            strings_named(key, name, f"{path} key", problems)
            strings_named(item, name, f"{path}[{key}]", problems)
    elif hasattr(value, "FIELDS"):
        for field_name, _, _ in value.FIELDS:
            strings_named(getattr(value, field_name), field_name, f"{path}.{field_name}",
                          problems)


def cpp_to_python():
    result = subprocess.run([PEER, "samples"], capture_output=True, timeout=60)
    check(result.returncode == 0, f"wire_peer samples exited {result.returncode}")
    stream = io.BytesIO(result.stdout)
    seen = set()
    while (got := wire.read_frame(stream)) is not None:
        kind, payload = got
        seen.add(kind)
        payload_type = wire.PAYLOADS[kind]
        if payload_type is None:
            check(payload == b"", f"kind {kind}: a payload where none belongs")
            continue
        value = wire.decode(payload, payload_type)
        if payload_type != "str":
            problems = []
            strings_named(value, "", payload_type.__name__, problems)
            check(not problems, f"{payload_type.__name__}: strings out of place: {problems[:4]}")
        check(wire.encode(value, payload_type) == payload,
              f"kind {kind}: Python re-encoded C++'s message differently")
    check(seen == set(wire.PAYLOADS), f"samples lack kinds {set(wire.PAYLOADS) - seen}")


def broken_input():
    """A lying length, a cut message and another version are refused with WireError."""
    for payload, why in ((b"\xff\xff\xff\x7f", "a length past the end"),
                         (wire.encode(filled(wire.RunState))[:-3], "a cut message")):
        try:
            wire.decode(payload, wire.RunState)
            check(False, f"{why} decoded")
        except wire.WireError:
            pass
    # Nesting past the bound: both readers refuse it (a deep one once overflowed the stack).
    deep = wire.Argument()
    for _ in range(150):  # two levels each: a list and its item
        deep = wire.Argument(wire.A_LIST, items=[deep])
    bound, wire.MAX_DEPTH = wire.MAX_DEPTH, 10_000
    try:
        payload = wire.encode(wire.PathState(graph=wire.Graph(nodes=[wire.Node(args=[deep])])))
    finally:
        wire.MAX_DEPTH = bound
    try:
        wire.decode(payload, wire.PathState)
        check(False, "Python decoded a value nested 300 deep")
    except wire.WireError as error:
        check("nested deeper" in str(error), f"the depth refusal says {error}")
    result = subprocess.run([PEER, "echo"], input=wire.frame(wire.PATH, payload),
                            capture_output=True, timeout=60)
    check(result.returncode == 1 and b"nested deeper" in result.stderr,
          f"C++ on a value nested 300 deep: exit {result.returncode}, {result.stderr[-200:]}")
    old = wire.HEADER.pack(wire.MAGIC, wire.WIRE_VERSION - 1, wire.DONE, 0)
    try:
        wire.read_frame(io.BytesIO(old))
        check(False, "a frame of another version was read")
    except wire.WireError as error:
        check("version" in str(error), f"the version refusal says {error}")


def byte_order():
    """Numbers are little-endian on the wire whatever this machine is (issue 50: a window and an
    engine on two machines): a frame of known numbers, from Python and from C++, byte for byte."""
    expected = (b"FXVE" + wire.WIRE_VERSION.to_bytes(2, "little") +
                wire.RUNNING.to_bytes(2, "little") + (11).to_bytes(4, "little") +
                (7).to_bytes(4, "little") + b"Running")
    check(wire.frame(wire.RUNNING, wire.encode("Running")) == expected,
          "Python's frame is not little-endian")
    result = subprocess.run([PEER, "samples"], capture_output=True, timeout=60)
    stream, found = io.BytesIO(result.stdout), False
    while (got := wire.read_frame(stream)) is not None:
        found = found or got == (wire.RUNNING, expected[12:])
    check(expected in result.stdout and found, "C++'s Running frame is not little-endian")
    record = wire.NodeRecord(timeUs=1.5, runs=3)
    encoded = wire.encode(record)
    check((3).to_bytes(8, "little", signed=True) in encoded and
          b"\x00\x00\x00\x00\x00\x00\xf8\x3f" in encoded,
          "an int or a float is not little-endian")


python_to_cpp()
cpp_to_python()
broken_input()
byte_order()
print(f"{checks[0] - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
