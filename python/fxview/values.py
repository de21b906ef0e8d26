"""What the Values view reads from a live run, computed as the C++ engine computes it
(core/run/ValueSlicing.cpp, InterpreterWatch.cpp, BreakCondition.cpp): a slice of a node's
value (planes x rows x columns at an index), the value saved as torch.save or NumPy writes it,
and whether a node's output stops the run (a breakpoint's condition, Break on NaN/Inf)."""

from __future__ import annotations

import math

import torch

from . import wire
from .fxgraph import dtype_name
from .summary import physical, summarize

# At most this many elements travel in one slice (ValueSlice.h's kMaxSliceElements).
MAX_SLICE_ELEMENTS = 1 << 22
# Values no later node needs are kept for the Values view until they hold this many bytes: none,
# as torch.fx.Interpreter.run keeps none. Keeping them cost more than the run (resnet18's Continue
# took 3.7x the Interpreter's time: every value in fresh memory); a value looked at after it was
# freed is made again from the run's inputs (Stepper.made_again), and the last few are kept.
KEEP_BYTES = 0
REMADE_KEPT = 4

_NPY = {torch.float32: "<f4", torch.float64: "<f8", torch.float16: "<f2", torch.bool: "|b1",
        torch.uint8: "|u1", torch.int8: "|i1", torch.int16: "<i2", torch.int32: "<i4",
        torch.int64: "<i8", torch.complex64: "<c8", torch.complex128: "<c16"}


def tensor_bytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (tuple, list)):
        return sum(tensor_bytes(v) for v in value)
    return 0


def version_of(value) -> int:
    if isinstance(value, torch.Tensor) and not value.is_inference():
        return value._version
    return -1


def _item(value, item: list):
    path = ""
    for i in item:
        items = value if isinstance(value, (tuple, list)) else ()
        if not 0 <= i < len(items):
            raise LookupError(f"it has no item {path}[{i}]")
        path += f"[{i}]"
        value = items[i]
    return value, path


def _tensor(value, item: list) -> torch.Tensor:
    value, path = _item(physical(value), item)
    if not isinstance(value, torch.Tensor):
        raise LookupError(f"{'its item ' + path if path else 'it'} is a "
                          f"{summarize(value).type}, not a tensor")
    return value


def _clamp_axis(r: wire.ValueSliceRequest, which: str, shape: list) -> None:
    axis = getattr(r, which + "Axis")
    if not 0 <= axis < len(shape):
        setattr(r, which + "Axis", -1)
        setattr(r, which + "Start", 0)
        setattr(r, which + "Count", 1)
        return
    start = min(max(getattr(r, which + "Start"), 0), max(0, shape[axis] - 1))
    setattr(r, which + "Start", start)
    setattr(r, which + "Count", min(max(getattr(r, which + "Count"), 0), shape[axis] - start))


def slice_value(value, r: wire.ValueSliceRequest) -> wire.ValueSlice:
    out = wire.ValueSlice(request=r)
    try:
        t = _tensor(value, r.item)
    except LookupError as error:
        out.error = f"Node '{r.node}' holds no tensor to show: {error}."
        return out
    t = t.detach().cpu()
    out.summary = summarize(t)
    shape = list(t.shape)
    r.index = (list(r.index) + [0] * len(shape))[:len(shape)]
    for which in ("plane", "row", "col"):
        _clamp_axis(r, which, shape)
    axes = [a for a in (r.planeAxis, r.rowAxis, r.colAxis) if a >= 0]
    if len(axes) != len(set(axes)):
        out.error = (f"The slice of '{r.node}' names one dimension twice: pick a different "
                     "dimension for rows and columns.")
        return out
    per_plane = max(1, r.rowCount * r.colCount)
    r.planeCount = min(r.planeCount, max(1, MAX_SLICE_ELEMENTS // per_plane))
    if r.rowCount * r.colCount > MAX_SLICE_ELEMENTS:
        r.rowCount = MAX_SLICE_ELEMENTS // max(1, r.colCount)
    s = t
    for d, size in enumerate(shape):
        if d == r.planeAxis:
            s = s.narrow(d, r.planeStart, r.planeCount)
        elif d == r.rowAxis:
            s = s.narrow(d, r.rowStart, r.rowCount)
        elif d == r.colAxis:
            s = s.narrow(d, r.colStart, r.colCount)
        else:
            r.index[d] = min(max(r.index[d], 0), max(0, size - 1))
            s = s if size == 0 else s.narrow(d, r.index[d], 1)
    order = axes + [d for d in range(len(shape)) if d not in axes]
    if shape:
        s = s.permute(order)
    s = s.reshape(-1)
    if s.numel() != r.planeCount * r.rowCount * r.colCount:  # a zero-size dimension held
        s, r.planeCount, r.rowCount, r.colCount = s[:0], 0, 0, 0
    out.request = r
    if s.is_quantized:
        out.ints = s.int_repr().long().tolist()
        out.reals = s.dequantize().double().tolist()
    elif s.is_complex():
        z = s.to(torch.complex128)
        out.reals, out.imags = z.real.tolist(), z.imag.tolist()
    elif s.is_floating_point():
        out.reals = s.double().tolist()
    else:
        out.ints = s.long().tolist()
    return out


def save_value(value, item: list, npy: bool, path: str, what: str) -> str:
    """`value` (or its `item`) written to `path` as torch.save or numpy.save write it; "" or
    a sentence."""
    try:
        if not npy:
            torch.save(_item(value, item)[0], path)
            return ""
        t = _tensor(value, item).detach().cpu().contiguous()
        descr = _NPY.get(t.dtype)
        if descr is None:
            return (f"NumPy has no {dtype_name(t.dtype)}, so {what} cannot be saved as .npy: "
                    "save it as .pt (torch.save) instead.")
        shape = "(" + "".join(f"{d}, " for d in t.shape)
        shape = shape[:-2] + ")" if t.dim() > 1 else shape[:-1] + ")" if t.dim() == 1 else "()"
        header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        data = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                    header.encode("latin1") + data)
        return ""
    except (LookupError, OSError, RuntimeError) as error:
        return f"Cannot save {what} to '{path}': {error}."


# --- where the numbers go wrong (BreakCondition.cpp) -----------------------------------------

def non_finite(v: wire.ValueSummary) -> tuple[int, int]:
    nan, inf = v.nanCount, v.infCount
    for item in v.items:
        a, b = non_finite(item)
        nan, inf = nan + a, inf + b
    return nan, inf


def non_finite_text(counts: tuple[int, int]) -> str:
    parts = [f"{n} {kind}" for n, kind in zip(counts, ("NaN", "Inf")) if n > 0]
    return " and ".join(parts) + (" value" if sum(counts) == 1 else " values")


def largest_magnitude(v: wire.ValueSummary) -> float:
    if sum(non_finite(v)) > 0:
        return math.inf
    largest = max(abs(v.min), abs(v.max)) if v.hasStats and v.numel > 0 else 0.0
    return max([largest] + [largest_magnitude(i) for i in v.items])


def condition_met(condition: wire.BreakCondition, v: wire.ValueSummary) -> bool:
    if condition.kind == wire.NON_FINITE:
        return sum(non_finite(v)) > 0
    if condition.kind == wire.ABS_ABOVE:
        return largest_magnitude(v) > condition.threshold
    return False
