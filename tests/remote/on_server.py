"""Run on the SSH tests' server by its own python3 (tst_window_remote sends it over ssh as
`python3 - MODE`, the checkout's python/ and tests/ on PYTHONPATH): what that machine's
PyTorch says, where the window cannot look.

write: two checkpoints of one model in a new folder of the server's /var/tmp (which the test's
own machine does not see; the first is copied to the home folder too), and as JSON: the folder,
print(ep.graph) of the first as torch.export.load gives it, the output's max |a-b| between the
two files' ep.module() on one input, the first weight's placeholder, the PyTorch version.
serve, show, backend: fxview.serve (fxview.show, which serves where there is no display, or
torch.compile with fxview.backend(serve=True), which serves its session) of a small
model, which prints the command that attaches
a window; once the window detaches, "serve returned" and whether the socket is still there
(serve also prints the socket's folder's and the socket's modes first).
subfolder: a folder runs/ in the newest of those folders.
count: how many engines the window bootstrapped run on the server: Pythons whose command line
holds ssh_bootstrap's `base64.b64decode(B)` (the test's server shares its /proc with the
window's machine, where the ssh client's command line holds it too)."""

import json
import os
import sys
import tempfile
import time


def write():
    import torch
    from two_checkpoints import write_two  # tests/ is on the path

    import glob
    import shutil

    for old in glob.glob("/var/tmp/fxview-remote-test-*"):  # an earlier run's
        shutil.rmtree(old, ignore_errors=True)
    folder = tempfile.mkdtemp(prefix="fxview-remote-test-", dir="/var/tmp")
    paths, _, max_abs = write_two(folder)
    shutil.copy(paths[0], os.path.expanduser("~/two_layers_0.pt2"))  # ssh://host/~/...
    ep = torch.export.load(paths[0])
    print(json.dumps({"folder": folder, "text": str(ep.graph), "max_abs": max_abs,
                      "first": ep.graph_signature.input_specs[0].arg.name,
                      "torch": torch.__version__}))


def serve(show=False):
    import stat

    import torch

    import fxview

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    if show == "backend":  # torch.compile's graphs, served once the first call recorded them
        backend = fxview.backend(serve=True)
        torch.compile(model, backend=backend)(torch.randn(4, 6))
        while backend.served is None or backend.served.windows < 1:
            time.sleep(0.1)
        served = backend.served
        served.close()
    elif show:  # no display in an SSH session: show() serves, and returns once the window detaches
        served = fxview.show(model, (torch.randn(4, 6),))
    else:
        served = fxview.serve(model, (torch.randn(4, 6),), wait=False, on_detach="return")
        print(f"modes {stat.S_IMODE(os.stat(os.path.dirname(served.path)).st_mode):o} "
              f"{stat.S_IMODE(os.stat(served.path).st_mode):o}", flush=True)
        served.wait()
    print("serve returned", os.path.exists(served.path), flush=True)


def subfolder():
    """A folder runs/ inside the newest folder `write` made (for Open Remote's walk)."""
    import glob

    newest = max(glob.glob("/var/tmp/fxview-remote-test-*"), key=os.path.getmtime)
    os.makedirs(os.path.join(newest, "runs"), exist_ok=True)


def count():
    engines = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
            engines += (os.path.basename(words[0]).startswith(b"python") and
                        any(b"base64.b64decode(B)" in word for word in words))
        except OSError:
            pass
    print(engines)


if __name__ == "__main__":
    {"write": write, "serve": serve, "show": lambda: serve(show=True),
     "backend": lambda: serve(show="backend"),
     "subfolder": subfolder, "count": count}[sys.argv[1]]()
