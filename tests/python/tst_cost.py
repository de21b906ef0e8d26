"""What each node costs (docs/cost.md), from both engines, against this root's PyTorch (issue 51).

Models written here (convolutions and a transposed one, linear layers on batches, every matrix
product flop_counter knows, attention with and without grouped query heads, views, a weight's
view, an input written in place) are exported with torch.export and saved; TorchScript's own
copy of one is saved with torch.jit.trace. Then, node by node:

1. bytes: the storages a node's outputs hold that its inputs did not, as
   untyped_storage().nbytes() gives them (each storage once), where torch.fx.Interpreter runs the
   same graph; views and in-place ops hold none, and say which they are (fxtrace's --json
   `alias`, the Python engine's records).
2. live_bytes: the distinct storages of the values torch.fx.Interpreter.run still holds in its
   env once the node has run (it frees each after its last use) that some node still reads,
   weights, buffers and constants apart. Where that is largest (the first of equals): every value
   alive there with the bytes of the storages no value made before it holds, the largest first
   (fxtrace's --json `peak_live`, the Python engine's stepper.peak, both printed tables).
3. flops: what FlopCounterMode counts while Interpreter runs the node, plus, for each attention
   kernel it has no formula for (the CPU flash kernel PyTorch picks here), its own formula for
   the flash, efficient and cudnn kernels, sdpa_flop_count, on that kernel's shapes. An exported
   model's nodes sum to what the same counting gives for the whole of ep.module()'s call.
4. `fxtrace run --profile N --csv` (the C++ engine) and `python3 -m fxview run --profile N --csv`
   (the Python engine, this Python's PyTorch) write those figures for every node, a row per node,
   each time_us the median of N timed runs, and print the table.

Environment: FXTRACE. Exits 1 with one FAIL line per failed check."""

import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.fx
import torch.nn.functional as F
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode, flop_registry, sdpa_flop_count

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, fxtrace, run_groups  # noqa: E402
from engine_pipe import Engine  # noqa: E402

PACKAGE = str(Path(__file__).resolve().parents[2] / "python")
sys.path.insert(0, PACKAGE)
from fxview import wire  # noqa: E402
from fxview.program import ProgramSession, load_program  # noqa: E402

RUNS = 3


class Convolutions(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1, groups=2)
        self.norm = nn.BatchNorm2d(6)
        self.up = nn.ConvTranspose2d(6, 3, 2, stride=2)
        self.line = nn.Conv1d(3, 5, 3)
        self.head = nn.Linear(5 * 62, 7)

    def forward(self, x):
        x = F.relu(self.norm(self.conv(x)), inplace=True)
        x = F.max_pool2d(x, 2)
        x = self.up(x)                        # [2, 3, 8, 8]
        x = self.line(x.flatten(2))           # a view: [2, 5, 62]
        return self.head(x.flatten(1))


class Products(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 8))
        self.v = nn.Parameter(torch.randn(6))
        self.register_buffer("bias", torch.randn(3, 5, 5))

    def forward(self, x, y):
        a = x @ self.w                          # [3, 5, 8]: 3-D by 2-D, folded into one mm
        b = torch.bmm(a, a.transpose(1, 2))     # [3, 5, 5]
        c = torch.baddbmm(self.bias, a, a.transpose(1, 2))
        d = torch.addmm(y, x[0], self.w)        # [5, 8]
        e = torch.mm(d.t(), d)                  # [8, 8]
        f = torch.matmul(self.v, self.w)        # 1-D by 2-D: an mm of one row
        g = torch.matmul(x[0], self.v)          # 2-D by 1-D: an mv, which flop_counter counts 0
        h = torch.matmul(x.unsqueeze(0), x.transpose(1, 2))  # broadcast batches: a bmm
        return b + c, e.sum() + f.sum() + g.sum() + h.sum()


class Attention(nn.Module):
    def __init__(self, grouped: bool):
        super().__init__()
        self.grouped = grouped
        self.q = nn.Linear(16, 16)
        self.kv = nn.Linear(16, 16 if grouped else 32)
        self.out = nn.Linear(16, 16)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, 4, 4).transpose(1, 2)
        kv_heads = 2 if self.grouped else 4
        k, v = self.kv(x).view(b, s, 2, kv_heads, 4).permute(2, 0, 3, 1, 4).unbind(0)
        if self.grouped:
            o = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        else:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(o.transpose(1, 2).reshape(b, s, 16))


class Aliases(nn.Module):
    """Views of an input and of a weight, and a tensor written in place."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))

    def forward(self, x):
        t = self.w.t()                 # a view of a weight: not in the live set
        first, second = x.split(2)     # two views of the input
        y = first.clone()
        y.add_(second)                 # y written in place
        return y @ t, x.view(-1)[:3]


class Attending(nn.Module):
    """nn.MultiheadAttention as one call_module (symbolic_trace and torch.jit.trace keep it
    whole): self-attention with its batch first, and cross-attention sequence first with other
    key and value sizes, bias_k and add_zero_attn."""

    def __init__(self):
        super().__init__()
        self.attn1 = nn.MultiheadAttention(16, 4, batch_first=True)
        self.attn2 = nn.MultiheadAttention(16, 2, kdim=12, vdim=10, add_bias_kv=True,
                                           add_zero_attn=True)

    def forward(self, x, memory):
        a, _ = self.attn1(x, x, x)                          # x: [2, 5, 16]
        y = (a + x).transpose(0, 1)                         # [5, 2, 16]
        b, w = self.attn2(y, memory, memory[..., :10])      # memory: [7, 2, 12]
        return b, w


def models():
    out = [("convolutions", Convolutions(), (torch.randn(2, 4, 8, 8),)),
           ("products", Products(), (torch.randn(3, 5, 6), torch.randn(5, 8))),
           ("attention", Attention(False), (torch.randn(2, 6, 16),)),
           ("attention_gqa", Attention(True), (torch.randn(2, 6, 16),)),
           ("aliases", Aliases(), (torch.randn(4, 4),))]
    for _, model, _ in out:
        model.eval()
    return out


# --- the reference: torch.fx.Interpreter on the same graph, in this root's PyTorch -------------

def tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors(item)


def storages(value) -> dict:
    """data_ptr -> nbytes of the storages `value` holds (the reference's own way to tell them)."""
    return {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors(value)}


class UncountedAttention(TorchDispatchMode):
    """Inside FlopCounterMode: each attention kernel its registry has no formula for (the CPU
    flash kernel PyTorch picks here, for F.scaled_dot_product_attention and for
    nn.MultiheadAttention called with need_weights=False) counted as sdpa_flop_count counts it on
    the kernel's own query, key and value, the formula FlopCounterMode has for the flash,
    efficient and cudnn kernels."""

    def __init__(self):
        super().__init__()
        self.flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if "scaled_dot_product" in func.name() and func.overloadpacket not in flop_registry:
            q, k, v = (t.shape for t in args[:3])
            self.flops += sdpa_flop_count(q, k, v)
        return func(*args, **(kwargs or {}))


class Reference(torch.fx.Interpreter):
    """Interpreter.run, noting for each node: its new storage, whether it is a view or in-place,
    what FlopCounterMode counts, and the env's live values once it (and the frees after it) ran.
    """

    def __init__(self, gm, weights: set):
        super().__init__(gm)
        self.weights, self.previous = weights, None
        self.weight_storages: set = set()
        self.bytes, self.alias, self.flops, self.live, self.operands = {}, {}, {}, {}, {}
        self.peak = (None, 0, [])  # (node, bytes, [(value, its share), the largest first])

    def run_node(self, n):
        if self.previous is not None:  # the env as run() left it after the previous node
            seen, alive = set(self.weight_storages), []
            for node, value in self.env.items():  # in the order the values were made
                if node.users and node.op != "get_attr" and node.name not in self.weights:
                    held = storages(value)
                    alive.append((node.name, sum(s for key, s in held.items() if key not in seen)))
                    seen.update(held)
            total = self.live[self.previous] = sum(share for _, share in alive)
            if total > self.peak[1]:
                self.peak = (self.previous, total, sorted(alive, key=lambda a: -a[1]))
        operands = self.fetch_args_kwargs_from_env(n) if n.op not in ("placeholder",
                                                                       "get_attr") else ()
        versions = {t.untyped_storage().data_ptr(): t._version for t in tensors(operands)}
        with FlopCounterMode(display=False) as counter, UncountedAttention() as attention:
            out = super().run_node(n)
        self.flops[n.name] = counter.get_total_flops() + attention.flops
        inputs, outputs = storages(operands), storages(out)
        self.bytes[n.name] = sum(s for key, s in outputs.items() if key not in inputs)
        shared = [t for t in tensors(out) if t.untyped_storage().data_ptr() in inputs]
        written = any(t._version != versions.get(t.untyped_storage().data_ptr()) for t in shared)
        # The output node makes nothing: it hands the graph's values back.
        self.alias[n.name] = ("in-place" if written else "view") if shared and \
            n.op != "output" else ""
        if n.op == "get_attr" or n.name in self.weights:
            self.weight_storages.update(storages(out))
        self.operands[n.name] = operands
        self.previous = None if n.op == "output" else n.name
        if n.op == "output":
            self.live[n.name] = 0
        return out


def program_inputs(ep):
    """Every placeholder's value in order, as ep.module() feeds them; the weights' names."""
    users = iter(torch.utils._pytree.tree_leaves(ep.example_inputs))
    values, weights = [], set()
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    for node, spec in zip(placeholders, ep.graph_signature.input_specs):
        kind = spec.kind.name
        if kind in ("PARAMETER", "BUFFER"):
            value = ep.state_dict.get(spec.target)
            values.append(ep.constants[spec.target] if value is None else value)
        elif kind in ("CONSTANT_TENSOR", "CUSTOM_OBJ"):
            values.append(ep.constants[spec.target])
        else:
            values.append(next(users))
            continue
        weights.add(node.name)
    return values, weights


def reference_of_program(path):
    ep = torch.export.load(path)
    values, weights = program_inputs(ep)
    reference = Reference(ep.graph_module, weights)
    with torch.enable_grad():  # as ep.module() runs when a person calls it
        reference.run(*values)
    return reference


# --- what the engines say ------------------------------------------------------------------------

def csv_rows(text: str) -> dict:
    rows = list(csv.DictReader(io.StringIO(text)))
    return {r["node"]: r for r in rows}, list(rows[0].keys()) if rows else []


def compare_peak(label, reference, peak):
    """What the engine found alive at the peak ((node, bytes, [(value, share)])) against the
    reference's env there."""
    check(peak == reference.peak, f"{label}: alive at the peak {peak}, PyTorch's "
                                  f"{reference.peak}")
    check(reference.peak[1] > 0, f"{label}: a peak of {reference.peak} checks nothing")


def printed_peak(label, stdout: str, peak):
    """The printed table names the largest values alive at the peak, in order."""
    lines = stdout.splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith("alive there")), None)
    check(at is not None, f"{label}: no 'alive there' in {stdout[-300:]}")
    if at is not None:
        names = [line.split()[0] for line in lines[at + 1:at + 11]
                 if line.startswith("  ") and not line.startswith("  and ")]
        check(names == [v for v, _ in peak[2][:10]],
              f"{label}: printed alive {names}, the peak's {peak[2][:10]}")


def compare(label, reference, rows, aliases=None):
    """Every node's figures against the reference's."""
    check(set(rows) == set(reference.bytes),
          f"{label}: nodes {sorted(set(rows) ^ set(reference.bytes))} in one only")
    for name in reference.bytes:
        row = rows.get(name)
        if row is None:
            continue
        for column, expected in (("bytes", reference.bytes[name]),
                                 ("live_bytes", reference.live.get(name, 0)),
                                 ("flops", reference.flops[name])):
            check(int(row[column]) == expected,
                  f"{label}: {name} {column} {row[column]}, PyTorch's {expected}")
        if aliases is not None:
            check(aliases.get(name, "") == reference.alias[name],
                  f"{label}: {name} is {aliases.get(name)!r}, PyTorch's {reference.alias[name]!r}")


def cpp_engine(path, folder, *options):
    table = Path(folder) / "cpp.csv"
    graph = Path(folder) / "cpp.json"
    run = fxtrace("run", path, "--profile", RUNS, "--csv", table, "--json", graph, *options)
    check(run.returncode == 0, f"fxtrace run --profile on {path} exited {run.returncode}: "
                               f"{run.stderr[-600:]}")
    check("peak live set:" in run.stdout and f"over {RUNS} runs" in run.stdout,
          f"fxtrace run --profile printed no cost table: {run.stdout[-400:]}")
    document = json.loads(graph.read_text())
    aliases = {n["name"]: n.get("meta", {}).get("alias", "") for n in document["nodes"]}
    rows, columns = csv_rows(table.read_text())
    p = document["peak_live"]
    peak = (p["node"], p["bytes"], [(v["node"], v["bytes"]) for v in p["values"]])
    printed_peak("fxtrace", run.stdout, peak)
    return rows, columns, aliases, peak


def python_engine(path, folder):
    table = Path(folder) / "python.csv"
    run = subprocess.run([sys.executable, "-m", "fxview", "run", str(path), "--profile",
                          str(RUNS), "--csv", str(table)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=PACKAGE), timeout=600)
    check(run.returncode == 0, f"python3 -m fxview run --profile on {path} exited "
                               f"{run.returncode}: {run.stderr[-600:]}")
    check("peak live set:" in run.stdout, f"no cost table printed: {run.stdout[-400:]}")
    rows, columns = csv_rows(table.read_text())
    # The engine's own records say what the CSV cannot: view or in-place.
    session = ProgramSession(load_program(str(path), []), str(path))
    with session.run_mode():
        session.stepper.run_to_end()
    aliases = {name: r.aliasKind for name, r in session.stepper.records.items()}
    p = session.stepper.peak
    peak = (p.node, p.bytes, [(v.node, v.bytes) for v in p.values])
    printed_peak("python3 -m fxview", run.stdout, peak)
    return rows, columns, aliases, peak


COLUMNS = ["node", "op", "target", "scope", "time_us", "bytes", "live_bytes", "flops"]


def check_program(name, model, args, folder):
    """`model` exported and saved: both engines' figures for every node against the reference;
    the nodes' FLOPs sum to what FlopCounterMode counts for the whole of ep.module()'s call."""
    path = Path(folder) / f"{name}.pt2"
    torch.export.save(torch.export.export(model, args), path)
    reference = reference_of_program(path)
    with FlopCounterMode(display=False) as whole, UncountedAttention() as attention, \
            torch.enable_grad():
        torch.export.load(path).module()(*args)
    total, counted = sum(reference.flops.values()), whole.get_total_flops() + attention.flops
    check(total == counted, f"{name}: the nodes' FLOPs sum to {total}, the whole call's {counted}")
    for label, engine in (("fxtrace", cpp_engine), ("python engine", python_engine)):
        rows, columns, aliases, peak = engine(path, folder)
        check(columns == COLUMNS, f"{label} {name}: CSV columns {columns}")
        compare(f"{label} {name}.pt2", reference, rows, aliases)
        compare_peak(f"{label} {name}.pt2", reference, peak)
        times = [float(r["time_us"]) for r in rows.values()]
        check(all(t >= 0 for t in times) and sum(times) > 0,
              f"{label} {name}: times {times[:5]}")
    noted = {n: reference.alias[n] for n in reference.alias if reference.alias[n]}
    print(f"ok   {name}.pt2: {len(reference.bytes)} nodes, {total:,} FLOPs, peak live "
          f"{reference.peak[1]:,} B after {reference.peak[0]} ({len(reference.peak[2])} values)"
          f"{f', aliases {noted}' if len(noted) < 6 else f', {len(noted)} aliases'}")


def programs(folder):
    for name, model, args in models():
        check_program(name, model, args, folder)


def stepped_symbolic(name, model, args):
    """symbolic_trace's graph of `model` stepped by the Python engine's Stepper (as fxview.show
    runs it), every node's figures against the reference's, which runs with grad on (as a
    person's call does: nn.MultiheadAttention then keeps off its fast path); the reference."""
    from fxview.stepper import Stepper

    reference = Reference(torch.fx.symbolic_trace(model), set())
    with torch.enable_grad():
        reference.run(*args)
    stepper = Stepper(torch.fx.symbolic_trace(model), list(args))
    with torch.no_grad():
        stepper.run_to_end()
    check(stepper.finished, f"the stepper stopped on {name}: {stepper.failure}")
    rows = {n: {"bytes": r.newBytes, "live_bytes": r.liveBytes, "flops": r.flops}
            for n, r in stepper.records.items()}
    compare(f"python engine {name} (symbolic_trace)", reference, rows)
    return reference


def multihead_attention(folder):
    """nn.MultiheadAttention as a call_module, in the Python engine's stepper (a symbolic_trace
    graph, as fxview.show runs it) and in the C++ engine (a torch.jit.trace archive), against
    FlopCounterMode on the same call with grad on: F.multi_head_attention_forward's math path,
    its fast path (one kernel FlopCounterMode cannot see into) off."""
    model, args = Attending(), (torch.randn(2, 5, 16), torch.randn(7, 2, 12))
    reference = stepped_symbolic("attending", model, args)
    check(reference.flops["attn1"] > 0 and reference.flops["attn2"] > 0,
          f"FlopCounterMode counted {reference.flops}")
    path = Path(folder) / "attending_traced.pt"
    torch.jit.trace(model, args).save(str(path))
    torch.save(args, Path(folder) / "attending_input.pt")
    rows, _, _, _ = cpp_engine(path, folder, "--input",
                               f"file:{Path(folder) / 'attending_input.pt'}")
    for name in ("attn1", "attn2"):
        check(name in rows and int(rows[name]["flops"]) == reference.flops[name],
              f"fxtrace attending_traced.pt: {name} {rows.get(name, {}).get('flops')} FLOPs, "
              f"FlopCounterMode's {reference.flops[name]}")
    print(f"ok   nn.MultiheadAttention: {reference.flops['attn1']} and "
          f"{reference.flops['attn2']} FLOPs in both engines")


def torchscript(folder):
    """A traced archive in the C++ engine against symbolic_trace's graph of the same module."""
    model, args = Convolutions().eval(), (torch.randn(2, 4, 8, 8),)
    path = Path(folder) / "convolutions_traced.pt"
    torch.jit.trace(model, args).save(str(path))
    torch.save(args[0], Path(folder) / "input.pt")
    reference = Reference(torch.fx.symbolic_trace(model), set())
    with torch.no_grad():
        reference.run(*args)
    rows, _, aliases, peak = cpp_engine(path, folder, "--input",
                                        f"file:{Path(folder) / 'input.pt'}")
    compare("fxtrace convolutions_traced.pt", reference, rows, aliases)
    compare_peak("fxtrace convolutions_traced.pt", reference, peak)
    check(reference.alias.get("relu") == "in-place", f"relu is {reference.alias.get('relu')!r}")
    print(f"ok   convolutions_traced.pt: {len(rows)} nodes")


def small_vit():
    """torchvision's VisionTransformer (vit_b_16's class) at a size a test runs in a second:
    two encoder blocks, each an nn.MultiheadAttention called with need_weights=False."""
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                             hidden_dim=64, mlp_dim=128, num_classes=10).eval()


def torchvision_models(folder):
    """Models nobody here wrote, judged whole: torchvision's resnet50 and a VisionTransformer
    exported (both engines, every node and the peak); the ViT as symbolic_trace's graph in the
    Python engine's stepper and as a torch.jit.trace archive in the C++ engine, where each
    encoder block's attention is one call_module."""
    import torchvision

    torch.manual_seed(0)
    check_program("resnet50", torchvision.models.resnet50().eval(), (torch.randn(1, 3, 64, 64),),
                  folder)
    vit, args = small_vit(), (torch.randn(2, 3, 32, 32),)
    check_program("vit", vit, args, folder)
    reference = stepped_symbolic("vit", vit, args)
    attention = [n for n in reference.flops if n.endswith("self_attention")]
    check(len(attention) == 2 and all(reference.flops[n] > 0 for n in attention),
          f"the ViT's attention calls {attention}: {[reference.flops[n] for n in attention]}")
    path, inputs = Path(folder) / "vit_traced.pt", Path(folder) / "vit_input.pt"
    # Its check_trace retraces without grad, where nn.MultiheadAttention takes its fast path.
    torch.jit.trace(vit, args, check_trace=False).save(str(path))
    torch.save(args[0], inputs)
    rows, _, _, _ = cpp_engine(path, folder, "--input", f"file:{inputs}")
    traced = {n: int(r["flops"]) for n, r in rows.items() if n.endswith("self_attention")}
    check(traced == {n: reference.flops[n] for n in attention},
          f"fxtrace vit_traced.pt: attention's FLOPs {traced}, FlopCounterMode's "
          f"{ {n: reference.flops[n] for n in attention} }")
    total = sum(int(r["flops"]) for r in rows.values())
    check(total == sum(reference.flops.values()),
          f"fxtrace vit_traced.pt: {total} FLOPs in all, FlopCounterMode's "
          f"{sum(reference.flops.values())}")
    print(f"ok   the ViT's attention as call_modules: {sum(reference.flops.values()):,} FLOPs in "
          f"both engines")


def trace_ranges(trace: dict) -> dict:
    """The profiler's own trace read as a person's tool reads it: for each fxview::NODE range,
    the names of the operator events (cat cpu_op) that lie inside it on its thread."""
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X" and "dur" in e]
    operators = [e for e in events if e.get("cat") == "cpu_op"]
    out = {}
    for r in events:
        if r.get("cat") != "user_annotation" or not r["name"].startswith("fxview::"):
            continue
        start, end = r["ts"] - 0.001, r["ts"] + r["dur"] + 0.001
        out.setdefault(r["name"][len("fxview::"):], []).extend(
            o["name"] for o in operators
            if o["tid"] == r["tid"] and start <= o["ts"] and o["ts"] + o["dur"] <= end)
    return out


def profiler_trace(folder):
    """One run under torch.profiler (--trace; Profile's operators over the wire): the Chrome
    trace it writes has a range per node holding the operators that node ran, the aten operator
    each call_function names among them and none of fxview's own summaries; the operators each
    node reports are the ones in its range."""
    for name, model, args in models():
        path = Path(folder) / f"{name}.pt2"  # programs() saved it
        ep = torch.export.load(path)
        trace = Path(folder) / f"{name}.trace.json"
        run = subprocess.run([sys.executable, "-m", "fxview", "run", str(path), "--profile", "1",
                              "--trace", str(trace)], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=PACKAGE), timeout=600)
        check(run.returncode == 0 and "operators (one torch.profiler run" in run.stdout,
              f"--trace on {name}: {run.returncode} {run.stderr[-400:]}")
        ranges = trace_ranges(json.loads(trace.read_text()))
        for node in ep.graph.nodes:
            if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
                continue
            namespace, _, op = node.target._schema.name.partition("::")
            check(f"{namespace}::{op}" in ranges.get(node.name, []),
                  f"{name}: {node.name}'s range holds {ranges.get(node.name)}, not "
                  f"{namespace}::{op}")
        summaries = {n: ops for n, ops in ranges.items() if "aten::aminmax" in ops}
        check(not summaries, f"{name}: fxview's summaries inside node ranges: {summaries}")
        # Over the wire, as the window asks: each node's operators are its range's.
        engine = Engine()
        engine.open(path)
        answer = engine.request(wire.PROFILE, wire.ProfileRequest(runs=1, operators=True))
        profiled = answer[wire.PROFILED][-1]
        check(not profiled.error and profiled.runs == 1, f"{name}: Profile said {profiled.error}")
        wired = trace_ranges(json.loads(profiled.trace))
        for node, rows in profiled.operators.items():
            check(sorted({r.name for r in rows}) == sorted(set(wired.get(node, []))),
                  f"{name}: {node} reports {[r.name for r in rows]}, its range holds "
                  f"{wired.get(node)}")
            check(all(r.selfUs >= 0 and r.calls >= 1 for r in rows), f"{name}: {node} {rows}")
        check(set(profiled.operators) <= {n.name for n in ep.graph.nodes},
              f"{name}: operators of nodes the graph lacks")
        check(engine.close() == 0, "the engine did not end when its stdin closed")
    print(f"ok   torch.profiler traces: every aten call in its node's range")


def laid_operators(stdout: str) -> dict:
    """`fxtrace operators`'s table read back: each node's operator names."""
    out = {}
    for line in stdout.splitlines()[2:]:
        parts = re.split(r"\s{2,}", line.strip())
        if len(parts) == 3:
            out[parts[0]] = [item.split(" ")[0] for item in parts[2].split(", ")]
    return out


def persons_trace(folder):
    """A trace the person made: torch.profiler around one call of ep.module() (after a first
    call), laid onto the graph by `fxtrace operators` in run order, gives each node the
    operators fxview's own ranges hold for it (the profiler trace group's --trace files, another
    run); fxview's own trace laid the same way, by its ranges, gives them too."""
    for name, _, _ in models():
        path = Path(folder) / f"{name}.pt2"  # programs() saved it
        ep = torch.export.load(path)
        module = ep.module()
        args, kwargs = ep.example_inputs
        module(*args, **kwargs)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            module(*args, **kwargs)
        theirs = Path(folder) / f"{name}.theirs.json"
        prof.export_chrome_trace(str(theirs))
        ranges = trace_ranges(json.loads((Path(folder) / f"{name}.trace.json").read_text()))
        callers = [n.name for n in ep.graph.nodes if n.op == "call_function"
                   and isinstance(n.target, torch._ops.OpOverload)]
        for trace, how in ((theirs, "in their run order"), (Path(folder) / f"{name}.trace.json",
                                                           "by fxview's ranges in it")):
            run = fxtrace("operators", path, trace)
            check(run.returncode == 0 and
                  f"on {len(callers)} of {len(callers)} nodes that call an operator ({how})"
                  in run.stdout, f"fxtrace operators {name} {trace.name}: {run.returncode} "
                                 f"{run.stdout[:300]} {run.stderr[-300:]}")
            laid = laid_operators(run.stdout)
            for node in callers:
                check(sorted(set(laid.get(node, []))) == sorted(set(ranges.get(node, []))),
                      f"{name} {trace.name}: {node} laid {laid.get(node)}, fxview's range "
                      f"holds {ranges.get(node)}")
    bad = Path(folder) / "not_a_trace.json"
    bad.write_text('{"traceEvents": [' * 200)
    run = fxtrace("operators", Path(folder) / "convolutions.pt2", bad)
    check(run.returncode == 1 and "nests JSON more than 64 deep" in run.stderr,
          f"fxtrace operators on a hostile file: {run.returncode} {run.stderr[-300:]}")
    print("ok   a trace of ep.module() laid onto the nodes: each node's operators are its range's")


def refusals():
    for bad in ("0", "x", "-3"):
        run = fxtrace("run", "example:tinynet", "--profile", bad)
        check(run.returncode == 2 and "--profile needs" in run.stderr,
              f"fxtrace --profile {bad}: {run.returncode} {run.stderr}")
        run = subprocess.run([sys.executable, "-m", "fxview", "run", "x.pt2", "--profile", bad],
                             capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=PACKAGE))
        check(run.returncode == 2 and "--profile needs" in run.stderr,
              f"python3 -m fxview run --profile {bad}: {run.returncode} {run.stderr}")


if __name__ == "__main__":
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        sys.exit(run_groups([("programs", programs, (folder,)),
                             ("torchscript", torchscript, (folder,)),
                             ("multihead attention", multihead_attention, (folder,)),
                             ("torchvision", torchvision_models, (folder,)),
                             ("profiler trace", profiler_trace, (folder,)),
                             ("a person's trace", persons_trace, (folder,)),
                             ("refusals", refusals, ())]))
