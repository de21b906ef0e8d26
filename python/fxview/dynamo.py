"""What torch.compile saw (its front end, Dynamo): fxview.backend, a torch.compile backend that records every graph
Dynamo makes (the GraphModule, the inputs of its first call and what the compiled code returned
on them), every graph break (Dynamo's reason, the person's file and line, the bytecode
instruction) and every recompile (the guard that failed and where it was made), then hands the
graph to the backend that compiles it (eager unless told otherwise), so the compiled code still
runs.

    opt = torch.compile(model, backend=fxview.backend)          # or fxview.backend(inner="inductor")
    opt(x)
    session = fxview.compile_session()     # what fxview.backend recorded
    fxview.export(session, "compiled/")    # one picture and one text file per graph, index.json

Dynamo does not hand a backend the instruction a graph broke at, nor the recompiles: two
internal functions of torch._dynamo are wrapped for that (_install_hooks), as thin as they can be,
and where this PyTorch has moved them the session says so instead of guessing.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from dataclasses import dataclass, field

import torch
import torch.fx
import torch.utils._pytree as pytree

__all__ = ["Backend", "CompileSession", "CompiledGraph", "GraphBreak", "Recompile", "SourceLine",
           "backend", "compile_run", "compile_session"]


@dataclass(frozen=True)
class SourceLine:
    """A line of the person's code: file, line number, the function it is in, its text."""

    file: str
    line: int
    function: str = ""
    code: str = ""

    @staticmethod
    def of(frame) -> "SourceLine":  # a traceback.FrameSummary
        return SourceLine(frame.filename, frame.lineno or 0, frame.name or "",
                          (frame.line or "").strip())

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class GraphBreak:
    """One graph break as it happened: the graph it ended, and why."""

    reason: str  # Dynamo's reason, whole (its explanation and hints included)
    where: SourceLine | None  # the innermost frame of the person's code at the break
    stack: list[SourceLine]  # the person's frames, outermost first
    instruction: str  # the bytecode instruction Dynamo stopped at: "CALL 1", "POP_JUMP_IF_FALSE"
    graph: int  # the index of the graph it ended

    @property
    def summary(self) -> str:
        """The reason in one line, as Dynamo's first line says it."""
        return self.reason.strip().splitlines()[0] if self.reason.strip() else "(no reason given)"


@dataclass
class BreakGroup:
    """The same break (reason and place) met one or more times."""

    summary: str
    where: SourceLine | None
    instruction: str
    breaks: list[GraphBreak]

    @property
    def count(self) -> int:
        return len(self.breaks)


@dataclass
class Recompile:
    """A frame compiled again because a guard of its earlier compile failed."""

    function: SourceLine  # the frame's function, at its first line
    # Dynamo's text for each earlier compile whose guards failed, the latest first:
    # "0/1: G['SCALE'] == 2.0  # return x * SCALE ...", "0/0: tensor 'x' size mismatch ..."
    reasons: list[str]
    guard: SourceLine | None  # where the failing guard was made, when Dynamo kept it
    before_graph: int  # the index the recompiled graph gets

    @property
    def summary(self) -> str:
        """The guard that failed, in one line: "0/1: G['SCALE'] == 2.0"."""
        first = self.reasons[0].strip().splitlines()[0] if self.reasons else ""
        return first.split("  #")[0].rstrip() if first else "(no reason given)"


@dataclass
class CompiledGraph:
    """One graph Dynamo made, and its first call."""

    index: int
    compile_id: str  # Dynamo's "frame/recompile" id: "0/0", "1/0", "0/1"
    gm: torch.fx.GraphModule  # as Dynamo handed it over, before any inner backend touched it
    frame: SourceLine | None  # the function (or Dynamo's resume function) it was traced from
    ended_by: str  # why the graph ends: a break's reason, or "return_value"
    inputs: list = field(default_factory=list)  # its first call's arguments, copied
    requires_grad: list = field(default_factory=list)  # of each argument, as it was called
    outputs: object = None  # what the compiled code returned on them, copied
    calls: int = 0
    error: str = ""  # what the inner backend or the compiled code raised, if it did
    # With inner="aot_eager": the forward and backward graphs AOTAutograd made of it; with
    # inner="inductor": Inductor's pre-grad and post-grad graphs (dynamo_inductor.py)
    aot: list = field(default_factory=list)  # of dynamo_aot.AotGraph, in the order compiled
    # With passes=: each pass's run over it (dynamo_passes.PassRun), in order
    passes: list = field(default_factory=list)
    joint: object = None  # dynamo_aot.joint_for's forward and backward as one graph, once made

    @property
    def called(self) -> bool:
        return self.calls > 0


class CompileSession:
    """Everything one or more torch.compile'd callables made while fxview.backend compiled them:
    graphs in the order Dynamo made them, the breaks between them, the recompiles."""

    def __init__(self) -> None:
        self.graphs: list[CompiledGraph] = []
        self.graph_breaks: list[GraphBreak] = []
        self.recompiles: list[Recompile] = []
        self.notes: list[str] = []  # what this PyTorch did not let fxview see
        self.result = None  # what fxview.compile_view's call of the compiled model returned
        self._lock = threading.Lock()

    # --- what explain() reports ----------------------------------------------------------
    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        """As torch._dynamo.explain counts them: one fewer than the graphs."""
        return max(len(self.graphs) - 1, 0)

    def breaks(self) -> list[BreakGroup]:
        """The graph breaks deduplicated by reason and place, in the order first met."""
        groups: dict[tuple, BreakGroup] = {}
        for b in self.graph_breaks:
            key = (b.summary, b.where, b.instruction)
            if key not in groups:
                groups[key] = BreakGroup(b.summary, b.where, b.instruction, [])
            groups[key].breaks.append(b)
        return list(groups.values())

    def __repr__(self) -> str:
        return (f"<CompileSession: {self.graph_count} graph(s), {len(self.graph_breaks)} graph "
                f"break(s), {len(self.recompiles)} recompile(s)>")

    def __str__(self) -> str:
        lines = [repr(self)]
        for g in self.graphs:
            where = f" from {g.frame.function} at {g.frame}" if g.frame else ""
            lines.append(f"  graph {g.index} [{g.compile_id}]{where}: "
                         f"{sum(1 for _ in g.gm.graph.nodes)} nodes, called {g.calls}x")
        for group in self.breaks():
            at = f" at {group.where}" if group.where else ""
            lines.append(f"  break x{group.count}{at} ({group.instruction}): {group.summary}")
        for r in self.recompiles:
            lines.append(f"  recompile of {r.function.function} at {r.function}: {r.summary}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    # --- recording (called from the backend and the hooks) -------------------------------
    def _add_graph(self, gm: torch.fx.GraphModule) -> CompiledGraph:
        reason = getattr(gm, "compile_subgraph_reason", None)
        while _pending_recompiles:
            self._add_recompile(*_pending_recompiles.pop(0))
            self.notes += [n for n in _default_session.notes if n not in self.notes]
        with self._lock:
            graph = CompiledGraph(len(self.graphs), _compile_id(), _recorded_copy(gm),
                                  _traced_frame(), getattr(reason, "reason", "") or "")
            self.graphs.append(graph)
            if reason is not None and getattr(reason, "graph_break", False):
                stack = [SourceLine.of(f) for f in getattr(reason, "user_stack", []) or []]
                instruction = getattr(reason, "_fxview_instruction", None)
                if instruction is None:
                    self._note("this PyTorch's Dynamo does not say at which bytecode "
                               "instruction a graph broke")
                self.graph_breaks.append(GraphBreak(reason.reason, stack[-1] if stack else None,
                                                    stack, instruction or "", graph.index))
        return graph

    def _add_recompile(self, code, reasons: list[str], guard: SourceLine | None) -> None:
        with self._lock:
            self.recompiles.append(Recompile(
                SourceLine(code.co_filename, code.co_firstlineno, code.co_name),
                list(reasons), guard, len(self.graphs)))

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


_default_session = CompileSession()


def compile_session() -> CompileSession:
    """The session fxview.backend (the default one) records into."""
    return _default_session


def compile_run(model, *args, backend_inner="eager", loss=None, **kwargs) -> CompileSession:
    """Compiles `model` with torch.compile(backend=fxview.backend(inner=backend_inner)) into a
    session of its own and calls it once on (*args, **kwargs); the result is the session's
    `result`. The backward is recorded too where AOTAutograd's graphs are (inner "aot_eager"),
    or wherever `loss` is given: one backward pass from `loss(result)`, by default from the sum
    of every output that requires grad (its gradients accumulate into the model's .grad, as any
    backward's do). Returns the session, for show() or export()."""
    session = CompileSession()
    compiled = torch.compile(model, backend=Backend(backend_inner, session))
    session.result = compiled(*args, **kwargs)
    if loss is not None or backend_inner == "aot_eager":
        backward_from(session.result, loss)
    return session


def backward_from(result, loss=None) -> bool:
    """One backward pass from loss(result), or from the sum of every tensor in `result` that
    requires grad; False when there is none to start from."""
    if loss is not None:
        value = loss(result)
    else:
        leaves = [t for t in pytree.tree_leaves(result)
                  if isinstance(t, torch.Tensor) and t.requires_grad]
        if not leaves:
            return False
        value = sum(t.sum() for t in leaves)
    value.backward()
    return True


class Backend:
    """A torch.compile backend that records what Dynamo hands it into `session`, then compiles
    with `inner` ("eager" by default; any backend name torch.compile takes, or a callable),
    after the person's `passes` if given (dynamo_passes.py).

    `fxview.backend` is one, recording into compile_session(); fxview.backend(inner="inductor")
    or Backend(inner=..., session=CompileSession()) make others."""

    def __init__(self, inner="eager", session: CompileSession | None = None,
                 passes=None, serve=False) -> None:
        self.inner = inner
        self.session = session if session is not None else _default_session
        self.passes = passes  # dynamo_passes.named_passes: a callable, a list or a dict
        # fxview.backend(serve=True): once the first graph is recorded, the session waits for a
        # window from another machine (fxview.serve, in a background thread).
        self.serve = serve
        self.served = None

    def __call__(self, gm=None, example_inputs=None, *, inner=None, session=None, passes=None,
                 serve=None, **options):
        if gm is None:  # fxview.backend(inner="inductor"): a backend configured so
            return Backend(inner if inner is not None else self.inner,
                           session if session is not None else self.session,
                           passes if passes is not None else self.passes,
                           serve if serve is not None else self.serve)
        graph = self.session._add_graph(gm)
        if self.passes is not None:
            from .dynamo_passes import run_passes

            gm = run_passes(graph, self.passes, _recorded_copy)
        if self.inner == "aot_eager":  # its forward and backward graphs recorded too
            from .dynamo_aot import aot_compilers

            forward, backward = aot_compilers(graph, _recorded_copy, _FirstCall)
            options = dict(options, fw_compiler=forward, bw_compiler=backward)
        recording = contextlib.nullcontext()
        if self.inner == "inductor":  # its pre-grad and post-grad graphs recorded too
            from .dynamo_inductor import recording as inductor_recording

            recording = inductor_recording(graph)
        try:
            with recording:
                compiled = self._inner(options)(gm, example_inputs)
        except Exception as error:
            graph.error = f"{self._name()} failed to compile it: {type(error).__name__}: {error}"
            raise
        first = _FirstCall(graph, compiled)
        if self.serve and self.served is None:
            from .serve import serve as serve_session

            # Served once the first call has recorded its inputs (a graph is stepped on them).
            first.after_first_call = lambda: setattr(
                self, "served", serve_session(self.session, wait=False, on_detach="wait"))
        return first

    def _inner(self, options: dict):
        """The inner backend with what torch.compile(mode=, options=) gave: Inductor takes them
        through its own wrapper, as torch.compile would have made it; others as keywords."""
        from torch._dynamo.backends.registry import lookup_backend

        if self.inner == "inductor" and options:
            return torch._TorchCompileInductorWrapper(options.get("mode"),
                                                      options.get("options"), None)
        compiler = lookup_backend(self.inner)
        return (lambda gm, inputs: compiler(gm, inputs, **options)) if options else compiler

    def _name(self) -> str:
        return self.inner if isinstance(self.inner, str) else getattr(
            self.inner, "__name__", type(self.inner).__name__)

    def __repr__(self) -> str:
        return f"fxview.backend(inner={self._name()!r})"


class _FirstCall:
    """The compiled callable, recording its first call's arguments and results; after that it
    only counts calls. Called as the inner backend's callable is: with the arguments, or with
    one list of them when it is boxed (_boxed_call, as AOTAutograd's are)."""

    def __init__(self, graph: CompiledGraph, compiled) -> None:
        from torch.fx._lazy_graph_module import _LazyGraphModule

        # What Dynamo does itself with a lazily generated forward (OutputGraph), done here
        # because this wrapper hides it from Dynamo.
        owner = getattr(compiled, "__self__", None)
        if isinstance(owner, _LazyGraphModule):
            _LazyGraphModule.force_recompile(owner)
            compiled = owner.forward
        self.graph, self.compiled = graph, compiled
        self._boxed_call = bool(getattr(compiled, "_boxed_call", False))
        self.after_first_call = None  # Backend(serve=True) serves the session then

    def __call__(self, *args):
        graph = self.graph
        if graph.calls:
            graph.calls += 1
            return self.compiled(*args)
        # A boxed callable is called with one list by AOTAutograd, with the arguments by Dynamo.
        boxed = self._boxed_call and len(args) == 1 and isinstance(args[0], list)
        given = args[0] if boxed else args
        inputs = [_copied(a) for a in given]  # before the call: it may change them in place
        graph.requires_grad = [isinstance(a, torch.Tensor) and a.requires_grad for a in given]
        try:
            out = self.compiled(*args)
        except Exception as error:
            graph.error = f"the compiled code raised {type(error).__name__}: {error}"
            raise
        graph.inputs, graph.outputs, graph.calls = inputs, _copied(out), 1
        if isinstance(graph, CompiledGraph) and graph.aot:
            from .dynamo_inductor import share_first_call

            share_first_call(graph)
        if self.after_first_call is not None:
            self.after_first_call()
        return out


def _copied(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        items = [_copied(v) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def _recorded_copy(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """gm with a graph of its own: Inductor's passes rewrite the graph they are given in place,
    and what Dynamo made must stay as it was. Parameters and submodules are shared."""
    kept = torch.fx.GraphModule(gm, copy.deepcopy(gm.graph), class_name=type(gm).__name__)
    kept.meta = dict(getattr(gm, "meta", {}))
    return kept


def _compile_id() -> str:
    try:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        return str(cid) if cid is not None else ""
    except Exception:  # noqa: BLE001 - an older or newer Dynamo: the id is a nicety
        return ""


def _traced_frame() -> SourceLine | None:
    """The frame Dynamo is tracing while it calls the backend."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
        code = tx.f_code
        return SourceLine(code.co_filename, code.co_firstlineno, code.co_name)
    except Exception:  # noqa: BLE001
        return None


# --- the two wrapped functions of torch._dynamo ------------------------------------------

_hooks_installed = False
_pending_recompiles: list = []  # PyTorch 2.6 and 2.7: (code, reasons, guard) until a graph


def _install_hooks() -> None:
    """Wraps GraphCompileReason's __post_init__ (made where a graph breaks, while the tracer
    still stands at the instruction) and convert_frame's recompile-reason function (given the
    failed cache entries and the backend, which tells whose session it is). Once per process."""
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    try:
        from torch._dynamo import output_graph
        from torch._dynamo.symbolic_convert import InstructionTranslator

        reason_class = output_graph.GraphCompileReason
        made = reason_class.__post_init__

        def post_init(self) -> None:
            made(self)
            try:
                inst = InstructionTranslator.current_tx().current_instruction
                operand = getattr(inst, "argrepr", "") or (
                    "" if inst.arg is None else str(inst.arg))
                self._fxview_instruction = f"{inst.opname} {operand}".strip()
            except Exception:  # noqa: BLE001 - no tracer at hand: the instruction is unknown
                pass

        reason_class.__post_init__ = post_init
    except (ImportError, AttributeError):
        pass
    from torch._dynamo import convert_frame

    if hasattr(convert_frame, "get_and_maybe_log_recompilation_reasons"):  # 2.8 on
        reasons_of = convert_frame.get_and_maybe_log_recompilation_reasons

        def recompilation_reasons(cache_entries, frame, backend, *args, **kwargs):
            reasons = reasons_of(cache_entries, frame, backend, *args, **kwargs)
            # torch.compile hands Dynamo its own wrapper of the backend (_TorchCompileWrapper).
            ours = getattr(backend, "compiler_fn", backend)
            if reasons and isinstance(ours, Backend):
                ours.session._add_recompile(frame.f_code, reasons,
                                            _guard_source(cache_entries, frame))
            return reasons

        convert_frame.get_and_maybe_log_recompilation_reasons = recompilation_reasons
    elif hasattr(convert_frame, "get_and_maybe_log_recompilation_reason"):  # 2.6, 2.7
        reason_of = convert_frame.get_and_maybe_log_recompilation_reason

        def recompilation_reason(cache_entry, frame, *args, **kwargs):
            reasons = reason_of(cache_entry, frame, *args, **kwargs)
            if reasons:
                # No backend is passed here: the recompile goes to the session whose backend
                # compiles next, which is the one compiling this frame again.
                entries = []
                while cache_entry is not None:
                    entries.append(cache_entry)
                    cache_entry = cache_entry.next
                _pending_recompiles.append((frame.f_code, list(reasons),
                                            _guard_source(entries, frame)))
                _default_session._note(
                    "this PyTorch's Dynamo does not keep where a guard was made: a recompile "
                    "names its function and the guard, not the line that made the guard")
            return reasons

        convert_frame.get_and_maybe_log_recompilation_reason = recompilation_reason
    else:
        _default_session._note("this PyTorch's Dynamo does not let fxview see its recompiles")


def _guard_source(cache_entries, frame) -> SourceLine | None:
    """Where the first failing guard was made (the line whose value it guards)."""
    for entry in cache_entries:
        try:
            info = entry.guard_manager.check_verbose(frame.f_locals)
        except Exception:  # noqa: BLE001
            continue
        stack = getattr(info, "user_stack", None)
        if not info.result and stack:
            return SourceLine.of(stack[-1])
    return None


_install_hooks()  # before the first torch.compile traces: its first break precedes any graph
backend = Backend()
