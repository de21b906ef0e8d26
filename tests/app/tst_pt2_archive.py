"""PT2 archives written by PyTorch 2.14 (issue 36), opened by this build's fxtrace: the graph text
byte-equal to print(torch.export.load(f).graph) of the PyTorch that wrote the file, and the run's
outputs equal to its ep.module() (at the saved input and, for a dynamic batch, at another shape
inside the range). The archives and the oracle's files come from
tests/fixtures/pt2_archive_models.py, run by scripts/run-tests in the sid root into
$FXVIEW_PT2_FIXTURES; this test reads them with whatever PyTorch runs it."""

import json
import os
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from checks import fxtrace  # noqa: E402

FIXTURES = Path(os.environ["FXVIEW_PT2_FIXTURES"])
WRITTEN = (FIXTURES / "torch_version.txt").read_text().strip()  # the PyTorch that wrote them
# NAME (its own .pt2) or NAME.PROGRAM (program PROGRAM of NAME.pt2, opened as FILE:PROGRAM)
CASES = ["tiny", "tiny_zip64", "tiny_dynamic", "shared_storage", "conv_bf16", "two_programs.model",
         "two_programs.other",
         # higher-order ops (tests/fixtures/pt2_hop_models.py)
         "hop_cond", "hop_while", "hop_while_cond", "hop_scan", "hop_map", "hop_no_grad",
         "hop_autocast", "hop_effects", "hop_invoke_subgraph", "hop_auto_functionalized",
         "hop_auto_functionalized_v2",
         # an operator PyTorch 2.8 added
         "grouped_mm",
         # today's long tail (tests/fixtures/pt2_longtail_models.py): vmap's pre-dispatch calls,
         # complex numbers, nested inputs with constants, recurrent layers, a contrastive head
         "lt_vmap", "lt_vmap_bhqkv", "lt_complex", "lt_nested", "lt_rnn", "lt_clip_head"]
# The ATen operators a case calls that an older LibTorch lacks: where this PyTorch lacks them
# too, fxview's run must stop with a sentence instead of outputs.
NEWER_OPS = {"grouped_mm": ["_grouped_mm"]}
# Cases whose ops this file's PyTorch can run eagerly (their model class in
# pt2_archive_models.py, their weights in NAME.state.pt): where the build's LibTorch is not the
# one that wrote the fixture, the oracle is this PyTorch running the same ops (its kernels are
# the build's), not the writer's outputs. Debian's PyTorch 2.6 computes a bfloat16 conv2d through
# oneDNN 8.9 away from float64's on a CPU with avx512_bf16 (2.14: 0.005), and fxview on
# LibTorch 2.6 computes exactly what that PyTorch does.
EAGER_TWINS = {"conv_bf16": "ConvBlock"}
# Cases calling a person's own ops: fxtrace gets their library (tests/fixtures/ops/) with --ops.
OPS = os.environ.get("FXVIEW_TEST_OPS", "")
NEEDS_OPS = {"hop_auto_functionalized", "hop_auto_functionalized_v2"}


def equal(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return (isinstance(b, (tuple, list)) and len(a) == len(b)
                and all(equal(x, y) for x, y in zip(a, b)))
    return a == b


def shapes(args):
    """The shapes of a run's tensors, nested as ep.module() takes them, for a line of output."""
    if isinstance(args, torch.Tensor):
        return tuple(args.shape)
    if isinstance(args, dict):
        return {k: shapes(v) for k, v in args.items()}
    if isinstance(args, (tuple, list)):
        return [shapes(a) for a in args]
    return args


def model_of(case):
    name, _, program = case.partition(".")
    path = str(FIXTURES / f"{name}.pt2")
    return f"{path}:{program}" if program else path


def eager_twin(case, args):
    """What this PyTorch computes for `case` on `args`: its model run eagerly, in the dtype of
    its weights."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fixtures"))
    import pt2_archive_models

    state = torch.load(FIXTURES / f"{case}.state.pt")
    model = getattr(pt2_archive_models, EAGER_TWINS[case])().eval()
    model = model.to(next(iter(state.values())).dtype)
    model.load_state_dict(state)
    with torch.no_grad():
        return model(*args)


def check(case, failures):
    """Checks one case; returns whether it passed (its failures appended to `failures`)."""
    before = len(failures)
    model = model_of(case)
    ops = ["--ops", OPS] if case in NEEDS_OPS else []
    printed = fxtrace("graph", model, *ops)
    want = (FIXTURES / f"{case}.graph.txt").read_text()
    if printed.returncode != 0 or printed.stdout.rstrip("\n") != want.rstrip("\n"):
        failures.append(f"{case}: fxtrace graph differs from torch.export.load's graph:\n"
                        f"{printed.stdout}{printed.stderr}\n--- want ---\n{want}")
        return False
    print(f"ok   {case}: graph text equal")
    inputs = torch.load(FIXTURES / f"{case}.inputs.pt")
    outputs = torch.load(FIXTURES / f"{case}.outputs.pt")
    missing = [op for op in NEWER_OPS.get(case, []) if not hasattr(torch.ops.aten, op)]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (args, want_out) in enumerate(zip(inputs, outputs)):
            x = Path(tmp) / f"in{i}.pt"
            out = Path(tmp) / f"out{i}.pt"
            torch.save(tuple(args), x)
            ran = fxtrace("run", model, *ops, "--input", f"file:{x}", "--save-outputs", out)
            if missing:
                # This LibTorch lacks the op: the run stops with a sentence naming the op and
                # the PyTorch that exported the program.
                said = ran.stdout + ran.stderr
                if ran.returncode == 0 or missing[0] not in said or WRITTEN not in said:
                    failures.append(f"{case}: this LibTorch lacks aten.{missing[0]}, but the run "
                                    f"did not say so and name PyTorch {WRITTEN}:\n{said}")
                else:
                    print(f"ok   {case} input {i}: refused, naming {missing[0]} and {WRITTEN}")
                continue
            if ran.returncode != 0:
                failures.append(f"{case} input {i}: fxtrace run failed:\n{ran.stdout}{ran.stderr}")
                continue
            got = torch.load(out)
            if case in EAGER_TWINS and torch.__version__ != WRITTEN:
                want_out = eager_twin(case, args)
                print(f"     {case}: compared with PyTorch {torch.__version__}'s own kernels "
                      f"(written by {WRITTEN})")
            # ep.module() returns the single output of a one-output program bare.
            if isinstance(got, (tuple, list)) and not isinstance(want_out, (tuple, list)):
                got = got[0] if len(got) == 1 else got
            if not equal(got, want_out):
                failures.append(f"{case} input {i} ({shapes(args)}): outputs "
                                f"differ from ep.module()'s:\n{got}\n--- want ---\n{want_out}")
            else:
                print(f"ok   {case} input {i} {shapes(args)}: outputs equal")
    return len(failures) == before


# Inputs lt_nested's ep.module() refuses, and the sentence fxtrace must refuse each with: the path
# of the leaf that does not fit, or the constant export specialised away.
MISFITS = [
    ("a tuple where a list belongs",
     lambda a, p: (a, (p[0], tuple(p[1])), 2.0, "add"),
     "args[1][1] is a tuple of 1 but the program takes a list of 1 there"),
    ("a key missing", lambda a, p: ({"a": a["a"]}, p, 2.0, "add"),
     "args[0]['b'] is missing"),
    ("another float", lambda a, p: (a, p, 3.0, "add"),
     "Input 'scale' is 3.0 but the program was exported with 2.0 there"),
    ("another string", lambda a, p: (a, p, 2.0, "mul"),
     "Input 'mode' is 'mul' but the program was exported with 'add' there"),
]


def check_nested_misfits(failures):
    passed = 0
    feats, pair, _, _ = torch.load(FIXTURES / "lt_nested.inputs.pt")[0]
    with tempfile.TemporaryDirectory() as tmp:
        for what, make, sentence in MISFITS:
            x = Path(tmp) / "in.pt"
            torch.save(make(feats, pair), x)
            ran = fxtrace("run", FIXTURES / "lt_nested.pt2", "--input", f"file:{x}")
            if ran.returncode == 0 or sentence not in ran.stdout + ran.stderr:
                failures.append(f"lt_nested given {what}: wanted {sentence!r}:\n"
                                f"{ran.stdout}{ran.stderr}")
            else:
                passed += 1
                print(f"ok   lt_nested given {what}: refused, naming it")
    return passed


def main():
    print(f"fixtures written by PyTorch {WRITTEN}; checked with PyTorch {torch.__version__}")
    failures = []
    passed = sum(check(case, failures) for case in CASES)
    # Two programs and no name: torch.export.load's default, "model", with a note naming the
    # others; where no program is called "model", a sentence naming them all.
    opened = fxtrace("graph", FIXTURES / "two_programs.pt2")
    want = (FIXTURES / "two_programs.model.graph.txt").read_text()
    note = "holds 2 programs (model, other); this is model"
    if (opened.returncode != 0 or opened.stdout.rstrip("\n") != want.rstrip("\n")
            or note not in opened.stderr):
        failures.append(f"two_programs.pt2 without a name: {opened.stdout}{opened.stderr}")
    else:
        passed += 1
        print("ok   two_programs.pt2 without a name: opens model, noting other")
    refused = fxtrace("graph", FIXTURES / "two_named.pt2")
    if refused.returncode == 0 or "holding 2 programs (decoder, encoder)" not in refused.stderr:
        failures.append(f"two_named.pt2 without a name: {refused.stdout}{refused.stderr}")
    else:
        passed += 1
        print("ok   two_named.pt2 without a name: refused, naming both")
    # A dynamic batch: the graph's JSON (what the inspector shows) carries the symbol as
    # PyTorch prints it, and the run's shape is the size given.
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "graph.json"
        made = fxtrace("json", FIXTURES / "tiny_dynamic.pt2", "-o", out)
        nodes = json.loads(out.read_text())["nodes"] if made.returncode == 0 else []
        shapes = {n["name"]: n.get("symbolic_shape") for n in nodes}
        if shapes.get("x") != ["s77", "4"] or shapes.get("linear") != ["s77", "8"]:
            failures.append(f"tiny_dynamic: symbolic shapes {shapes}\n{made.stderr}")
        else:
            passed += 1
            print("ok   tiny_dynamic: x is [s77, 4], linear [s77, 8], as the program has them")
    # The input note says which sizes the dynamic batch takes (Dim("batch", min=2, max=64)).
    ran = fxtrace("run", FIXTURES / "tiny_dynamic.pt2")
    note = "input x: the archive's example input (5x4 float32); dimension 0 (s77) takes 2 to 64"
    if note not in ran.stdout + ran.stderr:
        failures.append(f"tiny_dynamic: no note {note!r}:\n{ran.stdout}{ran.stderr}")
    else:
        passed += 1
        print("ok   tiny_dynamic: the input note names s77's range")
    # A subgraph's get_attr holds what torch's holds, a GraphModule: its inputs and outputs
    # counted from the program (cond's true branch takes x and the two weights, returns one).
    ran = fxtrace("run", FIXTURES / "hop_cond.pt2")
    lines = [line.split(None, 3) for line in ran.stdout.splitlines()]
    attr = next((line for line in lines if line[:2] == ["true_graph_0", "get_attr"]), None)
    if attr is None or not attr[3].startswith("true_graph_0 (3 inputs, 1 output)"):
        failures.append(f"hop_cond: true_graph_0's value: {attr}\n{ran.stdout}{ran.stderr}")
    else:
        passed += 1
        print("ok   hop_cond: true_graph_0 is a GraphModule of 3 inputs and 1 output")
    # Without the library of the ops auto_functionalized calls, the graph still prints and the
    # run stops at the first call with a sentence naming the op and --ops.
    ran = fxtrace("run", FIXTURES / "hop_auto_functionalized_v2.pt2")
    said = ran.stdout + ran.stderr
    if ran.returncode == 0 or "fxview_test.scale_into.default" not in said or "--ops" not in said:
        failures.append(f"hop_auto_functionalized_v2 without --ops: {said}")
    else:
        passed += 1
        print("ok   hop_auto_functionalized_v2 without --ops: stops naming the op and --ops")
    passed += check_nested_misfits(failures)
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(CASES) + 6 + len(MISFITS) - passed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
