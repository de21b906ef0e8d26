"""The package's own PEP 517 build backend: `pip install ./python` (and `pip install -e`) build
a pure-Python wheel from this folder with the standard library alone, so nothing is downloaded
(setuptools' backend would be fetched into pip's isolated build environment first, and this
machine's pip reaches no package index). It reads name, version, description and
requires-python from pyproject.toml's [project] table and packs fxview/*.py."""

from __future__ import annotations

import base64
import hashlib
import os
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # python/
TAG = "py3-none-any"


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _dist_info(project) -> str:
    return f"{project['name']}-{project['version']}.dist-info"


def _metadata(project) -> str:
    return (f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
            f"Summary: {project.get('description', '')}\n"
            f"Requires-Python: {project.get('requires-python', '>=3')}\n")


def _wheel(wheel_directory, files: dict[str, bytes]) -> str:
    project = _project()
    info = _dist_info(project)
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: fxview-backend\n"
                              f"Root-Is-Purelib: true\nTag: {TAG}\n").encode()
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{project['name']}-{project['version']}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files.items():
            whl.writestr(path, data)
    return name


def _sources() -> dict[str, bytes]:
    return {f"fxview/{p.name}": p.read_bytes() for p in sorted((ROOT / "fxview").glob("*.py"))}


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file puts this folder on sys.path: edits to fxview/ take effect at once.
    return _wheel(wheel_directory, {"fxview_editable.pth": f"{ROOT}\n".encode()})
