"""The Python package (python/fxview) against the built app, with real PyTorch.

Run by CTest as python_module; by hand, through the root:
  scripts/in-root env PYTHONPATH=$PWD/python FXVIEW_APP=$PWD/build/app/fxview \
      QT_QPA_PLATFORM=offscreen /usr/bin/python3 tests/python/tst_python.py
FXTRACE names fxtrace (default: beside FXVIEW_APP). Exits 0 when every check passes, else 1
with one FAIL line per failed check.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import torch

import fxview

APP = os.environ.get("FXVIEW_APP", "")
if not Path(APP).is_file():
    sys.exit(f"tst_python: FXVIEW_APP ({APP!r}) must name the built fxview (build/app/fxview)")
FXTRACE = os.environ.get("FXTRACE") or str(Path(APP).with_name("fxtrace"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WORK = Path(tempfile.mkdtemp(prefix="tst_python-"))
# The apps remember recent files and inputs: keep that out of the user's settings.
os.environ["XDG_CONFIG_HOME"] = str(WORK / "config")
# show()'s temporary folders (fxview-*) go here, so the checks can see none is left behind.
SHOW_TMP = WORK / "show-tmp"
SHOW_TMP.mkdir()
tempfile.tempdir = str(SHOW_TMP)

OPEN_TIME = re.compile(r"^open time: \d+ ms \(model shown after \d+ ms\)$", re.M)


class TinyNet(torch.nn.Module):
    """Linear, relu, Linear; forward's input is named x."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 2)

    def forward(self, x, scale=None, shift=None):
        y = self.fc2(torch.relu(self.fc1(x)))
        if scale is not None:
            y = y * scale
        if shift is not None:
            y = y + shift
        return y


class Branchy(torch.nn.Module):
    """An if on the data: torch.export refuses it, torch.jit.trace records the branch taken."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x, scale=None, shift=None):
        y = torch.relu(self.fc(x)) if x.sum() > 0 else -self.fc(x)
        if scale is not None:
            y = y * scale
        if shift is not None:
            y = y + shift
        return y


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)


def show_and_capture(model, args, **kwargs):
    """show(..., wait=True) with the app's stdout and stderr captured: (exit code, out, err)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        code = fxview.show(model, args, wait=True, stdout=out, stderr=err, **kwargs)
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()


def fxtrace_outputs(saved, folder):
    """The program's outputs as fxtrace computes them on saved.inputs, loaded back by torch."""
    assert Path(FXTRACE).is_file(), f"there is no fxtrace at {FXTRACE} (set FXTRACE)"
    out = Path(folder) / "fxtrace-out.pt"
    result = run([FXTRACE, "run", saved.path, "--input", f"file:{saved.inputs}",
                  "--save-outputs", str(out)])
    assert out.exists(), f"fxtrace run exited {result.returncode}:\n{result.stdout}{result.stderr}"
    return torch.load(out), result


def same(a, b):
    a = a[0] if isinstance(a, (tuple, list)) and len(a) == 1 else a
    return torch.allclose(a, b, atol=1e-6)


def assert_no_show_folder_left():
    left = list(SHOW_TMP.glob("fxview-*"))  # torch keeps its own temporary files here too
    assert not left, f"show() left {left} behind"


# --- the checks ----------------------------------------------------------------------------

def check_show_linear_waits_and_opens():
    """(1) The one-liner's model opens in the app, which reports its open time."""
    code, out, err = show_and_capture(torch.nn.Linear(4, 2), (torch.randn(3, 4),),
                                      extra_args=["--report-open-time"])
    assert code == 0 and OPEN_TIME.search(out), (
        f"fxview exited {code}; stdout: {out!r}; stderr: {err!r}")
    assert_no_show_folder_left()


def check_save_writes_pt2_and_inputs():
    """(2) save() writes a torch.export program and a tuple of inputs that round-trip."""
    torch.manual_seed(0)
    model, x = TinyNet(), torch.randn(3, 4)
    folder = WORK / "save"
    saved = fxview.save(model, (x,), folder)
    assert saved.path == str(folder / "model.pt2"), saved.path
    assert saved.inputs == str(folder / "inputs.pt"), saved.inputs
    assert saved.fallback is None, saved.fallback
    inputs = torch.load(saved.inputs)
    assert isinstance(inputs, tuple) and len(inputs) == 1 and torch.equal(inputs[0], x), inputs
    expected = model(x)
    assert same(torch.export.load(saved.path).module()(*inputs), expected)
    # The C++ side reads both files: fxtrace runs the program on them.
    outputs, _ = fxtrace_outputs(saved, folder)
    assert same(outputs, expected), f"fxtrace gave {outputs}, forward {expected}"


def check_save_orders_keyword_inputs():
    """(2) Keyword inputs given out of order land in their own placeholders, exported or traced."""
    torch.manual_seed(0)
    x, scale, shift = torch.randn(3, 4).abs(), torch.randn(2), torch.randn(2)
    for model, suffix in ((TinyNet(), ".pt2"), (Branchy(), ".pt")):
        folder = WORK / f"kwargs{suffix}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Branchy's fallback is check_fallback_to_jit_trace's
            saved = fxview.save(model, (x,), folder, kwargs={"shift": shift, "scale": scale})
        assert saved.path.endswith(suffix), saved.path
        outputs, _ = fxtrace_outputs(saved, folder)
        expected = model(x, scale=scale, shift=shift)
        assert same(outputs, expected), f"{saved.path}: fxtrace gave {outputs}, forward {expected}"


def check_show_returns_a_live_session():
    """show(wait=False) returns at once with a LiveSession whose app was given the socket."""
    model, x = TinyNet(), torch.randn(3, 4)
    session = fxview.show(model, (x,), wait=False, extra_args=["--report-open-time"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    app = session.process
    try:
        assert isinstance(session, fxview.LiveSession), type(session)
        assert app.args[0] == shutil.which(APP) and app.args[1] == "--attach", app.args
        assert app.args[3:] == ["python:TinyNet", "--report-open-time"], app.args
        out, err = app.communicate(timeout=300)
    finally:
        if app.poll() is None:
            app.kill()
    assert app.returncode == 0 and OPEN_TIME.search(out), (
        f"fxview exited {app.returncode}; stdout: {out!r}; stderr: {err!r}")
    session.wait(10)
    assert not session.alive, "the session still serves a window that exited"
    assert_no_show_folder_left()


def check_interactive_show_returns_and_serves():
    """In an interactive session (here python3 -i) show() returns at once by default and a
    background thread serves the window, while the session goes on."""
    program = "\n".join([
        "import fxview, torch",
        "m = torch.fx.symbolic_trace(torch.nn.Linear(4, 2))",
        "s = fxview.show(m, (torch.randn(3, 4),), extra_args=['--report-open-time'])",
        "print('returned', type(s).__name__, s.alive)",
        "print('exit', s.wait(300))",
        ""])
    result = subprocess.run([sys.executable, "-i", "-q"], input=program, capture_output=True,
                            text=True, timeout=300)
    assert "returned LiveSession True" in result.stdout and "exit 0" in result.stdout, (
        f"stdout: {result.stdout!r}; stderr: {result.stderr[-600:]!r}")
    assert OPEN_TIME.search(result.stdout), result.stdout


def check_attach_through_a_socket_path():
    """Through a launcher (scripts/in-root on a Debian 12 host) the app connects to a Unix
    socket in a private folder instead of inheriting one; the folder is gone afterwards."""
    original = fxview._launcher
    fxview._launcher = lambda executable: ["/usr/bin/env", executable]
    try:
        code, out, err = show_and_capture(TinyNet(), (torch.randn(3, 4),),
                                          extra_args=["--report-open-time"])
    finally:
        fxview._launcher = original
    assert code == 0 and OPEN_TIME.search(out), f"fxview exited {code}; {out!r}; {err!r}"
    left = list(SHOW_TMP.glob("fxview-live-*"))
    assert not left, f"the socket's folder is still there: {left}"


def check_fallback_to_jit_trace():
    """(3) A model torch.export refuses is traced instead, with one warning saying so."""
    model, x = Branchy(), torch.randn(3, 4).abs()
    folder = WORK / "fallback"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        saved = fxview.save(model, (x,), folder)
    ours = [w for w in caught if str(w.message).startswith("torch.export failed (")]
    assert len(ours) == 1, [str(w.message) for w in caught]
    message = str(ours[0].message)
    assert message.endswith("); showing torch.jit.trace's graph instead"), message
    # PyTorch's own first line for the data-dependent branch: 2.6 names the control flow, 2.14
    # the guard it could not put on the data.
    assert "\n" not in message and ("Dynamic control flow" in message or
                                    "data-dependent expression" in message), message
    assert ours[0].filename == __file__, f"the warning points at {ours[0].filename}"
    assert saved.path == str(folder / "model.pt") and saved.fallback, saved
    outputs, result = fxtrace_outputs(saved, folder)
    assert same(outputs, model(x)) and "Outputs equal: True" in result.stdout, result.stdout
    # And through show(): neither symbolic_trace nor torch.export can, so the app opens the
    # trace, with one warning naming both.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = show_and_capture(model, (x,), extra_args=["--report-open-time"])
    assert code == 0 and OPEN_TIME.search(out), f"fxview exited {code}; {out!r}; {err!r}"
    notes = [str(w.message) for w in caught if w.filename == __file__]
    assert any(n.startswith("torch.fx.symbolic_trace cannot trace Branchy (") and
               n.endswith("showing torch.jit.trace's graph instead.") for n in notes), notes
    assert_no_show_folder_left()


def check_fxtrace_writes_output_check_and_text():
    """fxtrace export --run's JSON (and run --json's) carries the run's verdict; .txt is the
    graph as `fxtrace graph` prints it."""
    import json

    folder = WORK / "fxtrace"
    folder.mkdir()
    for command in (["export", "example:tinynet", "--run", "-o", str(folder / "export.json")],
                    ["run", "example:tinynet", "--json", str(folder / "run.json")]):
        result = run([FXTRACE, *command])
        assert result.returncode == 0, f"{command}: {result.stderr}"
    for name in ("export.json", "run.json"):
        check = json.loads((folder / name).read_text()).get("output_check")
        assert check == {"verdict": "equal", "reason": ""}, f"{name}: {check}"
    run([FXTRACE, "export", "example:tinynet", "-o", str(folder / "plain.json")])
    assert "output_check" not in json.loads((folder / "plain.json").read_text()), "no run, a verdict"
    run([FXTRACE, "export", "example:tinynet", "-o", str(folder / "graph.txt")])
    printed = run([FXTRACE, "graph", "example:tinynet"]).stdout
    assert (folder / "graph.txt").read_text() == printed, "export .txt is not fxtrace graph's text"


def check_python_m_fxview():
    """(4) python3 -m fxview FILE ARGS... starts the app on the file, with its exit code."""
    saved = fxview.save(TinyNet(), (torch.randn(3, 4),), WORK / "module")
    result = run([sys.executable, "-m", "fxview", saved.path, "--report-open-time"])
    assert result.returncode == 0 and OPEN_TIME.search(result.stdout), (
        f"exit {result.returncode}; stdout: {result.stdout!r}; stderr: {result.stderr!r}")
    result = run([sys.executable, "-m", "fxview", str(WORK / "missing.pt2"), "--report-open-time"])
    assert result.returncode == 1, f"a missing file: exit {result.returncode}, {result.stderr!r}"


def check_no_app_found():
    """(5) Without an app anywhere, show() and -m fxview say how to get one."""
    try:
        fxview.find_app(app=str(WORK / "no-such-fxview"))
    except fxview.AppNotFoundError as error:
        assert "no-such-fxview" in str(error), str(error)
    else:
        raise AssertionError("find_app(app=<missing file>) did not raise")
    # A copy of the package outside the checkout, so its ../../build/app/fxview is not there.
    package = WORK / "copy"
    shutil.copytree(Path(fxview.__file__).parent, package / "fxview",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "FXVIEW_APP"}
    env.update(PYTHONPATH=str(package), PATH="/usr/bin:/bin")
    assert shutil.which("fxview", path=env["PATH"]) is None, "there is an fxview on /usr/bin:/bin"
    program = ("import fxview, torch\n"
               "try:\n"
               "    fxview.show(torch.nn.Linear(4, 2), (torch.randn(3, 4),))\n"
               "except fxview.AppNotFoundError as error:\n"
               "    print(error)\n"
               "else:\n"
               "    raise SystemExit('no AppNotFoundError')\n")
    result = run([sys.executable, "-c", program], env=env)
    sentence = result.stdout.strip()
    assert result.returncode == 0, f"exit {result.returncode}: {result.stdout}{result.stderr}"
    for needed in ("scripts/run-app", "scripts/build", "FXVIEW_APP"):
        assert needed in sentence, f"the error does not name {needed}: {sentence!r}"
    assert "\n" not in sentence and sentence.endswith("."), sentence
    result = run([sys.executable, "-m", "fxview", "model.pt2"], env=env)
    assert result.returncode == 1 and sentence in result.stderr, (
        f"-m fxview without an app: exit {result.returncode}, stderr {result.stderr!r}")


def main():
    checks = [value for name, value in globals().items() if name.startswith("check_")]
    failed = 0
    for check in checks:
        started = time.monotonic()
        try:
            check()
        except Exception as error:
            failed += 1
            print(f"FAIL {check.__name__}: {check.__doc__.strip()}")
            # An assertion's message says what went wrong; anything else needs its traceback.
            detail = str(error) if isinstance(error, AssertionError) else traceback.format_exc()
            print("    " + detail.strip().replace("\n", "\n    "))
        else:
            print(f"ok   {check.__name__} ({time.monotonic() - started:.1f} s)")
    print(f"{len(checks) - failed} of {len(checks)} checks passed")
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
