"""What a node's run costs (docs/cost.md), the Python twin of core/run/NodeCost.cpp: the bytes of
the storages its outputs hold that its inputs did not, whether they alias an input (a view, or an
input written in place: its version counter moved), the bytes every value a later node still
uses holds, and its FLOPs from its operands' shapes with torch.utils.flop_counter's own formulas
in this Python's PyTorch, applied to the kernels ATen runs for the operator (FlopCounterMode sees
those: linear is an addmm, matmul an mm, a bmm or an mv it does not count)."""

from __future__ import annotations

import math
import operator

import torch
import torch.fx
from torch.utils import flop_counter

from . import wire


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _storage(t: torch.Tensor):
    """(identity, bytes) of the tensor's storage, or None where it has none to count (sparse,
    nested, a subclass without one)."""
    if t.layout != torch.strided:
        return None
    try:
        s = t.untyped_storage()
        return s._cdata, s.nbytes()
    except (RuntimeError, NotImplementedError, TypeError, AttributeError):
        return None


def storages(value, out: dict | None = None) -> dict:
    """Every storage `value` holds (tuples, lists and dicts walked): identity -> bytes."""
    out = {} if out is None else out
    for t in _tensors(value):
        if (s := _storage(t)) is not None:
            out.setdefault(*s)
    return out


def versions(operands) -> dict:
    """The version counters of the tensors a node is about to take, by storage."""
    out = {}
    for t in _tensors(operands):
        if (s := _storage(t)) is not None and not t.is_inference():
            out.setdefault(s[0], t._version)
    return out


def note_output_cost(record, operands, before: dict, value) -> None:
    """Sets record.newBytes and record.aliasKind (NodeCost.cpp's noteOutputCost)."""
    held, outputs = storages(operands), storages(value)
    record.newBytes = sum(size for key, size in outputs.items() if key not in held)
    aliased = {key for key in outputs if key in held}
    written = False
    for t in _tensors(value):
        key = (_storage(t) or (None, 0))[0]
        if key in aliased and key in before and not t.is_inference():
            written = written or t._version != before[key]
    record.aliasKind = ("in-place" if written else "view") if aliased else ""


def shares(values, apart: set) -> list[int]:
    """Each value's bytes in the distinct storages of `values`: those it holds that no value
    before it holds, leaving out the storages in `apart` (NodeCost.cpp's distinctBytes)."""
    seen, out = set(apart), []
    for value in values:
        held = storages(value)
        out.append(sum(size for key, size in held.items() if key not in seen))
        seen.update(held)
    return out


def peak_live(node: str, names: list, sizes: list) -> wire.PeakLive:
    """The live set after `node` as PeakLive: every live value and its share, the largest first
    (of equals, the one made first)."""
    values = [wire.LiveValue(node=n, bytes=b) for n, b in zip(names, sizes)]
    values.sort(key=lambda v: -v.bytes)
    return wire.PeakLive(node=node, bytes=sum(sizes), values=values)


# --- FLOPs --------------------------------------------------------------------------------------

_NAMES: dict = {}  # target -> its operator's name: a schema's name is slow to ask each node


def _operator_name(node: torch.fx.Node) -> str:
    """The operator a node calls without namespace and overload ("linear" for aten.linear.default,
    torch._C._nn.linear, call_method linear); "" for anything that is not PyTorch's own."""
    target = node.target
    if node.op == "call_method":
        return target
    if node.op != "call_function":
        return ""
    try:
        return _NAMES[target]
    except (KeyError, TypeError):
        pass
    name = _name_of(target)
    try:
        _NAMES[target] = name
    except TypeError:
        pass  # a target that cannot be a key
    return name


def _name_of(target) -> str:
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        name = target._schema.name if isinstance(target, torch._ops.OpOverload) else \
            f"{target._qualified_op_name}"
        namespace, _, base = name.partition("::")
        return base if namespace == "aten" else ""
    module = getattr(target, "__module__", None) or ""
    if target is operator.matmul or module.startswith("torch"):
        return getattr(target, "__name__", "")
    return ""


def _operand(args, kwargs, index: int, name: str):
    value = args[index] if index < len(args) else kwargs.get(name)
    return value if isinstance(value, torch.Tensor) else None


def _linear(x, w) -> int:
    return flop_counter.mm_flop((math.prod(x.shape[:-1]), w.shape[1]), (w.shape[1], w.shape[0]))


def _folds(a, b) -> bool:
    """at::native's should_fold: a matmul folded into one mm or mv."""
    larger, other = (a, b) if a.dim() >= b.dim() else (b.mT, a.t() if a.dim() == 2 else a)
    if not (larger.dim() >= 3 and other.dim() <= 2):
        return False
    if other.requires_grad:
        return True
    if a.dim() == 2:
        return False
    if larger.numel() == 0:
        return True
    return all(larger.stride(i) == larger.stride(i + 1) * larger.size(i + 1)
               for i in range(larger.dim() - 2))


def _matmul(a, b) -> int:
    """torch.matmul as at::native's _matmul_impl runs it (NodeCost.cpp's matmulFlops)."""
    da, db = a.dim(), b.dim()
    if da == 0 or db == 0 or (db == 1 and da <= 2):
        return 0  # dot, mv
    if da == 1 and db == 2:
        return flop_counter.mm_flop((1, b.shape[0]), tuple(b.shape))
    if da == 2 and db == 2:
        return flop_counter.mm_flop(tuple(a.shape), tuple(b.shape))
    if _folds(a, b):
        if da >= 3:
            return 0 if db == 1 else flop_counter.mm_flop(
                (math.prod(a.shape[:-1]), a.shape[-1]), (b.shape[-2], b.shape[-1]))
        return 0 if da == 1 else flop_counter.mm_flop(
            (math.prod(b.shape[:-2]) * b.shape[-1], b.shape[-2]), (a.shape[1], a.shape[0]))
    m, k = (1 if da == 1 else a.shape[-2]), a.shape[-1]
    n = 1 if db == 1 else b.shape[-1]
    batch = math.prod(torch.broadcast_shapes(a.shape[:max(da - 2, 0)], b.shape[:max(db - 2, 0)]))
    return flop_counter.bmm_flop((batch, m, k), (batch, k, n))


def _convolution(x, w, out, transposed: bool) -> int:
    if not isinstance(out, torch.Tensor):
        return 0
    x_shape, out_shape = list(x.shape), list(out.shape)
    if x.dim() != w.dim():  # an unbatched input runs as a batch of one
        x_shape, out_shape = [1] + x_shape, [1] + out_shape
    return flop_counter.conv_flop_count(x_shape, list(w.shape), out_shape, transposed=transposed)


def _attention(q, k, v) -> int:
    def four(t):  # (batch, heads, length, size): leading dimensions beyond two are a batch
        return tuple(t.shape) if t.dim() == 4 else \
            (math.prod(t.shape[:-2]), 1, t.shape[-2], t.shape[-1])

    q4, k4, v4 = four(q), four(k), four(v)
    try:
        return flop_counter.sdpa_flop_count(q4, k4, v4)
    except (AssertionError, ValueError):
        # An older flop_counter wants as many key heads as query heads; grouped-query attention
        # runs its products over every query head (what its math kernel's bmms count).
        b, h, s_q, d_q = q4
        s_k, d_v = k4[2], v4[3]
        return (flop_counter.bmm_flop((b * h, s_q, d_q), (b * h, d_q, s_k)) +
                flop_counter.bmm_flop((b * h, s_q, s_k), (b * h, s_k, d_v)))


def _multihead_attention(module, args, kwargs) -> int:
    """nn.MultiheadAttention as F.multi_head_attention_forward runs it without its fast path
    (NodeCost.cpp's multiheadAttentionFlops): the query, key and value projections and the
    output's, each a linear, and the two products of attention over every head (bmm, or
    scaled_dot_product_attention: the same count). bias_k and add_zero_attn each add a key."""
    q, k = _operand(args, kwargs, 0, "query"), _operand(args, kwargs, 1, "key")
    v = _operand(args, kwargs, 2, "value")
    if None in (q, k, v):
        return 0
    e, heads = q.shape[-1], module.num_heads
    rows_q, rows_k, rows_v = q.numel() // e, k.numel() // k.shape[-1], v.numel() // v.shape[-1]
    projections = (flop_counter.mm_flop((rows_q, e), (e, e)) +
                   flop_counter.mm_flop((rows_k, k.shape[-1]), (k.shape[-1], e)) +
                   flop_counter.mm_flop((rows_v, v.shape[-1]), (v.shape[-1], e)) +
                   flop_counter.mm_flop((rows_q, e), (e, e)))
    batch = 1 if q.dim() == 2 else q.shape[0 if module.batch_first else 1]
    length, keys = rows_q // batch, rows_k // batch
    keys += (module.bias_k is not None) + bool(module.add_zero_attn)
    b, d = batch * heads, e // heads
    return projections + flop_counter.bmm_flop((b, length, d), (b, d, keys)) + \
        flop_counter.bmm_flop((b, length, keys), (b, keys, d))


def count_flops(node: torch.fx.Node, gm: torch.nn.Module, args, kwargs, value) -> int:
    """The node's FLOPs (NodeCost.cpp's countFlops); 0 where no count is known."""
    try:
        if node.op == "call_module":
            module, x = gm.get_submodule(node.target), _operand(args, kwargs, 0, "input")
            if isinstance(module, torch.nn.MultiheadAttention):
                return _multihead_attention(module, args, kwargs)
            w = getattr(module, "weight", None)
            if x is None or not isinstance(w, torch.Tensor):
                return 0
            if isinstance(module, torch.nn.Linear):
                return _linear(x, w)
            if isinstance(module, torch.nn.modules.conv._ConvNd):
                return _convolution(x, w, value, bool(module.transposed))
            return 0
        op = _operator_name(node)
        a = _operand(args, kwargs, 0, "input")
        b = _operand(args, kwargs, 1, "weight" if op.startswith(("linear", "conv")) else "mat2")
        if op == "linear" and a is not None and b is not None and b.dim() == 2:
            return _linear(a, b)
        if op in ("mm", "bmm") and a is not None and b is not None:
            f = flop_counter.mm_flop if op == "mm" else flop_counter.bmm_flop
            return f(tuple(a.shape), tuple(b.shape))
        if op in ("addmm", "baddbmm"):
            m1 = _operand(args, kwargs, 1, "mat1" if op == "addmm" else "batch1")
            m2 = _operand(args, kwargs, 2, "mat2" if op == "addmm" else "batch2")
            if m1 is not None and m2 is not None:
                f = flop_counter.mm_flop if op == "addmm" else flop_counter.bmm_flop
                return f(tuple(m1.shape), tuple(m2.shape))
            return 0
        if op in ("matmul", "__matmul__"):
            b = _operand(args, kwargs, 1, "other")
            return _matmul(a, b) if a is not None and b is not None else 0
        if op in ("conv1d", "conv2d", "conv3d") and a is not None and b is not None:
            return _convolution(a, b, value, False)
        if op.startswith("conv_transpose") and a is not None and b is not None:
            return _convolution(a, b, value, True)
        if op in ("convolution", "_convolution") and a is not None and b is not None:
            transposed = args[6] if len(args) > 6 else kwargs.get("transposed", False)
            return _convolution(a, b, value, bool(transposed))
        if op == "scaled_dot_product_attention" or op.startswith("_scaled_dot_product_"):
            q, k = _operand(args, kwargs, 0, "query"), _operand(args, kwargs, 1, "key")
            v = _operand(args, kwargs, 2, "value")
            return _attention(q, k, v) if None not in (q, k, v) else 0
    except (RuntimeError, ValueError, TypeError, AssertionError, IndexError, AttributeError,
            ZeroDivisionError):
        pass  # shapes the formula cannot read: no count
    return 0


# --- the table (core/records/CostTable.cpp's twin) ----------------------------------------------

def times_of(samples: list) -> tuple:
    """(median, min, max, runs) of a node's times."""
    if not samples:
        return 0.0, 0.0, 0.0, 0
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return median, s[0], s[-1], n


def whole_run(stepper, go_on=None) -> bool:
    """The stepper's model from its inputs to its end (or its failure), breakpoints not stopping
    it; False when `go_on(next node)` said stop before a node (Pause)."""
    stepper.reset()
    while not stepper.finished and not stepper.failed:
        if go_on is not None and not go_on(stepper.next_node()):
            return False
        stepper.step()
    return True


def profile(stepper, runs: int, go_on=None, warm_up=True) -> tuple[dict, int, str]:
    """The stepper's model run from its inputs to its end once to warm up (unless the caller
    just ran it whole: operators.profiled_run), then `runs` times, each from a reset,
    breakpoints and watches not stopping it (core/run/Profiling.cpp's twin).
    `go_on(next node)` is asked before each node (False stops it, as Pause). Returns every node's
    time in each timed run {name: [us, ...]}, how many timed runs ended, and why it stopped short
    ("" when it did not); the stepper is left holding the last run."""
    times: dict[str, list] = {}
    done = 0

    def whole() -> bool:
        return whole_run(stepper, go_on) and stepper.finished

    def short() -> str:
        return stepper.failure if stepper.failed else \
            f"The profile was stopped after {done} of {runs} timed runs."

    if warm_up and not whole():
        return times, done, short()
    for _ in range(runs):
        if not whole():
            return times, done, short()
        for name, record in stepper.records.items():
            if record.state == wire.DONE_STATE:
                times.setdefault(name, []).append(record.timeUs)
        done += 1
    return times, done, ""


def table_rows(stepper, times: dict) -> list[dict]:
    """A row per node of the stepper's graph: its figures and its times (by name; a node
    without samples takes its record's one time)."""
    from .fxgraph import _target, scope_of

    rows = []
    for node in stepper.nodes:
        record = stepper.records[node.name]
        ran = record.state == wire.DONE_STATE
        samples = times.get(node.name) or ([record.timeUs] if ran else [])
        rows.append(dict(node=node.name, op=node.op, target=_target(node),
                         scope=scope_of(node)[0], time=times_of(samples), ran=ran,
                         bytes=record.newBytes if ran else 0,
                         alias=record.aliasKind if ran else "",
                         live_bytes=record.liveBytes if ran else 0,
                         flops=record.flops if ran else 0))
    return rows


def _csv_field(text: str) -> str:
    if not any(c in text for c in ",\"\r\n"):
        return text
    return '"' + text.replace('"', '""') + '"'


def table_csv(rows: list[dict]) -> str:
    out = ["node,op,target,scope,time_us,bytes,live_bytes,flops"]
    for r in rows:
        out.append(",".join([_csv_field(r["node"]), _csv_field(r["op"]), _csv_field(r["target"]),
                             _csv_field(r["scope"]), f"{r['time'][0]:.3f}", str(r["bytes"]),
                             str(r["live_bytes"]), str(r["flops"])]))
    return "\n".join(out) + "\n"


def _scaled(value: float, units: list, step: float) -> str:
    unit = 0
    while value >= step and unit + 1 < len(units):
        value, unit = value / step, unit + 1
    return (f"{value:.0f}" if unit == 0 else f"{value:.2f}") + units[unit]


def format_bytes(n: int) -> str:
    return _scaled(float(n), [" B", " KiB", " MiB", " GiB", " TiB"], 1024)


def format_flops(n: int) -> str:
    return _scaled(float(n), ["", " K", " M", " G", " T", " P"], 1000)


def _us(us: float) -> str:
    return f"{us:.1f} us" if us < 1000 else f"{us / 1000:.2f} ms"


PEAK_VALUES_PRINTED = 10  # CostTable.h's kPeakValuesPrinted


def table_text(rows: list[dict], runs: int, peak_live=None) -> str:
    """The table as `fxtrace run --profile` prints it: a line per node, then the totals, the
    live set's peak and the largest values alive there (`peak_live`, a wire.PeakLive)."""
    cells = [["name", "op", "target", "scope", "time", "spread", "share", "bytes", "live",
              "flops"]]
    total = sum(r["time"][0] for r in rows)
    for r in rows:
        if not r["ran"]:
            cells.append([r["node"], r["op"], r["target"], r["scope"], "not run"] + [""] * 5)
            continue
        median, low, high, n = r["time"]
        cells.append([r["node"], r["op"], r["target"], r["scope"], _us(median),
                      f"{_us(low)} - {_us(high)}" if n > 1 else "",
                      f"{100 * median / total:.1f}%" if total > 0 else "",
                      r["alias"] or format_bytes(r["bytes"]), format_bytes(r["live_bytes"]),
                      format_flops(r["flops"])])
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.append(f"total: {_us(total)} (the sum of each node's median over {runs} "
                 f"{'run' if runs == 1 else 'runs'}), {format_flops(sum(r['flops'] for r in rows))}"
                 " FLOPs")
    if rows:
        peak = max(rows, key=lambda r: r["live_bytes"])
        lines.append(f"peak live set: {format_bytes(peak['live_bytes'])} after {peak['node']}")
    if peak_live is not None and peak_live.values and peak_live.bytes > 0:
        lines.append("alive there, the largest first:")
        shown = peak_live.values[:PEAK_VALUES_PRINTED]
        cells = [["  " + v.node, format_bytes(v.bytes), f"{100 * v.bytes / peak_live.bytes:.1f}%"]
                 for v in shown]
        widths = [max(len(c[i]) for c in cells) for i in range(3)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        rest = peak_live.values[PEAK_VALUES_PRINTED:]
        if rest:
            lines.append(f"  and {len(rest)} more, {format_bytes(sum(v.bytes for v in rest))}")
    return "\n".join(lines) + "\n"
