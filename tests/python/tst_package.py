"""The Python package builds and installs without downloading anything (issue 22): its own
PEP 517 backend (python/_build/backend.py) makes a wheel holding every module of python/fxview
and its metadata; the wheel, unpacked as pip would, imports (the live engine included). Where
this Python has pip, `pip install --target` installs it for real, offline.
Run by CTest as python_package; prints 'N passed, N failed'."""

import base64
import hashlib
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
sys.path.insert(0, str(PYTHON_DIR / "_build"))
backend = importlib.import_module("backend")

results = []


def check(condition, message):
    results.append(bool(condition))
    if not condition:
        print("FAIL:", message)


with tempfile.TemporaryDirectory() as work:
    name = backend.build_wheel(work)
    check(name == "fxview-0.1.0-py3-none-any.whl", f"the wheel is named {name}")
    with zipfile.ZipFile(os.path.join(work, name)) as wheel:
        names = set(wheel.namelist())
        modules = {f"fxview/{p.name}" for p in (PYTHON_DIR / "fxview").glob("*.py")}
        check(modules <= names, f"the wheel lacks {modules - names}")
        record = wheel.read("fxview-0.1.0.dist-info/RECORD").decode().splitlines()
        for line in record:
            path, digest, _ = line.rsplit(",", 2)
            if digest:
                data = wheel.read(path)
                ours = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                check(digest == "sha256=" + ours.decode(), f"RECORD's hash of {path}")
        site = os.path.join(work, "site")
        wheel.extractall(site)
    # The live engine needs torch; the package itself and its wire format do not.
    live = ", fxview.live" if importlib.util.find_spec("torch") else ""
    program = f"import fxview, fxview.wire{live}; print(fxview.__file__)"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": site}, cwd=work)
    check(result.returncode == 0 and result.stdout.startswith(site),
          f"the unpacked wheel does not import: {result.stdout}{result.stderr}")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0:
        target = os.path.join(work, "pip-target")
        result = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index",
                                 "--target", target, str(PYTHON_DIR)], capture_output=True,
                                text=True)
        check(result.returncode == 0 and os.path.isfile(os.path.join(target, "fxview", "live.py")),
              f"pip install --no-index failed: {result.stdout[-500:]}{result.stderr[-500:]}")
    else:
        print("this Python has no pip: the wheel was checked as pip would unpack it")

print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)
