"""Two runs compared node by node (issue 26), `fxtrace compare`, against PyTorch 2.6 in this
process:
- Two checkpoints of torchvision's resnet18 that differ in one layer's weights: every node
  before that layer is equal (max |a-b| 0), the first divergence is that layer's node, and the
  metrics of every node equal those computed here from torch.fx's values of both models.
- float32 against bfloat16 (--dtype): the metrics of every node equal those computed here from
  torch.fx runs of the model and of model.to(torch.bfloat16) on x.to(torch.bfloat16).
- Local mode (--local) puts the largest error on the node whose own precision causes it (an exp
  of large numbers), and that node's local error is the one computed here by feeding B's exp
  A's input cast to bfloat16; accumulated, the error spreads past it.
- A quantized model (FX graph mode) against its fused float original: nodes pair by name, the
  quantize/dequantize nodes only B has are listed, the metrics equal those computed here from
  both GraphModules' values (B's dequantized).
- Another input (--seed-b) diverges at the input; bad usage gets a sentence and exit 2.
- Both runs draw the same random numbers: an active dropout compares by precision alone.
- Names pair only in the same scope: two models whose torch.fx counters drift apart (one more
  add early in B) pair block2's adds by scope and order, and list B's extra nodes.
- Python's fxview.compare (the live engine's comparison) gives the same metrics as fxtrace
  compare on the same model, accumulated and local; the live engine answers the window's
  Compare (another dtype, another device) with that JSON, and a sentence for what it cannot.
Run by CTest as python_compare (FXTRACE names the built fxtrace).
"""

import copy
import json
import math
import sys
import tempfile
import warnings
from pathlib import Path

import torch
import torch.fx
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, fuse_fx, prepare_fx

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, fxtrace, run_groups, values_in_fx  # noqa: E402

WORK = Path(tempfile.mkdtemp(prefix="tst_compare-"))
METRICS = ("max_abs", "mean_abs", "rel_l2", "cosine", "sqnr")


def numbers(value):
    """Every number a value holds as one flat float64 tensor (a tuple's tensors in order)."""
    if isinstance(value, torch.Tensor):
        t = value.dequantize() if value.is_quantized else value
        t = torch.view_as_real(t.resolve_conj()) if t.is_complex() else t
        return [t.to(torch.float64).reshape(-1)]
    if isinstance(value, (int, float, bool)):
        return [torch.tensor([float(value)], dtype=torch.float64)]
    if isinstance(value, (tuple, list)):
        return [p for item in value for p in numbers(item)]
    raise TypeError(type(value))


def metrics(a, b):
    """The comparison's metrics, as docs/comparison.md defines them."""
    x, y = torch.cat(numbers(a)), torch.cat(numbers(b))
    same = (x == y) | (x.isnan() & y.isnan())
    d = torch.where(same, torch.zeros_like(x), x - y)
    na, nb, nd = (torch.linalg.vector_norm(t).item() for t in (x, y, d))
    result = {"max_abs": d.abs().max().item(), "mean_abs": d.abs().mean().item()}
    if nd == 0:
        return {**result, "rel_l2": 0.0, "cosine": 1.0, "sqnr": math.inf}
    return {**result, "rel_l2": math.inf if na == 0 else nd / na,
            "cosine": 0.0 if na == 0 or nb == 0 else (x * y).sum().item() / (na * nb),
            "sqnr": 20 * math.log10(na / nd)}


def close(ours, theirs):
    ours = float(ours)  # "inf", "nan" arrive as strings
    if math.isinf(theirs) or math.isinf(ours):
        return ours == theirs
    return abs(ours - theirs) <= 1e-9 * max(1.0, abs(theirs))


def compare(*args):
    out = WORK / "comparison.json"
    run = fxtrace("compare", *args, "--json", out)
    report = json.loads(out.read_text()) if run.returncode == 0 else None
    return run, report


def check_metrics(what, report, values_a, values_b, name_b=lambda n: n):
    """Every compared node's metrics equal those computed here from both runs' values."""
    compared = [n for n in report["nodes"] if n["compared"]]
    check(compared, f"{what}: no node was compared")
    for n in compared:
        a, b = values_a.get(n["node"]), values_b.get(name_b(n["node_b"]))
        if not check(a is not None and b is not None,
                     f"{what}: {n['node']} / {n['node_b']} is not a node torch.fx ran"):
            continue
        expected = metrics(a, b)
        wrong = [m for m in METRICS if not close(n[m], expected[m])]
        check(not wrong, f"{what}: {n['node']}'s {wrong} are "
                         f"{[n[m] for m in wrong]}, PyTorch's {[expected[m] for m in wrong]}")


def vision_resnet18():
    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None).eval()


def check_checkpoints():
    a = vision_resnet18()
    b = copy.deepcopy(a)
    with torch.no_grad():
        b.layer3[1].conv2.weight.mul_(1.01)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)
    torch.save(x, WORK / "x.pt")
    for model, name in ((a, "a.pt"), (b, "b.pt")):
        torch.jit.trace(model, x).save(str(WORK / name))
    run, report = compare(WORK / "a.pt", WORK / "b.pt", "--input", f"file:{WORK / 'x.pt'}")
    check(run.returncode == 0, f"checkpoints: exit {run.returncode}: {run.stderr}")
    if not report:
        return
    last = run.stdout.strip().splitlines()[-1]
    check(last.startswith("First divergence: layer3_1_conv2 (rel_l2 "),
          f"checkpoints: the last line is {last!r}")
    check(report["first_divergence"] == "layer3_1_conv2",
          f"checkpoints: the JSON's first divergence is {report['first_divergence']}")
    names = [n["node"] for n in report["nodes"]]
    before = names[:names.index("layer3_1_conv2")] if "layer3_1_conv2" in names else []
    check(before and all(float(n["max_abs"]) == 0 for n in report["nodes"][:len(before)]),
          "checkpoints: a node before layer3_1_conv2 differs")
    check(not report["only_a"] and not report["only_b"],
          f"checkpoints: unmatched nodes {report['only_a']} {report['only_b']}")
    check_metrics("checkpoints", report, values_in_fx(a, x), values_in_fx(b, x))


def check_bfloat16():
    model = vision_resnet18()
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)
    torch.save(x, WORK / "x16.pt")
    torch.jit.trace(model, x).save(str(WORK / "r18.pt"))
    run, report = compare(WORK / "r18.pt", "--dtype", "bfloat16", "--input",
                          f"file:{WORK / 'x16.pt'}")
    check(run.returncode == 0, f"bfloat16: exit {run.returncode}: {run.stderr}")
    if not report:
        return
    check(len(report["nodes"]) == len(torch.fx.symbolic_trace(model).graph.nodes),
          f"bfloat16: {len(report['nodes'])} nodes compared")
    check(all(n["dtype_b"] == "bfloat16" for n in report["nodes"]),
          f"bfloat16: run B holds another dtype: {[n['dtype_b'] for n in report['nodes']]}")
    values_a = values_in_fx(model, x)
    b = copy.deepcopy(model).to(torch.bfloat16)
    values_b = values_in_fx(b, x.to(torch.bfloat16))
    check_metrics("bfloat16", report, values_a, values_b)


class ExpOfLarge(torch.nn.Module):
    """exp of numbers up to ~10: a rounding of its input by bfloat16 (2^-9 relative) becomes an
    error of |x| times that in its output, where the other nodes keep about 2^-9."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 16)
        self.fc2 = torch.nn.Linear(16, 8)

    def forward(self, x):
        h = self.fc1(x) * 8
        e = torch.exp(h)
        return self.fc2(e) * 0.5


def exp_archive():
    """ExpOfLarge (seed 0), its input, and fxtrace compare's arguments for it in bfloat16."""
    torch.manual_seed(0)
    model = ExpOfLarge().eval()
    x = torch.randn(32, 16)
    torch.save(x, WORK / "xe.pt")
    torch.jit.trace(model, x).save(str(WORK / "exp.pt"))
    return model, x, (WORK / "exp.pt", "--dtype", "bfloat16", "--input", f"file:{WORK / 'xe.pt'}")


def check_local():
    model, x, args = exp_archive()
    run, local = compare(*args, "--local")
    check(run.returncode == 0, f"local: exit {run.returncode}: {run.stderr}")
    run, accumulated = compare(*args)
    if not local or not accumulated:
        return
    rel = {n["node"]: float(n["rel_l2"]) for n in local["nodes"]}
    worst = max(rel, key=rel.get)
    check(worst == "exp", f"local: the largest error is at {worst}, not exp: {rel}")
    check(local["local"] and not accumulated["local"], "local: the JSON does not say the mode")
    values = values_in_fx(model, x)
    own = torch.exp(values["mul"].to(torch.bfloat16))  # B's exp fed A's input
    expected = metrics(values["exp"], own)["rel_l2"]
    check(close(rel["exp"], expected), f"local: exp's error is {rel['exp']}, PyTorch's {expected}")
    spread = {n["node"]: float(n["rel_l2"]) for n in accumulated["nodes"]}
    check(spread["fc2"] > 3 * rel["fc2"],
          f"local: fc2's accumulated error {spread['fc2']} is not well above its own {rel['fc2']}")


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1),
                                        torch.nn.BatchNorm2d(8), torch.nn.ReLU())
        self.branch = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.branch(x) + x)
        return self.fc(y.mean((2, 3)))


def check_quantized():
    torch.manual_seed(0)
    model = Small().eval()
    x = torch.randn(2, 3, 12, 12)
    torch.save(x, WORK / "xq.pt")
    fused = fuse_fx(copy.deepcopy(model))
    prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), (x,))
    for _ in range(4):
        prepared(torch.randn_like(x))
    quantized = convert_fx(prepared)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(fused).save(str(WORK / "float.pt"))
        torch.jit.script(quantized).save(str(WORK / "quant.pt"))
    run, report = compare(WORK / "float.pt", WORK / "quant.pt", "--input",
                          f"file:{WORK / 'xq.pt'}")
    check(run.returncode == 0, f"quantized: exit {run.returncode}: {run.stderr}")
    if not report:
        return
    paired = {n["node"] for n in report["nodes"] if n["compared"]}
    check({"stem_0", "branch", "fc", "output"} <= paired, f"quantized: paired only {paired}")
    check("quantize_per_tensor" in report["only_b"],
          f"quantized: quantize_per_tensor is not listed as B's alone: {report['only_b']}")
    fc = next(n for n in report["nodes"] if n["node"] == "fc")
    check(10 < float(fc["sqnr"]) < 60, f"quantized: fc's SQNR is {fc['sqnr']} dB")
    # Both are GraphModules already, taken as they are (a trace would go into fused modules).
    check_metrics("quantized", report, values_in_fx(fused, x), values_in_fx(quantized, x))


def check_other_input_and_usage():
    torch.jit.trace(ExpOfLarge().eval(), torch.randn(4, 16)).save(str(WORK / "e.pt"))
    run, report = compare(WORK / "e.pt", "--input", "4x16", "--seed-b", "1")
    check(run.returncode == 0 and report and report["first_divergence"] == "x",
          f"other input: {run.stdout}{run.stderr}")
    alone = fxtrace("compare", WORK / "e.pt")
    check(alone.returncode == 2 and "run B that differs" in alone.stderr,
          f"usage: compare without B: {alone.returncode} {alone.stderr}")
    bad = fxtrace("compare", WORK / "e.pt", "--dtype", "int8")
    check(bad.returncode == 2 and "--dtype takes" in bad.stderr, f"usage: {bad.stderr}")
    missing = fxtrace("compare", WORK / "e.pt", WORK / "missing.pt")
    check(missing.returncode == 1 and missing.stderr.startswith("Model B: "),
          f"usage: a missing B: {missing.returncode} {missing.stderr}")


def check_python_and_live():
    import socket
    import threading

    import fxview
    from fxview import fxgraph, wire
    from fxview.live import LiveEngine, Session

    model, x, args = exp_archive()
    for local in (False, True):
        run, ours = compare(*args, *(["--local"] if local else []))
        python = fxview.compare(model, (x,), dtype=torch.bfloat16, local=local)
        theirs = json.loads(python.to_json())
        check(ours and [n["node"] for n in ours["nodes"]] == [n["node"] for n in theirs["nodes"]],
              f"python (local={local}): other nodes than fxtrace's")
        if not ours:
            continue
        for a, b in zip(ours["nodes"], theirs["nodes"]):
            wrong = [m for m in METRICS if not close(a[m], float(b[m]))]
            check(not wrong, f"python (local={local}): {a['node']}'s {wrong}: fxtrace "
                             f"{[a[m] for m in wrong]}, fxview.compare {[b[m] for m in wrong]}")
    check(python.first_divergence() == "x" and str(python).splitlines()[-1].startswith(
        "First divergence: x (rel_l2 "), f"python: {str(python).splitlines()[-1]}")

    # The live engine, spoken to as the window speaks to it.
    view = fxgraph.choose_view(model, (x,), {}, None)
    window, served = socket.socketpair()
    engine = LiveEngine(Session(model, (x,), {}, view, "python:ExpOfLarge"), served)
    threading.Thread(target=engine.serve, daemon=True).start()
    stream = window.makefile("rb")
    check(wire.read_frame(stream)[0] == wire.HELLO, "live: no Hello")

    def ask(request):
        window.sendall(wire.frame(wire.COMPARE, wire.encode(request)))
        answer = None
        while (got := wire.read_frame(stream))[0] != wire.DONE:
            if got[0] == wire.COMPARISON:
                answer = wire.decode(got[1], wire.ComparisonAnswer)
        return answer

    answer = ask(wire.CompareRequest(dtype="bfloat16", local=True))
    check(answer and not answer.error, f"live: {answer}")
    if answer and not answer.error:
        got = json.loads(answer.json)
        for a, b in zip(got["nodes"], theirs["nodes"]):
            check(all(close(a[m], float(b[m])) for m in METRICS),
                  f"live: {a['node']} differs from fxview.compare's")
    answer = ask(wire.CompareRequest(device="cpu", dtype="float64"))
    check(answer and not answer.error and json.loads(answer.json)["first_divergence"] is None,
          f"live: B on the cpu in float64 diverges: {answer}")
    for request, words in ((wire.CompareRequest(device="nosuchdevice"), "cannot be used"),
                           (wire.CompareRequest(modelB="b.pt"), "compared with itself"),
                           (wire.CompareRequest(dtype="int8"), "not a floating dtype")):
        answer = ask(request)
        check(answer and words in answer.error, f"live: {request} answered {answer}")
    window.close()


class Dropping(torch.nn.Module):
    """A dropout left in training mode: each run draws its mask."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x)) * 2


def check_random():
    """Both runs draw the same random numbers: float32 against float64 of a model with an active
    dropout differs only by precision, in fxtrace and in Python."""
    torch.manual_seed(0)
    model = Dropping().train()
    x = torch.randn(8, 16)
    torch.save(x, WORK / "xd.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(model, x, check_trace=False).save(str(WORK / "drop.pt"))
    run, report = compare(WORK / "drop.pt", "--dtype", "float64", "--input",
                          f"file:{WORK / 'xd.pt'}")
    check(run.returncode == 0 and report and report["first_divergence"] is None,
          f"random: fxtrace's runs drew different masks: {run.stdout[-600:]}{run.stderr}")
    import fxview
    python = fxview.compare(model, (x,), dtype=torch.float64)
    check(python.first_divergence() is None,
          f"random: Python's runs drew different masks:\n{python}")


class Block(torch.nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.extra = extra

    def forward(self, x):
        x = x + 1
        return x * 3 + 1 if self.extra else x


class Blocks(torch.nn.Module):
    """Two blocks; with `extra`, block1 adds once more, so torch.fx's counter renames block2's
    add (add_1 in A, add_2 in B) and B's add_1 is block1's."""

    def __init__(self, extra=False):
        super().__init__()
        self.block1, self.block2 = Block(extra), Block()

    def forward(self, x):
        return self.block2(self.block1(x))


def check_scope_order():
    x = torch.randn(4, 4)
    torch.save(x, WORK / "xb.pt")
    for name, model in (("blocks_a.pt", Blocks()), ("blocks_b.pt", Blocks(extra=True))):
        torch.jit.trace(model, x).save(str(WORK / name))
    run, report = compare(WORK / "blocks_a.pt", WORK / "blocks_b.pt", "--input",
                          f"file:{WORK / 'xb.pt'}")
    check(run.returncode == 0 and report, f"scope order: {run.stdout}{run.stderr}")
    if not report:
        return
    pairs = {n["node"]: (n["node_b"], n["match"]) for n in report["nodes"]}
    check(pairs.get("add") == ("add", "name"), f"scope order: add paired as {pairs.get('add')}")
    check(pairs.get("add_1") == ("add_2", "scope order"),
          f"scope order: block2's add_1 paired as {pairs.get('add_1')}, not with B's add_2")
    check({"mul", "add_1"} <= set(report["only_b"]), f"scope order: only B {report['only_b']}")
    check_metrics("scope order", report, values_in_fx(Blocks(), x),
                  values_in_fx(Blocks(extra=True), x))
    # Python's fxview.compare pairs them by the same rules.
    import fxview
    python = json.loads(fxview.compare(Blocks(), (x,), other=Blocks(extra=True)).to_json())
    check([(n["node"], n["node_b"], n["match"]) for n in python["nodes"]] ==
          [(n["node"], n["node_b"], n["match"]) for n in report["nodes"]] and
          python["only_b"] == report["only_b"],
          f"scope order: Python paired {python['nodes']} only B {python['only_b']}")


def main():
    return run_groups([("checkpoints", check_checkpoints, ()),
                       ("bfloat16", check_bfloat16, ()),
                       ("local", check_local, ()),
                       ("quantized", check_quantized, ()),
                       ("other input and usage", check_other_input_and_usage, ()),
                       ("python and live", check_python_and_live, ()),
                       ("random", check_random, ()),
                       ("scope order", check_scope_order, ())])


if __name__ == "__main__":
    sys.exit(main())
