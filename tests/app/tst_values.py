"""Where the numbers go wrong, headless (issue 26), against PyTorch 2.6 in this process:
- `fxtrace run --save-value NODE FILE` writes the node's value as it was when the node ran,
  torch.equal to what torch.fx's Interpreter computed for that node (a node whose output a
  later in-place op changes keeps what it produced), for a model of our own and torchvision's
  resnet18 (a call_module node, a call_function node), and a value of each dtype (bfloat16,
  int32, bool, complex64, quint8 with its scale and zero point); a name the graph lacks is refused with a
  sentence.
- `fxtrace run --break-on nan` stops after the first node whose output holds a NaN or Inf: a
  log of a negative number stops at the log (every input finite: born there), with the line of
  the model's code; NaN already in the input stops at the first node, naming the input; a
  model without any runs to its end and exits 0.
- A run whose outputs hold NaN where forward's do is equal to forward (torch.equal is not).
- Pause reaches fxview-engine as a frame: an Interrupt sent behind a Continue stops it before a
  node (the run neither finished nor failed, and goes on to forward's outputs); one sent while
  nothing runs is dropped, and the next Continue runs to the end.
Run by CTest as python_values (FXTRACE names the built fxtrace).
"""

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.fx
import torchvision

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, fxtrace, run_groups, values_in_fx  # noqa: E402
from fxview import values, wire  # noqa: E402

WORK = Path(tempfile.mkdtemp(prefix="tst_values-"))


class LogOfLinear(torch.nn.Module):
    """A log of what a Linear gives: NaN where it is negative; relu's output is then changed
    in place."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        z = torch.log(y)
        w = z * 2
        return torch.relu(w).add_(1)


class Dtypes(torch.nn.Module):
    """A value of each kind --save-value must keep as it is: bfloat16, int32, bool, complex64,
    quint8 (scale and zero point with it)."""

    def forward(self, x):
        b = x.to(torch.bfloat16) * 3
        i = (x * 10).to(torch.int32)
        m = x > 0
        c = torch.complex(x, x * 2)
        q = torch.quantize_per_tensor(x, 0.1, 3, torch.quint8)
        return b, i, m, c, q.dequantize()


class Finite(torch.nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 3


def saved(model, x, name):
    archive, input_file = WORK / f"{name}.pt", WORK / f"{name}_input.pt"
    torch.jit.script(model).save(str(archive))
    torch.save(x, input_file)
    return archive, input_file


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.allclose(
        a, b, rtol=0, atol=0, equal_nan=True)


def check_saved_values():
    torch.manual_seed(0)
    model, x = LogOfLinear().eval(), torch.randn(3, 4)
    archive, input_file = saved(model, x, "log_of_linear")
    expected = values_in_fx(model, x)
    for node in ("fc", "log", "mul", "relu"):
        out = WORK / f"log_{node}.pt"
        run = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-value", node, out)
        if check(run.returncode == 0, f"--save-value {node}: {run.stderr}"):
            check(same(torch.load(out), expected[node]), f"--save-value {node}: not torch.fx's")
    # relu's value before add_ changed it in place: torch.fx's env holds the changed one.
    check(not torch.equal(expected["relu"], expected["add_"]), "the in-place case is no test")
    missing = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-value", "nope",
                      WORK / "nope.pt")
    check(missing.returncode == 1 and missing.stderr.startswith("The graph has no node 'nope'")
          and not (WORK / "nope.pt").exists(), f"a missing node: {missing.stderr!r}")

    torch.manual_seed(0)
    resnet, image = torchvision.models.resnet18(weights=None).eval(), torch.randn(1, 3, 64, 64)
    archive, input_file = saved(resnet, image, "resnet18")
    expected = values_in_fx(resnet, image)
    for node in ("layer2_0_conv1", "flatten"):
        out = WORK / f"resnet_{node}.pt"
        run = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-value", node, out)
        if check(run.returncode == 0, f"resnet18 --save-value {node}: {run.stderr}"):
            check(torch.equal(torch.load(out), expected[node]),
                  f"resnet18 --save-value {node}: not torch.fx's")
    torch.manual_seed(0)
    model, x = Dtypes().eval(), torch.randn(2, 3)
    archive, input_file = saved(model, x, "dtypes")
    expected = values_in_fx(model, x)
    for node in ("mul", "to_1", "gt", "complex_1", "quantize_per_tensor"):
        out = WORK / f"dtypes_{node}.pt"
        run = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-value", node, out)
        if not check(run.returncode == 0, f"--save-value {node}: {run.stderr}"):
            continue
        got, want = torch.load(out), expected[node]
        equal = got.dtype == want.dtype and (
            torch.equal(got.int_repr(), want.int_repr()) and got.q_scale() == want.q_scale()
            and got.q_zero_point() == want.q_zero_point() if want.is_quantized
            else torch.equal(got, want))
        check(equal, f"--save-value {node}: {got.dtype} is not torch.fx's {want.dtype} value")
    print("done --save-value: own model (fc, log, mul, relu before add_), resnet18 "
          "(layer2_0_conv1, flatten) against torch.fx's Interpreter")


def check_break_on_nan():
    torch.manual_seed(0)
    model, x = LogOfLinear().eval(), torch.randn(3, 4)
    assert torch.isnan(torch.log(model.fc(x))).any() and not torch.isnan(model.fc(x)).any()
    archive, input_file = saved(model, x, "log_of_linear_nan")
    run = fxtrace("run", archive, "--input", f"file:{input_file}", "--break-on", "nan")
    nans = int(torch.isnan(torch.log(model.fc(x))).sum())
    report = [line for line in run.stdout.splitlines() if line.startswith("Stopped at ")]
    check(run.returncode == 1 and report == [
        f"Stopped at log: its output holds {nans} NaN value{'s' if nans != 1 else ''}; every "
        "input it took was finite, so they were born here."],
          f"--break-on nan: exit {run.returncode}\n{run.stdout}{run.stderr}")
    check("z = torch.log(y)" in run.stdout, f"--break-on nan names no source line:\n{run.stdout}")

    bad = x.clone()
    bad[0, 0] = float("nan")
    torch.save(bad, WORK / "bad_input.pt")
    run = fxtrace("run", archive, "--input", f"file:{WORK / 'bad_input.pt'}", "--break-on", "nan")
    check(run.returncode == 1 and "Stopped at x: its output holds 1 NaN value" in run.stdout,
          f"NaN in the input: {run.stdout}")

    archive, input_file = saved(Finite(), x, "finite")
    run = fxtrace("run", archive, "--input", f"file:{input_file}", "--break-on", "nan")
    check(run.returncode == 0 and "Stopped at" not in run.stdout and
          "Outputs equal: True" in run.stdout, f"a finite model: {run.stdout}{run.stderr}")
    refused = fxtrace("run", archive, "--break-on", "zero")
    check(refused.returncode == 2 and "--break-on takes nan" in refused.stderr,
          f"--break-on zero: {refused.stderr!r}")
    print("done --break-on nan: the log (born there), the input (NaN given), a finite model")


def check_nan_outputs_equal_forward():
    torch.manual_seed(0)
    model, x = LogOfLinear().eval(), torch.randn(3, 4)
    archive, input_file = saved(model, x, "nan_output")
    assert torch.isnan(model(x)).any()
    run = fxtrace("run", archive, "--input", f"file:{input_file}")
    check(run.returncode == 0 and "Outputs equal: True" in run.stdout,
          f"NaN outputs where forward has them: {run.stdout[-300:]}{run.stderr}")
    print("done outputs holding NaN where forward's do, against forward")


class Doubled(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Engine:
    """fxview-engine spoken to as the window speaks to it (python/fxview/wire.py)."""

    def __init__(self):
        self.proc = subprocess.Popen([os.environ["FXVIEW_ENGINE"], "--unconfined"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        kind, payload = wire.read_frame(self.proc.stdout)
        assert kind == wire.HELLO

    def ask(self, kind, message=None):
        """The answers to one request, up to its Done: [(kind, payload)]."""
        self.send(wire.frame(kind, wire.encode(message) if message else b""))
        return self.answers()

    def saved_file(self, request):
        """A SaveValue's answer: the file its pieces make, or the error sentence (bytes, str)."""
        pieces = [wire.decode(payload, wire.SavedValue)
                  for kind, payload in self.ask(wire.SAVE_VALUE, request)
                  if kind == wire.VALUE_SAVED]
        assert pieces and all(p.more for p in pieces[:-1]) and not pieces[-1].more, pieces
        return b"".join(p.data for p in pieces), pieces[-1].error

    def send(self, *frames):
        """Frames written in one go, none waited for."""
        self.proc.stdin.write(b"".join(frames))
        self.proc.stdin.flush()

    def answers(self):
        """What comes up to the next Done: [(kind, payload)]."""
        got = []
        while (frame := wire.read_frame(self.proc.stdout))[0] != wire.DONE:
            got.append(frame)
        return got

    def answer(self, kind, message, wanted, payload_type):
        for got_kind, payload in self.ask(kind, message):
            if got_kind == wanted:
                return wire.decode(payload, payload_type)
        raise AssertionError(f"no answer of kind {wanted}")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def as_tensor(slice_, dtype):
    """A slice's numbers as a tensor of planes x rows x columns, in the value's dtype."""
    r = slice_.request
    shape = (r.planeCount, r.rowCount, r.colCount)
    if slice_.imags:
        return torch.complex(torch.tensor(slice_.reals, dtype=torch.float64),
                             torch.tensor(slice_.imags, dtype=torch.float64)).reshape(shape).to(dtype)
    if slice_.reals:
        return torch.tensor(slice_.reals, dtype=torch.float64).reshape(shape).to(dtype)
    return torch.tensor(slice_.ints, dtype=torch.int64).reshape(shape).to(dtype)


def request(node, index, plane=-1, row=-1, col=-1, starts=(0, 0, 0), counts=(1, 1, 1), item=()):
    return wire.ValueSliceRequest(node=node, index=list(index), item=list(item),
                                  planeAxis=plane, rowAxis=row, colAxis=col,
                                  planeStart=starts[0], rowStart=starts[1], colStart=starts[2],
                                  planeCount=counts[0], rowCount=counts[1], colCount=counts[2])


def check_value_slices():
    """Slices the Values view asks for, from fxview-engine (C++) and from the live engine's
    slicer (Python), equal to the same indexing of torch.fx's values."""
    torch.manual_seed(0)
    model, x = torchvision.models.resnet18().eval(), torch.randn(1, 3, 64, 64)
    archive, input_file = WORK / "resnet18_values.pt", WORK / "resnet18_values_input.pt"
    torch.jit.trace(model, x).save(str(archive))
    torch.save(x, input_file)
    expected = values_in_fx(model, x)
    engine = Engine()
    try:
        engine.ask(wire.OPEN, wire.OpenRequest(source=str(archive),
                                               inputs=[wire.InputSpec(file=str(input_file))]))
        engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RUN_TO_END))
        v = expected["layer1_0_conv1"]  # [1, 64, 16, 16]
        cases = [
            ("rows x columns at channel 5", request("layer1_0_conv1", [0, 5, 0, 0], row=2, col=3,
                                                     counts=(1, 16, 16)),
             v[0, 5].reshape(1, 16, 16)),
            ("channels as planes", request("layer1_0_conv1", [0, 0, 0, 0], plane=1, row=2, col=3,
                                           counts=(64, 16, 16)), v[0]),
            ("transposed window", request("layer1_0_conv1", [0, 0, 7, 0], row=3, col=1,
                                          starts=(0, 2, 10), counts=(1, 5, 20)),
             v[0, 10:30, 7, 2:7].T.reshape(1, 5, 20)),
            ("one row of a 2-D value", request("flatten", [0, 0], col=1, counts=(1, 1, 512)),
             expected["flatten"][0].reshape(1, 1, 512)),
        ]
        for what, asked, want in cases:
            got = engine.answer(wire.VALUE_REQUEST, asked, wire.VALUES, wire.ValueSlice)
            check(not got.error, f"{what}: {got.error}")
            if not got.error:
                check(same(as_tensor(got, want.dtype), want.contiguous()),
                      f"{what}: fxview-engine's slice differs from torch.fx's value")
            live = values.slice_value(v if asked.node == "layer1_0_conv1"
                                      else expected["flatten"], asked)
            check(same(as_tensor(live, want.dtype), want.contiguous()),
                  f"{what}: the live engine's slice differs from torch.fx's value")
        weight = engine.answer(wire.VALUE_REQUEST, wire.ValueSliceRequest(
            node="layer1_0_conv1", weight="weight", index=[0, 0, 1, 1], rowAxis=0, colAxis=1,
            rowCount=64, colCount=64), wire.VALUES, wire.ValueSlice)
        check(not weight.error and same(as_tensor(weight, torch.float32),
                                        model.layer1[0].conv1.weight[:, :, 1, 1].reshape(1, 64, 64)),
              f"the weight of layer1_0_conv1: {weight.error}")
        gone = engine.answer(wire.VALUE_REQUEST, request("nothing", []), wire.VALUES,
                             wire.ValueSlice)
        check("no node 'nothing'" in gone.error, f"a missing node: {gone.error!r}")
        # Saved as .npy, read by NumPy's own reader; bfloat16 refused with a sentence.
        data, error = engine.saved_file(wire.SaveValueRequest(
            value=wire.ValueSliceRequest(node="layer1_0_conv1"), format=wire.NPY))
        check(not error, f".npy: {error}")
        if not error:
            import numpy
            check(same(torch.from_numpy(numpy.load(io.BytesIO(data))), v), ".npy differs")
        data, error = engine.saved_file(wire.SaveValueRequest(
            value=wire.ValueSliceRequest(node="layer1_0_conv1")))
        check(not error and same(torch.load(io.BytesIO(data)), v), f"torch.save: {error}")
        missing, error = engine.saved_file(wire.SaveValueRequest(
            value=wire.ValueSliceRequest(node="nothing")))
        check(not missing and "nothing" in error, f"a missing node saved: {error!r}")
    finally:
        engine.close()
    # A value bigger than one piece (16 MB) comes in several, which make torch.save's file.
    big, big_input = WORK / "doubled.pt", WORK / "doubled_input.pt"
    x = torch.randn(5_000_000)
    torch.jit.trace(Doubled(), x).save(str(big))
    torch.save(x, big_input)
    engine = Engine()
    try:
        engine.ask(wire.OPEN, wire.OpenRequest(source=str(big),
                                               inputs=[wire.InputSpec(file=str(big_input))]))
        engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RUN_TO_END))
        pieces = [wire.decode(p, wire.SavedValue) for k, p in engine.ask(
            wire.SAVE_VALUE, wire.SaveValueRequest(value=wire.ValueSliceRequest(node="mul")))
            if k == wire.VALUE_SAVED]
        check(len(pieces) == 2 and pieces[0].more and not pieces[1].more,
              f"20 MB in {len(pieces)} pieces")
        got = torch.load(io.BytesIO(b"".join(p.data for p in pieces)))
        check(same(got, Doubled()(x)), "the 20 MB value saved in pieces differs from forward's")
    finally:
        engine.close()
    print("done value slices: fxview-engine and the live engine against torch.fx's values")


def last_state(answers):
    states = [wire.decode(p, wire.RunState) for k, p in answers if k == wire.STATE]
    return states[-1]


def check_interrupt():
    """Pause while fxview-engine runs resnet18: the Interrupt frame, written right behind the
    Continue, is read while the run goes (the engine reads its requests on a thread of its own)."""
    torch.manual_seed(0)
    model, x = torchvision.models.resnet18().eval(), torch.randn(1, 3, 64, 64)
    archive, input_file = WORK / "resnet18_pause.pt", WORK / "resnet18_pause_input.pt"
    torch.jit.trace(model, x).save(str(archive))
    torch.save(x, input_file)
    engine = Engine()
    try:
        engine.ask(wire.OPEN, wire.OpenRequest(source=str(archive),
                                               inputs=[wire.InputSpec(file=str(input_file))]))
        whole = last_state(engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RUN_TO_END)))
        engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RESET))
        engine.send(wire.frame(wire.COMMAND, wire.encode(
                        wire.CommandRequest(command=wire.RUN_TO_END))),
                    wire.frame(wire.INTERRUPT))
        paused = last_state(engine.answers())
        check(not paused.finished and not paused.failed and paused.next and
              len(paused.order) < len(whole.order),
              f"Interrupt behind Continue: finished={paused.finished} failed={paused.failed} "
              f"next={paused.next!r}, {len(paused.order)} of {len(whole.order)} nodes ran")
        resumed = last_state(engine.ask(wire.COMMAND,
                                        wire.CommandRequest(command=wire.RUN_TO_END)))
        check(resumed.finished and resumed.outputCheck.verdict == wire.EQUAL,
              f"Continue after Pause: finished={resumed.finished} "
              f"check={resumed.outputCheck.verdict} {resumed.outputCheck.message!r} "
              f"{len(resumed.order)} nodes, {resumed.stopNote!r} {resumed.failure!r}")
        # Nothing runs: the Interrupt is dropped (the ValueRequest's answer shows it was read).
        engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RESET))
        engine.send(wire.frame(wire.INTERRUPT))
        engine.ask(wire.VALUE_REQUEST, request("x", [0, 0, 0, 0]))
        after = last_state(engine.ask(wire.COMMAND, wire.CommandRequest(command=wire.RUN_TO_END)))
        check(after.finished and len(after.order) == len(whole.order),
              f"an Interrupt while idle stopped the next Continue after {len(after.order)} nodes")
        print(f"done interrupt: resnet18 paused after {len(paused.order)} of "
              f"{len(whole.order)} nodes, resumed to forward's outputs")
    finally:
        engine.close()


def main():
    return run_groups([("interrupt", check_interrupt, ()),
                       ("save-value", check_saved_values, ()),
                       ("break-on nan", check_break_on_nan, ()),
                       ("NaN outputs", check_nan_outputs_equal_forward, ()),
                       ("value slices", check_value_slices, ())])


if __name__ == "__main__":
    sys.exit(main())
