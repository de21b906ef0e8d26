"""A torch.export program (.pt2) opened in the person's own PyTorch, for the Python engine
(engine.py): loaded with torch.export.load, stepped on its graph module (parameters, buffers and
constants are its first placeholders, then the user's inputs flattened by its in_spec, as
ep.module() flattens them) and checked against ep.module() of the same load, called plainly as a
person calls it (grad mode on).

Its graph is not made here: the window walks the program's JSON itself (ExportGraphWalk, the walk
fxview-engine makes) with the schemas this PyTorch registers for the program's operators, which
OpenedModel carries, and compares its text with PyTorch's own print(ep.graph)."""

from __future__ import annotations

import importlib
import os
import zipfile
import zlib

import torch
import torch.fx
import torch.utils._pytree as pytree

from . import comparison, fxgraph, program_hints, wire
from .live import Session, make_inputs
from .stepper import Stepper
from .summary import exactly_equal


_USER = object()  # where a user's input goes among a program's placeholders


class ProgramError(Exception):
    """Why a file cannot be opened, as the one sentence the window shows; `imports`: the
    modules the file names that might open it if imported (the window offers them)."""

    def __init__(self, sentence: str, imports: list[str] | None = None):
        super().__init__(sentence)
        self.imports = imports or []


def close_vmap_levels() -> None:
    """Ends the torch.vmap levels a run left open (a run reset or failed between a program's
    _vmap_increment_nesting and its _vmap_decrement_nesting), as fxview-engine's
    closeVmapLevels does: left open, they would wrap every later load and run."""
    functorch = getattr(torch._C, "_functorch", None)
    while functorch is not None and functorch.maybe_current_level() is not None:
        functorch._vmap_decrement_nesting()


def torch_too_old() -> str:
    """The sentence for a PyTorch without torch.export (before 2.1), or ""."""
    if hasattr(torch, "export") and hasattr(torch.export, "load"):
        return ""
    return (f"This Python's PyTorch is {torch.__version__}, which has no torch.export (PyTorch "
            "2.1 added it): open the file with a Python whose PyTorch is 2.1 or newer "
            "(fxview --python PATH).")


def import_modules(modules: list[str]) -> None:
    """Imports the person's modules (--import), so that what the program names from Python
    exists: operators registered with torch.library, pytree classes of its inputs and outputs."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as error:  # noqa: BLE001 - whatever the module raises, as a sentence
            line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise ProgramError(f"--import {module} failed in this Python "
                               f"({type(error).__name__}: {line}).") from error


def _members(path: str) -> list[str]:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return []


# Past this a program's JSON is not sent to a window on another machine: fxview-reader draws up
# to 64 MB of it, and a bigger one would only cross the wire to be refused.
_LARGEST_SENT_PROGRAM = 64 << 20


def program_member(archive: zipfile.ZipFile) -> str | None:
    """The JSON member holding the program torch.export.load opens, in either layout
    (core/program/ExportedArchive.cpp finds the same): the legacy zip's
    serialized_exported_program.json, or a PT2 archive's models/NAME.json (its only one, or
    "model")."""
    names = archive.namelist()
    for name in names:
        top, _, rest = name.partition("/")
        if rest != "archive_format":
            continue
        with archive.open(name) as member:
            if not member.read(16).startswith(b"pt2"):
                continue
        folder = f"{top}/models/"
        models = sorted(n for n in names if n.startswith(folder) and n.endswith(".json")
                        and "/" not in n[len(folder):])
        if len(models) > 1 and f"{folder}model.json" in models:
            return f"{folder}model.json"
        return models[0] if len(models) == 1 else None
    return "serialized_exported_program.json" if "serialized_exported_program.json" in names \
        else None


def compressed_program(path: str) -> bytes:
    """The program's JSON member as the archive holds it, zlib-compressed, for a window that
    cannot read the file (OpenedModel.program); b"" when there is none to send."""
    try:
        with zipfile.ZipFile(path) as archive:
            member = program_member(archive)
            if member is None or archive.getinfo(member).file_size > _LARGEST_SENT_PROGRAM:
                return b""
            return zlib.compress(archive.read(member), 6)
    except (zipfile.BadZipFile, OSError, ValueError, KeyError):
        return b""


def _schema_line(op) -> str:
    """The schema-table line of an operator overload (core/program/OperatorSchema.h):
    `ns::name.overload arg *kwarg_only default= ->returns`."""
    schema = op._schema
    name = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
    words = [name]
    for a in schema.arguments:
        words.append(("*" if a.kwarg_only else "") + a.name +
                     ("=" if a.has_default_value() else ""))
    return " ".join(words) + f" ->{len(schema.returns)}"


def schema_table(gm: torch.fx.GraphModule) -> str:
    """The schema-table lines of every operator overload the program calls, its higher-order
    ops' subgraphs included, as this PyTorch registers them (Python-registered ops too)."""
    lines = set()
    for module in gm.modules():
        if isinstance(module, torch.fx.GraphModule):
            for node in module.graph.nodes:
                if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                    lines.add(_schema_line(node.target))
    return "".join(line + "\n" for line in sorted(lines))


def load_libraries(libraries: list[str]) -> None:
    """Loads C++ op libraries (--ops) as torch.ops.load_library does, once each."""
    for library in libraries:
        if library in torch.ops.loaded_libraries:
            continue
        try:
            torch.ops.load_library(library)
        except Exception as error:  # noqa: BLE001 - as a sentence
            line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise ProgramError(f"--ops {library} did not load into this Python's PyTorch "
                               f"{torch.__version__} ({line}); a library must be built against "
                               "the PyTorch that loads it.") from error


def load_program(path: str, imports: list[str], libraries: list[str] = ()):
    """torch.export.load(path) after the person's op libraries and imports, or ProgramError
    saying why not."""
    if too_old := torch_too_old():
        raise ProgramError(too_old)
    name = os.path.basename(path)
    if not os.path.isfile(path):
        raise ProgramError(f"There is no file {path}.")
    members = _members(path)
    if not members:
        raise ProgramError(f"{name} is not a zip archive, so not a torch.export program (.pt2).")
    if any(m.endswith("/constants.pkl") or "/code/" in m for m in members) and \
            not any(m.endswith(".json") for m in members):
        raise ProgramError(f"{name} is a TorchScript archive: fxview-engine, the C++ engine of "
                           "an fxview built with LibTorch, opens those; this Python engine opens "
                           "torch.export programs (.pt2).")
    load_libraries(list(libraries))
    import_modules(imports)
    try:
        return torch.export.load(path)
    except Exception as error:  # noqa: BLE001 - what PyTorch says, as a sentence
        line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        # What the archive names that this Python lacks says more than PyTorch's message.
        lacking = program_hints.missing(path)
        why = ("; ".join(sentence for sentence, _ in lacking) if lacking else
               f"{type(error).__name__}: {line}; if the program calls operators or classes your "
               "own code registers, name its module with --import MODULE")
        raise ProgramError(f"torch.export.load could not load {name} in this Python's PyTorch "
                           f"{torch.__version__}: {why}.",
                           list(dict.fromkeys(m for _, m in lacking if m))) from error


class _ProgramStepper(Stepper):
    """A Stepper whose Reset starts again from the file's state (fresh copies of what the
    graph writes into)."""

    def __init__(self, session: "ProgramSession", user_values: list):
        self.session, self.user_inputs = session, user_values
        weights = frozenset(p.name for p, v in zip(session.placeholders, session.state_values)
                            if v is not _USER)
        super().__init__(session.gm, session._all_inputs(user_values), weights=weights)
        self.device = session.device

    def reset(self) -> None:
        self.inputs = self.session._all_inputs(self.user_inputs)
        super().reset()


class ProgramSession(Session):
    """A loaded ExportedProgram as the window steps it: Session's commands, values and checks on
    the program's graph module, the user's inputs apart from the weights."""

    def __init__(self, ep, path: str, device: str = ""):
        self.ep, self.path = ep, path
        self.device = torch.device(device) if device else None
        self.model, self.args, self.kwargs = None, (), {}
        self.view, self.gm, self.source = None, ep.graph_module, path
        self.class_name = "torch.export program"
        self.placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        self.state_values = self._state_values()  # _USER where the user's inputs go
        self.written = self._written_inputs()
        self.user_placeholders = [p for p, v in zip(self.placeholders, self.state_values)
                                  if v is _USER]
        examples = ep.example_inputs
        if examples is None:
            raise ProgramError(f"{os.path.basename(path)} holds no example inputs, and this "
                               "Python engine runs a program on them only; save it with "
                               "torch.export.save from a torch.export.export given its inputs.")
        self.given = [self._on_device(v) for v in pytree.tree_leaves(examples)]
        self.specs = [wire.InputSpec(example=True) for _ in self.user_placeholders]
        self.seed = 0
        self.stepper = self._stepper(self.given)
        self.graph_code = None
        self.input_values = None
        self.output_check = wire.OutputCheck()
        self.schemas = schema_table(self.gm)

    def _on_device(self, value):
        if self.device is not None and isinstance(value, torch.Tensor):
            return value.to(self.device)
        return value

    def _state_values(self) -> list:
        """Every placeholder's value the program holds, in the signature's order, _USER where
        the user's inputs go: parameters and buffers from the state dict, lifted constants and
        custom objects, and the effect tokens ep.module() makes itself."""
        ep, out = self.ep, []
        for spec in ep.graph_signature.input_specs:
            kind = spec.kind.name
            if kind in ("PARAMETER", "BUFFER"):
                value = ep.state_dict.get(spec.target)
                if value is None:  # a non-persistent buffer lives with the constants
                    value = ep.constants[spec.target]
            elif kind in ("CONSTANT_TENSOR", "CUSTOM_OBJ"):
                value = ep.constants[spec.target]
            elif kind == "TOKEN":
                value = torch.ops.prims._make_token()
            else:
                out.append(_USER)
                continue
            out.append(self._on_device(value))
        return out

    def _all_inputs(self, user_values: list) -> list:
        """The placeholders' values for a run on `user_values`: a buffer or constant a graph
        writes into in place (aten.add_ on a buffer) is a fresh copy of the file's, so that each
        run starts from the state the file saved, as a fresh ep.module() does."""
        users = iter(user_values)
        return [next(users) if v is _USER else
                v.clone() if isinstance(v, torch.Tensor) and i in self.written else v
                for i, v in enumerate(self.state_values)]

    def _written_inputs(self) -> set[int]:
        """The placeholders some node writes into in place (its schema says so)."""
        index = {p: i for i, p in enumerate(self.placeholders)}
        written = set()
        for node in self.gm.graph.nodes:
            schema = getattr(node.target, "_schema", None)
            if node.op != "call_function" or schema is None:
                continue
            for a, value in zip(schema.arguments, node.args):
                if a.alias_info is not None and a.alias_info.is_write and value in index:
                    written.add(index[value])
        return written

    def _stepper(self, user_values: list) -> Stepper:
        return _ProgramStepper(self, list(user_values))

    # --- what the window is sent ------------------------------------------------------------
    def opened(self) -> wire.OpenedModel:
        shapes = ", ".join(f"{p.name}: {self._describe(v)}"
                           for p, v in zip(self.user_placeholders, self.given))
        return wire.OpenedModel(
            className=self.class_name, graph=wire.Graph(), graphText=fxgraph.graph_text(self.gm),
            inputs=self.specs, seed=self.seed, schemas=self.schemas,
            inputNote=f"input: the program's example inputs ({shapes})" if shapes else "")

    def user_values(self) -> list:
        return [v for v, s in zip(self.stepper.inputs, self.state_values) if s is _USER]

    def run_mode(self):
        return torch.enable_grad()  # as ep.module() runs when a person calls it

    # --- what the window asks ---------------------------------------------------------------
    def make_inputs(self, specs: list, seed: int):
        """The user's inputs the specs describe, as Session.make_inputs makes them."""
        if len(specs) > len(self.user_placeholders):
            return None, (f"{len(specs)} inputs were given, but the program takes "
                          f"{len(self.user_placeholders)}.")
        return make_inputs(specs, seed, self.user_placeholders, self.given,
                           self.device or torch.device("cpu"))

    def compare(self, r: wire.CompareRequest, before_node) -> wire.ComparisonAnswer:
        """Another .pt2 (run B) on the same user inputs, or this one on another device, dtype or
        input, as Session.compare does."""
        if not r.modelB:
            return super().compare(r, before_node)
        try:
            other = ProgramSession(load_program(r.modelB, []), r.modelB,
                                   str(self.device) if self.device else "")
        except ProgramError as error:
            return wire.ComparisonAnswer(error=f"Run B: {error}")
        result = comparison.compare_runs(self.gm, self.stepper.inputs, other.gm,
                                         other._all_inputs(self.user_values()),
                                         local=r.local, before_node=before_node)
        result.model_a, result.model_b = self.source, r.modelB
        result.run_a = result.run_b = "as the window runs it"
        return wire.ComparisonAnswer(json=result.to_json())

    # --- the output against ep.module() -----------------------------------------------------
    def user_outputs(self, output) -> list:
        """The run's user outputs, flat (the graph returns mutated buffers first)."""
        kinds = [spec.kind.name for spec in self.ep.graph_signature.output_specs]
        flat = list(output) if isinstance(output, (tuple, list)) else [output]
        return [v for v, kind in zip(flat, kinds) if kind not in ("BUFFER_MUTATION",
                                                                   "USER_INPUT_MUTATION",
                                                                   "PARAMETER_MUTATION",
                                                                   "GRADIENT_TO_PARAMETER",
                                                                   "GRADIENT_TO_USER_INPUT",
                                                                   "LOSS_OUTPUT",
                                                                   "TOKEN")]

    def reference(self):
        """ep.module() of the same load, called plainly on the run's inputs (cloned: a program
        may write into its inputs), its buffers as they were before (it writes into those)."""
        in_spec = self.ep.call_spec.in_spec
        users = [v.clone() if isinstance(v, torch.Tensor) else v for v in self.user_values()]
        args, kwargs = pytree.tree_unflatten(users, in_spec)
        module = self.ep.module()
        if self.device is not None:
            module.to(self.device)
        saved = {name: b.clone() for name, b in module.named_buffers()}
        try:
            return module(*args, **kwargs)
        finally:
            with torch.no_grad():
                for name, b in module.named_buffers():
                    b.copy_(saved[name])

    def check_outputs(self) -> wire.OutputCheck:
        got = self.user_outputs(self.stepper.output)
        try:
            expected = self.reference()
        except Exception as error:  # noqa: BLE001
            return wire.OutputCheck(wire.FORWARD_FAILED,
                                    f"ep.module() raised {type(error).__name__} on this input "
                                    f"({error}); the outputs are not checked.")
        leaves = pytree.tree_leaves(expected)
        if len(leaves) == len(got) and all(exactly_equal(a, b) for a, b in zip(got, leaves)):
            return wire.OutputCheck(wire.EQUAL, "outputs equal to ep.module()")
        for i, (a, b) in enumerate(zip(got, leaves)):
            if not exactly_equal(a, b):
                break
        else:
            i = min(len(got), len(leaves))
        return wire.OutputCheck(wire.DIFFERS,
                                f"Output {i} of the run differs from ep.module()'s on the same "
                                "input, in the same PyTorch: this is a bug of fxview's, please "
                                "report it with the file.")
