"""python3 -m fxview [MODEL] [APP ARGS...]: start the fxview app, passing every argument through
(`python3 -m fxview model.pt2 --input 1x3x224x224`); exits with the app's exit code.
python3 -m fxview compile SCRIPT [ARGS...]: run a script with every torch.compile in it going
through fxview.backend (python/fxview/dynamo_script.py).
python3 -m fxview graph|run MODEL.pt2 ...: the Python engine without a window, in this Python's
PyTorch (python/fxview/headless.py)."""

import subprocess
import sys

from . import AppNotFoundError, find_app


def main(argv: list[str]) -> int:
    if argv[:1] in (["graph"], ["run"]):
        from .headless import main as headless_main

        return headless_main(argv)
    if argv[:1] == ["compile"]:
        from .dynamo_script import main as compile_main

        return compile_main(argv[1:])
    try:
        app = find_app()
    except AppNotFoundError as error:
        print(f"fxview: {error}", file=sys.stderr)
        return 1
    try:
        code = subprocess.call([app, *argv])
    except KeyboardInterrupt:  # the app, in the same process group, got the Ctrl+C too
        return 130
    return code if code >= 0 else 128 - code  # killed by signal N: exit 128+N, as a shell does


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
