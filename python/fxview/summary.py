"""What a value looks like to the window (the protocol's ValueSummary), computed as the C++
engine computes it (core/plan/TorchValues.cpp): shape, stride, dtype, device; min, max and mean
over the finite values; NaN and Inf counts; and, with `detail`, the unbiased std over the finite
values and a 24-bin histogram of all values or, for a big tensor, of 64 evenly spaced runs of 64.

The detail costs most of a summary (torch.std_mean alone was ~60% of a live record's time), so a
live run leaves it out of each node's record and makes it when the window asks for the node."""

from __future__ import annotations

import torch

from . import wire
from .fxgraph import dtype_name

HISTOGRAM_BINS = 24
RUNS, RUN_LENGTH = 64, 64


def _float_repr(value: float) -> str:
    return repr(float(value))


def _quantization(t: torch.Tensor, s: wire.ValueSummary, with_stats: bool, detail: bool) -> None:
    """A quantized tensor's scheme, scale and zero point (their ranges, per channel) and the
    range of its int representation; the statistics are of its dequantized values."""
    s.qscheme = str(t.qscheme()).removeprefix("torch.")
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        s.scaleMin = s.scaleMax = float(t.q_scale())
        s.zeroPointMin = s.zeroPointMax = int(t.q_zero_point())
    elif t.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric,
                         torch.per_channel_affine_float_qparams):
        s.qaxis = t.q_per_channel_axis()
        scales, points = t.q_per_channel_scales().double(), t.q_per_channel_zero_points().long()
        if scales.numel():
            s.scaleMin, s.scaleMax = float(scales.min()), float(scales.max())
            s.zeroPointMin, s.zeroPointMax = int(points.min()), int(points.max())
    if with_stats and t.numel():
        ints = t.int_repr()
        s.intMin, s.intMax = int(ints.min()), int(ints.max())
        _stats(t.dequantize(), s, detail)


def _stats(t: torch.Tensor, s: wire.ValueSummary, detail: bool) -> None:
    if t.numel() == 0 or t.is_complex() or t.dtype == torch.bool:
        return
    flat = t.detach().reshape(-1).cpu()
    # float32 is summarised in float32 (torch's reductions sum in blocks, as the C++ engine's
    # fast path does); the narrower floats widen to it, integers and float64 to float64.
    flat = flat.float() if flat.dtype in (torch.float16, torch.bfloat16) else \
        flat if flat.dtype in (torch.float32, torch.float64) else flat.double()
    lo, hi = torch.aminmax(flat)  # a NaN or an Inf anywhere shows in these
    finite = flat
    if not (torch.isfinite(lo) and torch.isfinite(hi)):
        nan, inf = torch.isnan(flat), torch.isinf(flat)
        s.nanCount, s.infCount = int(nan.sum()), int(inf.sum())
        finite = flat[~(nan | inf)]
        if finite.numel() == 0:
            return
        lo, hi = torch.aminmax(finite)
    n = finite.numel()
    s.hasStats = True
    s.min, s.max = float(lo), float(hi)
    # The mean as a record without the detail has it, so the detail changes nothing already
    # shown.
    s.mean = float(finite.mean())
    if not detail:
        return
    s.std = float(torch.std(finite)) if n > 1 else 0.0
    s.hasDetail = True
    # The histogram's sample, as the C++ engine takes it (non-finite values are skipped).
    values = flat
    if flat.numel() > RUNS * RUN_LENGTH:
        spacing = flat.numel() // RUNS
        starts = torch.arange(RUNS) * spacing
        values = flat[(starts[:, None] + torch.arange(RUN_LENGTH)[None, :]).reshape(-1)]
    values = values[torch.isfinite(values)].double()
    span = s.max - s.min
    per_unit = HISTOGRAM_BINS / span if span > 0 else 0.0
    bins = ((values - s.min) * per_unit).to(torch.int64).clamp(0, HISTOGRAM_BINS - 1)
    s.histogram = torch.bincount(bins, minlength=HISTOGRAM_BINS).tolist()
    s.histogramSample = values.numel()


def physical(value):
    """A value made inside torch.vmap (a BatchedTensor, at any depth) as the batch it stands for,
    as fxview-engine shows it (core/plan/Functorch's physicalValue): its statistics would be
    data-dependent control flow under vmap. Other values as they are."""
    if isinstance(value, torch.Tensor):
        functorch = getattr(torch._C, "_functorch", None)
        while functorch is not None and functorch.is_batchedtensor(value):
            value = functorch.get_unwrapped(value)
        return value
    if isinstance(value, tuple):
        return tuple(physical(v) for v in value)
    return value


def summarize(value, with_stats: bool = True, detail: bool = True) -> wire.ValueSummary:
    """`value` as the window sees it: with_stats=False leaves out every statistic, detail=False
    only std and the histogram (hasDetail says whether they are there)."""
    value = physical(value)
    s = wire.ValueSummary()
    if isinstance(value, torch.Tensor):
        s.type = "Tensor"
        s.shape, s.dtype, s.device = list(value.shape), dtype_name(value.dtype), str(value.device)
        s.stride = list(value.stride()) if value.layout == torch.strided else []
        s.numel = value.numel()
        s.bytes = value.numel() * value.element_size()
        if value.is_quantized:
            _quantization(value, s, with_stats, detail)
        elif with_stats:
            _stats(value, s, detail)
    elif isinstance(value, (tuple, list)):
        s.type = "tuple" if isinstance(value, tuple) else "list"
        s.items = [summarize(v, with_stats, detail) for v in value]
    elif isinstance(value, dict):
        s.type = "dict"
        s.items = [summarize(v, with_stats, detail) for v in value.values()]
        s.value = ", ".join(str(k) for k in value)
    elif value is None:
        s.type = s.value = "None"
    elif isinstance(value, bool):
        s.type, s.value = "bool", str(value)
    elif isinstance(value, int):
        s.type, s.value = "int", str(value)
    elif isinstance(value, float):
        s.type, s.value = "float", _float_repr(value)
    elif isinstance(value, str):
        s.type, s.value = "str", value
    elif isinstance(value, torch.Size):
        s.type, s.value = "torch.Size", str(list(value))
    else:
        s.type = type(value).__qualname__
        text = repr(value)
        s.value = text if len(text) <= 200 else text[:197] + "..."
    return s


def exactly_equal(a, b) -> bool:
    """torch.equal item by item, dtype and shape included, a NaN equal to a NaN in the same
    place (as core/plan/TorchValues.cpp's exactlyEqual: a model whose output holds NaN still ran
    exactly as forward when they match); == for the rest."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                and a.dtype == b.dtype and a.shape == b.shape and a.device == b.device):
            return False
        return bool(torch.equal(a, b)) or (
            (a.is_floating_point() or a.is_complex())
            and bool(torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        same_kind = isinstance(a, tuple) == isinstance(b, tuple)
        return same_kind and len(a) == len(b) and all(exactly_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(exactly_equal(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a value whose == is not a bool is not equal
        return False
