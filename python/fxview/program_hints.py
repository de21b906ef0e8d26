"""What a .pt2 names from Python that this Python lacks, read from the archive itself when
torch.export.load refuses it: pytree classes of its inputs and outputs (their serialized names are
their modules' dotted paths: transformers' CausalLMOutputWithPast is
`transformers.modeling_outputs.CausalLMOutputWithPast`) and operators no library registered (the
program's stack trace names the file whose code called them, where a library such as
transformers' MoE registers them too), each with the module to --import."""

from __future__ import annotations

import json
import os
import re
import sys
import zipfile

import torch
import torch.utils._pytree as pytree

# The program members of both layouts (legacy zip: serialized_exported_program.json; PT2 archive:
# models/NAME.json); at most this many bytes of each are read for a hint.
_LARGEST = 256 << 20
_FRAME = re.compile(r'File "([^"]+)", line \d+')


def _programs(path: str) -> list[dict]:
    found = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            name = info.filename
            if info.file_size > _LARGEST or not name.endswith(".json"):
                continue
            if name.endswith("serialized_exported_program.json") or "/models/" in name:
                try:
                    found.append(json.loads(archive.read(info)))
                except (ValueError, UnicodeDecodeError):
                    continue
    return found


def _spec_types(spec) -> list[str]:
    """Every pytree type a serialized treespec names."""
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except ValueError:
            return []
    out = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("type"), str):
                out.append(node["type"])
            for child in node.get("children_spec", []) or []:
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(spec)
    return out


def _module_of_file(file: str) -> str:
    """The dotted module a source file is imported as from this Python's sys.path, or ""."""
    file = os.path.realpath(file)
    best = ""
    for entry in sys.path:
        root = os.path.realpath(entry or os.getcwd())
        if file.startswith(root + os.sep) and len(root) > len(best):
            best = root
    if not best or not file.endswith(".py"):
        return ""
    parts = os.path.relpath(file, best)[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _op_exists(target: str) -> bool:
    parts = target.split(".")
    if len(parts) < 4 or parts[:2] != ["torch", "ops"]:
        return True
    try:
        namespace = getattr(torch.ops, parts[2])
        return hasattr(namespace, parts[3])
    except Exception:  # noqa: BLE001 - an op that does not resolve is missing
        return False


def _graph_module(program: dict) -> dict:
    return program.get("graph_module") or {}


def _nodes(program: dict):
    """Every node of the program, its higher-order ops' subgraphs too."""
    graph_module = _graph_module(program)
    stack = [graph_module.get("graph", {})]
    while stack:
        graph = stack.pop()
        for node in graph.get("nodes", []) or []:
            yield node
            for arg in node.get("inputs", []) or []:
                sub = (arg.get("arg") or {}).get("as_graph")
                if isinstance(sub, dict) and isinstance(sub.get("graph"), dict):
                    stack.append(sub["graph"])


def missing(path: str) -> list[tuple[str, str]]:
    """(sentence, module) pairs, one per thing the program names that this Python lacks, the
    sentence naming the module to --import where the archive says it (module "" where it does
    not); [] when nothing is found."""
    said = []
    try:
        programs = _programs(path)
    except (zipfile.BadZipFile, OSError, RecursionError):  # JSON nested past Python's limit
        return said
    for program in programs:
        signatures = [call.get("signature") or {}
                      for call in _graph_module(program).get("module_call_graph", []) or []]
        specs = [s.get(key) for s in signatures for key in ("in_spec", "out_spec") if s.get(key)]
        try:
            types = list(dict.fromkeys(t for spec in specs for t in _spec_types(spec)))
        except RecursionError:  # a spec nested past Python's limit names nothing to import
            types = []
        for name in types:
            if name in pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE or name.startswith("builtins.") \
                    or name.startswith("collections."):
                continue
            module = name.rpartition(".")[0]
            said.append((f"its inputs or outputs are {name}, a pytree class this Python has not "
                         f"registered: --import {module}", module))
        for node in _nodes(program):
            target = node.get("target", "")
            if not isinstance(target, str) or _op_exists(target):
                continue
            trace = ((node.get("metadata") or {}).get("stack_trace")) or ""
            files = _FRAME.findall(trace)
            where = _module_of_file(files[-1]) if files else ""
            line = f"it calls {target}, which no library in this Python registers"
            if where:
                line += f"; the program's code that called it is {where}: --import {where}"
            elif files:
                line += f"; the program's code that called it is in {files[-1]}"
            said.append((line, where))
    return list(dict.fromkeys(said))
