"""Two runs of a GraphModule compared node by node, in the person's own PyTorch: run A as given,
run B the same model on another device or in another dtype (or on other inputs, or another
GraphModule, its nodes paired as fxtrace pairs them). The metrics, matching and JSON are those of
core/records/Comparison.cpp and RunComparison.cpp, which `fxtrace compare` and fxview-engine use
(docs/comparison.md defines them); the live engine answers the window's Compare with them.

    >>> result = fxview.compare(gm, (x,), dtype=torch.bfloat16)
    >>> print(result)                    # one row per node, then the first divergence
    >>> result.first_divergence()        # "conv1", or None
    >>> result.save("comparison.json")   # fxview.comparison, as fxtrace compare --json writes
"""

from __future__ import annotations

import copy
import json
import math
import operator

import torch
import torch.fx

from . import fxgraph

METRICS = ("max_abs", "mean_abs", "rel_l2", "cosine", "sqnr")
THRESHOLDS = {"max_abs": 1e-3, "mean_abs": 1e-4, "rel_l2": 1e-3, "cosine": 0.99999, "sqnr": 60.0}
_LOWER_IS_WORSE = ("cosine", "sqnr")


def _numbers(value, parts, shapes) -> bool:
    """Every number in `value` (a tuple's, list's or dict's items in order) as flat float64 CPU
    tensors, with their shapes (None for a None); False if it holds something that is not a
    number."""
    if isinstance(value, torch.Tensor):
        shapes.append(list(value.shape))
        t = value.detach()
        t = t.dequantize() if t.is_quantized else t
        t = torch.view_as_real(t.resolve_conj()) if t.is_complex() else t
        parts.append(t.to("cpu", torch.float64).reshape(-1))
        return True
    if isinstance(value, (bool, int, float)):
        shapes.append([])
        parts.append(torch.tensor([float(value)], dtype=torch.float64))
        return True
    if value is None:  # an Optional left empty (an eval model's aux outputs): no numbers
        shapes.append(None)
        return True
    if isinstance(value, (tuple, list)):
        return all(_numbers(item, parts, shapes) for item in value)
    if isinstance(value, dict):
        return all(_numbers(item, parts, shapes) for item in value.values())
    return False


def _description(value) -> tuple[str, str]:
    if isinstance(value, torch.Tensor):
        return str(list(value.shape)), str(value.dtype).replace("torch.", "")
    return type(value).__name__, ""


def measure(a, b) -> dict:
    """One row's numbers: A's value `a` against B's `b` (docs/comparison.md)."""
    row = {"compared": False, "mismatch": False, "note": "", "elements": 0,
           "max_abs": 0.0, "mean_abs": 0.0, "rel_l2": 0.0, "cosine": 1.0, "sqnr": math.inf}
    row["shape_a"], row["dtype_a"] = _description(a)
    row["shape_b"], row["dtype_b"] = _description(b)
    pa, pb, sa, sb = [], [], [], []
    if not _numbers(a, pa, sa) or not _numbers(b, pb, sb):
        try:
            equal = bool(a == b)
        except Exception:  # noqa: BLE001 - objects that cannot say
            equal = a is b
        row["mismatch"] = not equal
        row["note"] = "not numbers; equal" if equal else "not numbers, and they differ"
        return row
    if sa != sb:
        row["mismatch"] = True
        row["note"] = f"shapes differ: {sa} against {sb}"
        return row
    row["compared"] = True
    if not pa:  # Nones only
        return row
    x, y = torch.cat(pa), torch.cat(pb)
    row["elements"] = x.numel()
    if x.numel() == 0:
        return row
    same = (x == y) | (x.isnan() & y.isnan())
    d = torch.where(same, torch.zeros_like(x), x - y)
    na, nb, nd = (torch.linalg.vector_norm(t).item() for t in (x, y, d))
    row["max_abs"] = d.abs().max().item()
    row["mean_abs"] = d.abs().mean().item()
    if nd == 0:
        return row
    row["rel_l2"] = math.inf if na == 0 else nd / na
    row["cosine"] = 0.0 if na == 0 or nb == 0 else (x * y).sum().item() / (na * nb)
    row["sqnr"] = 20 * math.log10(na / nd) if na > 0 else -math.inf
    return row


def like_b(a, b):
    """A's value as B's node holds it (B's dtype and device, B's quantization), for local mode;
    None where A's cannot stand in for B's."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return None
        t = a.detach().dequantize() if a.is_quantized else a.detach()
        if not b.is_quantized:  # a copy: B's in-place ops must not change A's value
            return t.to(device=b.device, dtype=b.dtype, copy=True)
        if b.qscheme() == torch.per_tensor_affine:
            return torch.quantize_per_tensor(t.float().to(b.device), b.q_scale(),
                                             b.q_zero_point(), b.dtype)
        if b.qscheme() == torch.per_channel_affine:
            return torch.quantize_per_channel(t.float().to(b.device), b.q_per_channel_scales(),
                                              b.q_per_channel_zero_points(),
                                              b.q_per_channel_axis(), b.dtype)
        return None
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        items = [like_b(x, y) for x, y in zip(a, b)]
        return None if any(i is None for i in items) else type(b)(items)
    if type(a) is type(b) and isinstance(a, (bool, int, float)):
        return a
    return None


def diverges(row: dict, metric: str, threshold: float) -> bool:
    if row["mismatch"]:
        return True
    if not row["compared"]:
        return False
    v = row[metric]
    if math.isnan(v):
        return True
    if metric == "sqnr":
        return v < threshold
    if math.isinf(v):
        return True
    return v < threshold if metric in _LOWER_IS_WORSE else v > threshold


class _Run:
    """One side: its GraphModule run node by node with torch.fx's Interpreter, values freed
    after their last use as Interpreter.run frees them."""

    def __init__(self, gm, inputs):
        self.nodes = list(gm.graph.nodes)
        self.interpreter = torch.fx.Interpreter(gm)
        self.interpreter.env = {}
        self.interpreter.args_iter = iter(inputs)
        self.pc = 0

    def step(self):
        node = self.nodes[self.pc]
        self.pc += 1
        return node, self.interpreter.run_node(node)

    def keep(self, node, value):
        env = self.interpreter.env
        env[node] = value
        for used in self.interpreter.user_to_last_uses.get(node, []):
            env.pop(used, None)


class Comparison:
    """The comparison of two runs: `nodes` (one dict per matched node, in A's order: node,
    node_b, op, target, match, compared, mismatch, note, shapes, dtypes, elements, the five
    metrics), `only_a`, `only_b`, `local`, `failure`."""

    def __init__(self, model_a="", run_a="", model_b="", run_b="", local=False):
        self.model_a, self.run_a, self.model_b, self.run_b = model_a, run_a, model_b, run_b
        self.local = local
        self.nodes: list[dict] = []
        self.only_a: list[str] = []
        self.only_b: list[str] = []
        self.failure = ""

    def first_divergence(self, metric="rel_l2", threshold=None):
        threshold = THRESHOLDS[metric] if threshold is None else threshold
        return next((r["node"] for r in self.nodes if diverges(r, metric, threshold)), None)

    def to_json(self, metric="rel_l2", threshold=None) -> str:
        threshold = THRESHOLDS[metric] if threshold is None else threshold

        def number(v):
            return v if math.isfinite(v) else ("nan" if math.isnan(v) else
                                               "inf" if v > 0 else "-inf")
        keys = ("node", "node_b", "op", "target", "match", "compared", "mismatch", "note",
                "shape_a", "shape_b", "dtype_a", "dtype_b", "elements")
        doc = {"format": "fxview.comparison", "version": 1,
               "a": {"model": self.model_a, "run": self.run_a},
               "b": {"model": self.model_b, "run": self.run_b},
               "local": self.local, "metric": metric, "threshold": threshold,
               "first_divergence": self.first_divergence(metric, threshold),
               "failure": self.failure,
               "nodes": [{**{k: r[k] for k in keys}, **{m: number(r[m]) for m in METRICS}}
                         for r in self.nodes],
               "only_a": self.only_a, "only_b": self.only_b}
        return json.dumps(doc, indent=1) + "\n"

    def save(self, path, metric="rel_l2", threshold=None) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json(metric, threshold))

    def __str__(self) -> str:
        def fmt(v, metric):
            return ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v)
                    else f"{v:.7g}" if metric == "cosine" else f"{v:.4g}")
        rows = [["node", "op", "max_abs", "mean_abs", "rel_l2", "cosine", "sqnr_db", "note"]]
        for r in self.nodes:
            name = r["node"] if r["node"] == r["node_b"] else f"{r['node']} ~ {r['node_b']}"
            note = r["note"]
            if diverges(r, "rel_l2", THRESHOLDS["rel_l2"]):
                note = f"diverges: {note}" if note else "diverges"
            cells = [fmt(r[m], m) for m in METRICS] if r["compared"] else ["-"] * 5
            rows.append([name, r["op"], *cells, note])
        widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                 for row in rows]
        if self.only_a:
            lines.append("Only in A: " + ", ".join(self.only_a))
        if self.only_b:
            lines.append("Only in B: " + ", ".join(self.only_b))
        first = self.first_divergence()
        if first is None:
            lines.append("No divergence above 0.001 (rel_l2)")
        else:
            r = next(r for r in self.nodes if r["node"] == first)
            why = "rel_l2 " + fmt(r["rel_l2"], "rel_l2") if r["compared"] else r["note"]
            lines.append(f"First divergence: {first} ({why})")
        return "\n".join(lines)


def _same_kind(a: torch.fx.Node, b: torch.fx.Node) -> bool:
    return a.op == b.op and (a.op in ("call_module", "placeholder", "output")
                             or a.target == b.target)


def match_nodes(nodes_a, nodes_b) -> tuple[dict, list, list]:
    """A's node name -> (B's node name, "name" or "scope order"), and the names only A and only
    B have: the rules of core/run/RunComparison.cpp's matchNodes. A name pairs in the same
    scope and op only (torch.fx counts a function's calls across the graph, so names drift);
    what is left pairs in order within its scope, node with node of the same kind."""
    def scope(n):
        return fxgraph.scope_of(n)[0]
    by_name_b = {n.name: n for n in nodes_b}
    pairs, matched_b, rest_a, rest_b = {}, set(), {}, {}
    for n in nodes_a:
        m = by_name_b.get(n.name)
        if m is not None and scope(m) == scope(n) and m.op == n.op:
            pairs[n.name] = (m.name, "name")
            matched_b.add(m.name)
        else:
            rest_a.setdefault(scope(n), []).append(n)
    for n in nodes_b:
        if n.name not in matched_b:
            rest_b.setdefault(scope(n), []).append(n)
    for where, left_a in rest_a.items():
        left_b, j = rest_b.get(where, []), 0
        for na in left_a:
            k = j
            while k < len(left_b) and not _same_kind(na, left_b[k]):
                k += 1
            if k == len(left_b):
                continue
            pairs[na.name] = (left_b[k].name, "scope order")
            matched_b.add(left_b[k].name)
            j = k + 1
    return (pairs, [n.name for n in nodes_a if n.name not in pairs],
            [n.name for n in nodes_b if n.name not in matched_b])


def compare_runs(gm_a, inputs_a, gm_b, inputs_b, local=False, before_node=None) -> Comparison:
    """Runs both GraphModules node by node side by side (A leads; B runs up to the partner of
    the node A just made) and compares each matched pair (match_nodes). `before_node(name)`
    returning False stops the comparison there."""
    result = Comparison(local=local)
    a, b = _Run(gm_a, inputs_a), _Run(gm_b, inputs_b)
    pairs, result.only_a, result.only_b = match_nodes(a.nodes, b.nodes)
    paired_b = {name_b for name_b, _ in pairs.values()}
    waiting_b = {}  # B's values made before A made their partner (a copy each), by B's name
    # Each run draws from a CPU random stream of its own, both starting where the generator is
    # now: a dropout in B draws what the same dropout in A drew.
    streams = {"a": torch.get_rng_state(), "b": torch.get_rng_state()}

    def step(run, key):
        torch.set_rng_state(streams[key])
        try:
            return run.step()
        finally:
            streams[key] = torch.get_rng_state()

    with torch.no_grad():
        while a.pc < len(a.nodes):
            node_a = a.nodes[a.pc]
            if before_node is not None and not before_node(node_a.name):
                result.failure = f"The comparison was stopped before {node_a.name}."
                break
            try:
                node_a, value_a = step(a, "a")
            except Exception as error:  # noqa: BLE001 - the report says it
                result.failure = f"Run A failed at node {node_a.name}: {error}"
                break
            row = None
            partner, how = pairs.get(node_a.name, (None, ""))
            if partner in waiting_b:
                row = measure(value_a, waiting_b.pop(partner))
            elif partner is not None:
                while b.pc < len(b.nodes):
                    node_b = b.nodes[b.pc]
                    try:
                        node_b, value_b = step(b, "b")
                    except Exception as error:  # noqa: BLE001
                        result.failure = f"Run B failed at node {node_b.name}: {error}"
                        break
                    if node_b.name == partner:
                        row = measure(value_a, value_b)
                        if local:
                            fed = like_b(value_a, value_b)
                            if fed is None:
                                row["note"] += ("; " if row["note"] else "") + \
                                    "its consumers in B got B's own value"
                            else:
                                value_b = fed
                        b.keep(node_b, value_b)
                        break
                    if node_b.name in paired_b:
                        waiting_b[node_b.name] = copy.deepcopy(value_b)
                    b.keep(node_b, value_b)
            a.keep(node_a, value_a)
            if result.failure:
                break
            if row is not None:
                row.update(node=node_a.name, node_b=partner, op=node_a.op,
                           target=torch.fx.node._get_qualified_name(node_a.target)
                           if callable(node_a.target) else str(node_a.target), match=how)
                result.nodes.append(row)
    return result


def cast_inputs(value, device, dtype):
    """`value` (a tensor, or a tuple or list of them) on `device`, floating tensors cast to
    `dtype`; either may be None."""
    if isinstance(value, torch.Tensor):
        if device is not None:
            value = value.to(device)
        if dtype is not None and value.is_floating_point():
            value = value.to(dtype)
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(cast_inputs(v, device, dtype) for v in value)
    return value


_IN_PLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv,
                       operator.ifloordiv, operator.imod, operator.ipow, operator.iand,
                       operator.ior, operator.ixor}


def may_write_weights(gm: torch.fx.GraphModule) -> bool:
    """Whether a node writes in place into a value no input flows into: a parameter, a buffer or
    a view of one (`self.cache.copy_(x)`, `self.count += 1`), as core's mayWriteWeights asks of
    a TorchScript graph. Writes into activations (F.relu(x, inplace=True)) are the run's own."""
    fed = set()
    for node in gm.graph.nodes:
        name = node.target if node.op == "call_method" else getattr(node.target, "__name__", "")
        in_place = (node.op in ("call_method", "call_function") and isinstance(name, str)
                    and name.endswith("_") and not name.endswith("__")) \
            or node.target in _IN_PLACE_OPERATORS
        first = node.args[0] if node.args else None
        if in_place and isinstance(first, torch.fx.Node) and first not in fed:
            return True
        if node.op == "placeholder" or any(n in fed for n in node.all_input_nodes):
            fed.add(node)
    return False


def run_b_model(gm: torch.fx.GraphModule, device, dtype) -> torch.fx.GraphModule:
    """The module run B runs: `gm` itself when neither the device nor the dtype changes, no
    module of it is training and no node writes into its weights (nothing in it changes as it
    runs, so A and B can share them); else a copy whose parameters and buffers are moved to `device` and, floating ones,
    cast to `dtype` (as gm.to(device).to(dtype) makes them), each made straight from gm's: never
    a second full-precision copy of the weights on the way."""
    if device is None and dtype is None and not any(m.training for m in gm.modules()) \
            and not may_write_weights(gm):
        return gm
    memo = {}
    for name, t in [*gm.named_parameters(), *gm.named_buffers()]:
        made = t.detach()
        if device is not None:
            made = made.to(device)
        if dtype is not None and made.is_floating_point():
            made = made.to(dtype)
        memo[id(t)] = torch.nn.Parameter(made, t.requires_grad) \
            if isinstance(t, torch.nn.Parameter) else made
    return copy.deepcopy(gm, memo)


def compare(model, args=(), *, dtype=None, device=None, other=None, other_args=None,
            local=False) -> Comparison:
    """Runs `model` (a GraphModule, or a module symbolic_trace can trace) on `args` as run A,
    and run B: a copy of it moved to `device` and/or cast to `dtype` (floating weights and
    inputs, as model.to(dtype)), or `other` (a module, its nodes paired as match_nodes pairs
    them), on `other_args` if given. With `local`, each of B's nodes is fed A's values."""
    gm = model if isinstance(model, torch.fx.GraphModule) else torch.fx.symbolic_trace(model)
    if other is None:
        other = run_b_model(gm, device, dtype)
    else:
        if not isinstance(other, torch.fx.GraphModule):
            other = torch.fx.symbolic_trace(other)
        if device is not None or dtype is not None:  # converted, not theirs changed in place
            other = run_b_model(other, device, dtype)
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    args_b = args if other_args is None else (
        tuple(other_args) if isinstance(other_args, (tuple, list)) else (other_args,))
    args_b = tuple(cast_inputs(a, device, dtype) for a in args_b)
    result = compare_runs(gm, list(args), other, list(args_b), local=local)
    result.model_a = type(model).__qualname__
    result.model_b = type(other).__qualname__ if other is not gm else result.model_a
    where = ", ".join(str(x) for x in (device, dtype) if x is not None)
    result.run_a = "as given"
    result.run_b = where or "as given"
    return result
