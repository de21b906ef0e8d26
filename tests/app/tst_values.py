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
Run by CTest as python_values (FXTRACE names the built fxtrace).
"""

import sys
import tempfile
from pathlib import Path

import torch
import torch.fx
import torchvision

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, fxtrace, run_groups  # noqa: E402

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


def values_in_fx(model, *args):
    """Each node's value when torch.fx's Interpreter ran it (cloned: later in-place ops must
    not change it)."""
    values = {}

    class Recording(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            values[n.name] = result.clone() if isinstance(result, torch.Tensor) else result
            return result

    with torch.no_grad():
        Recording(torch.fx.symbolic_trace(model)).run(*args)
    return values


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


def main():
    return run_groups([("save-value", check_saved_values, ()),
                       ("break-on nan", check_break_on_nan, ()),
                       ("NaN outputs", check_nan_outputs_equal_forward, ())])


if __name__ == "__main__":
    sys.exit(main())
