"""The live engine: the person's model, in their own Python process, served to the fxview window
(or to fxtrace) over the engine protocol (docs/protocol.md), as fxview-engine serves a file.

One thread reads the window's frames (so that an Interrupt reaches a run in progress); the
requests are handled one at a time, in order, by the thread that serves (a background thread
for show(wait=False), the caller's for wait=True), each answered and then closed with Done.
"""

from __future__ import annotations

import math
import os
import queue
import socket
import sys
import tempfile
import threading
import time

import torch

from . import comparison, cost, fxgraph, operators, values, wire
from .stepper import Stepper, bind_inputs, finish_outputs, unflatten_inputs
from .summary import exactly_equal, summarize

# Targets whose result is random: two runs need not agree (as core/records/OutputCheck.cpp's list).
_RANDOM = ("dropout", "rand", "bernoulli", "multinomial", "normal", "uniform", "empty")


def _runtime() -> str:
    return (f"Python {sys.version.split()[0]}, PyTorch {torch.__version__}, "
            f"pid {os.getpid()}")


def _first_random(gm) -> str:
    for n in gm.graph.nodes:
        if n.op == "call_module":
            try:
                module = gm.get_submodule(n.target)
            except AttributeError:
                continue
            if isinstance(module, torch.nn.modules.dropout._DropoutNd) and module.training:
                return n.name
        elif n.op in ("call_function", "call_method"):
            name = str(getattr(n.target, "__name__", n.target)).lower()
            if any(word in name for word in _RANDOM):
                if "dropout" in name and n.kwargs.get("training", True) is False:
                    continue
                return n.name
    return ""


def make_inputs(specs: list, seed: int, placeholders: list, given: list, device):
    """The placeholders' values the specs describe (a missing spec is `example`), or (None, the
    sentence why not): `example` is the value given; a shape is torch.randn after
    torch.manual_seed(seed) (integers in [0, 10), bools 0/1) on `device`; file:F is torch.load(F)."""
    torch.manual_seed(seed)
    made = []
    for i, p in enumerate(placeholders):
        spec = specs[i] if i < len(specs) else wire.InputSpec(example=True)
        if spec.example:
            made.append(given[i])
        elif spec.file:
            try:
                made.append(torch.load(spec.file, map_location=device))
            except Exception as error:  # noqa: BLE001
                return None, f"Cannot read {spec.file} for {p.name}: {error}."
        else:
            dtype = getattr(torch, spec.dtype, None)
            if not isinstance(dtype, torch.dtype):
                return None, f"{spec.dtype} is not a dtype PyTorch knows (for {p.name})."
            if dtype.is_floating_point:
                made.append(torch.randn(spec.shape, dtype=dtype).to(device))
            elif dtype == torch.bool:
                made.append(torch.randint(0, 2, spec.shape).to(dtype).to(device))
            else:
                made.append(torch.randint(0, 10, spec.shape, dtype=dtype).to(device))
    return made, ""


class Session:
    """The person's model as the window sees it: the view's GraphModule, the inputs (the
    arguments given to show() or specs the window asked for) and the run."""

    def __init__(self, model, args, kwargs, view: fxgraph.View, source: str):
        self.model, self.args, self.kwargs = model, tuple(args), dict(kwargs or {})
        self.view, self.gm, self.source = view, view.gm, source
        self.class_name = type(model).__qualname__
        self.given = bind_inputs(self.gm, self.args, self.kwargs)
        self.placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        self.specs = [wire.InputSpec(example=True) for _ in self.placeholders]
        self.seed = 0
        self.stepper = Stepper(self.gm, self.given)
        self.graph_code = self.code_of_graph()
        self.input_values: list | None = None  # the inputs' summaries, made once per input
        self.output_check = wire.OutputCheck()

    # --- what the window is sent ------------------------------------------------------------
    def opened(self) -> wire.OpenedModel:
        shapes = ", ".join(
            f"{p.name}: {self._describe(v)}" for p, v in zip(self.placeholders, self.given))
        return wire.OpenedModel(
            className=self.class_name, graph=fxgraph.to_wire(self.gm, self.class_name),
            graphText=fxgraph.graph_text(self.gm), inputs=self.specs, seed=self.seed,
            inputNote=f"input: the arguments given to fxview ({shapes})" if shapes else "",
            note=self.view.note)

    @staticmethod
    def _describe(value) -> str:
        if isinstance(value, torch.Tensor):
            return f"{list(value.shape)} {fxgraph.dtype_name(value.dtype)}"
        return type(value).__name__

    def _frame(self) -> wire.FrameState | None:
        at, path, kind = self.stepper, [], ""
        while at.child:
            node = at.child_node
            kind = node.target if node.op == "call_function" else \
                fxgraph.module_class(type(at.gm.get_submodule(node.target)))
            kind = getattr(kind, "__qualname__", kind)
            if at.hop is not None and at.hop.block_name:  # which block of a higher-order op
                kind = f"{kind}: {at.hop.block_name}"
            path.append(node.name)
            at = at.child
        if at is self.stepper:
            return None
        return wire.FrameState(
            node=".".join(path), moduleType=str(kind),
            graph=fxgraph.to_wire(at.gm, type(at.gm).__name__),
            graphText=fxgraph.graph_text(at.gm), records=dict(at.records),
            last=at.last_node(), next=at.next_node())

    def state(self) -> wire.RunState:
        s = self.stepper
        if not s.finished:
            self.output_check = wire.OutputCheck()
        elif self.output_check.verdict == wire.NOT_CHECKED:
            self.output_check = self.check_outputs()
        # Only the records that changed since the last state went out: a Step encodes one.
        changed = s.take_changes()
        records = dict(s.records) if changed is None else {n: s.records[n] for n in changed}
        if self.input_values is None:
            self.input_values = [summarize(v) for v in self.user_values()]
        return wire.RunState(
            records=records, recordsAreChanges=changed is not None, order=list(s.order),
            last=s.last_node(), next=s.next_node(), finished=s.finished, failed=s.failed,
            failure=s.failure, stopNote=s.stop_note, outputCheck=self.output_check,
            depth=s.depth, inputs=self.specs, seed=self.seed, inputValues=self.input_values,
            steppedInto=self._frame(), peak=s.peak)

    def _stepper(self, made: list) -> Stepper:
        """A fresh run on the values the person gives (every placeholder's, here)."""
        return Stepper(self.gm, made)

    def user_values(self) -> list:
        """The values of the placeholders the person gives (the window's input bar): all of them
        for a live GraphModule."""
        return self.stepper.inputs

    def run_mode(self):
        """The grad mode commands run in: a module's forward checked under no_grad."""
        return torch.no_grad()

    def executed_path(self) -> wire.PathState:
        # A torch.fx graph has no branches or loops: what ran is the graph itself.
        records = {name: r for name, r in self.stepper.records.items()
                   if r.state == wire.DONE_STATE}
        return wire.PathState(graph=fxgraph.to_wire(self.gm, self.class_name), records=records)

    def stepper_in(self, frame: str) -> Stepper | None:
        """The stepper of the module the run has stepped into as `frame` names it
        ("layer1.0"; "" for the model's own), or None when the run is not inside it."""
        at, rest = self.stepper, frame
        while rest:
            name = at.child_node.name if at.child else None
            if name is None or not (rest == name or rest.startswith(name + ".")):
                return None
            rest, at = rest[len(name) + 1:], at.child
        return at

    def value_named(self, r: wire.ValueSliceRequest):
        """(value, error, note) for what a Values view request names, as
        core/run/InterpreterValues.cpp finds it."""
        at = self.stepper_in(r.frame)
        if at is None:
            return None, (f"The run is no longer inside '{r.frame}': step into it again to "
                          "see its values."), ""
        node, record = at.by_name.get(r.node), at.records.get(r.node)
        if node is None or record is None:
            return None, f"There is no node '{r.node}' to show values of.", ""
        if r.weight:
            held = None
            if node.op == "call_module":
                held = getattr(at.gm.get_submodule(node.target), r.weight, None)
            if not isinstance(held, torch.Tensor):
                return None, f"Node '{r.node}' holds no tensor named '{r.weight}'.", ""
            return held, "", ""
        if record.state == wire.PENDING:
            return None, (f"Node '{r.node}' has not run yet: step to it or Run to Cursor (F4) "
                          "to see its values."), ""
        if record.state == wire.FAILED_STATE:
            return None, f"Node '{r.node}' failed, so it has no value: {record.error}", ""
        if r.node not in at.values:
            value, error = at.made_again(r.node)
            return value, error, ""
        value, note = at.values[r.node], ""
        version = at.versions.get(r.node, -1)
        if version >= 0 and values.version_of(value) != version:
            note = (f"A later node changed this tensor in place since '{r.node}' made it: these "
                    "are its values now, as torch.fx's Interpreter holds them.")
        elif record.runs > 1:
            note = f"The value of its last run (of {record.runs})."
        return value, "", note

    def value_slice(self, r: wire.ValueSliceRequest) -> wire.ValueSlice:
        value, error, note = self.value_named(r)
        if error:
            return wire.ValueSlice(error=error, request=r)
        out = values.slice_value(value, r)
        out.note = note
        return out

    def detail(self, r: wire.ValueSliceRequest) -> wire.ValueSlice:
        """The node's whole value summarised with std and the histogram, which its record was
        sent without; the record keeps them (the window has them now)."""
        r.weight, r.item = "", []
        value, error, note = self.value_named(r)
        at = self.stepper_in(r.frame)
        if not error and note.startswith("A later node changed"):
            value, error = at.made_again(r.node)  # as the node made it, not as it is now
        if error:
            return wire.ValueSlice(error=error, request=r)
        summary = summarize(value)
        at.records[r.node].value = summary
        return wire.ValueSlice(request=r, summary=summary)

    def save_value(self, r: wire.SaveValueRequest):
        """The value's file (torch.save's or .npy's) as SavedValue pieces of at most
        wire.SAVED_VALUE_PIECE bytes, `more` on all but the last; or one piece with the
        sentence why there is none. The window writes the file: no path crosses the wire."""
        value, error, _ = self.value_named(r.value)
        if error:
            yield wire.SavedValue(error=error)
            return
        npy = r.format == wire.NPY
        what = (f"'{r.value.node}.{r.value.weight}'" if r.value.weight
                else f"the value of '{r.value.node}'")
        with tempfile.TemporaryDirectory(prefix="fxview-value-") as folder:
            path = os.path.join(folder, "value.npy" if npy else "value.pt")
            error = values.save_value(value, list(r.value.item), npy, path, what)
            if error:
                yield wire.SavedValue(error=error)
                return
            with open(path, "rb") as f:
                piece = f.read(wire.SAVED_VALUE_PIECE)
                while True:
                    after = f.read(wire.SAVED_VALUE_PIECE)
                    yield wire.SavedValue(data=piece, more=bool(after))
                    if not after:
                        return
                    piece = after

    # --- what the window asks ---------------------------------------------------------------
    def make_inputs(self, specs: list, seed: int):
        """The inputs the specs describe, or the sentence why not: `example` is the argument
        given to show(); a shape is torch.randn after torch.manual_seed(seed) (integers in
        [0, 10), bools 0/1) on the model's device; file:F is torch.load(F)."""
        if len(specs) > len(self.placeholders):
            return None, (f"{len(specs)} inputs were given, but the graph has "
                          f"{len(self.placeholders)} placeholders.")
        return make_inputs(specs, seed, self.placeholders, self.given,
                           self.stepper.device or torch.device("cpu"))

    def set_inputs(self, specs: list, seed: int) -> str:
        """Makes the run's inputs from the specs ("" or why not), as make_inputs does."""
        made, error = self.make_inputs(specs, seed)
        if error:
            return error
        self.specs = list(specs) + [wire.InputSpec(example=True)] * (len(made) - len(specs))
        self.seed = seed
        old = self.stepper
        self.stepper = self._stepper(made)
        self.graph_code = self.code_of_graph()
        self.input_values = None
        self.stepper.breakpoints = old.breakpoints
        self.stepper.break_on_non_finite = old.break_on_non_finite
        self.output_check = wire.OutputCheck()
        return ""

    def compare(self, r: wire.CompareRequest, before_node) -> wire.ComparisonAnswer:
        """Run A (a fresh run on the run's inputs) beside run B (a copy of the model on another
        device or dtype, or on other inputs), in this process; the run being stepped stays."""
        if r.modelB:
            return wire.ComparisonAnswer(error=(
                "A live model is compared with itself (on another device, dtype or input); to "
                "compare two files, open one of them in fxview."))
        dtype = getattr(torch, r.dtype, None) if r.dtype else None
        if r.dtype and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            return wire.ComparisonAnswer(error=f"Run B's dtype '{r.dtype}' is not a floating "
                                               "dtype PyTorch knows.")
        device = None
        if r.device:
            try:
                device = torch.device(r.device)
                torch.empty(0, device=device)
            except Exception as error:  # noqa: BLE001 - the device this PyTorch cannot use
                line = (str(error).strip().splitlines() or [""])[0]
                return wire.ComparisonAnswer(error=f"Run B's device '{r.device}' cannot be used "
                                                   f"here ({line}).")
        inputs_b = self.stepper.inputs
        if r.inputsB or r.hasSeedB:
            inputs_b, error = self.make_inputs(r.inputsB or self.specs,
                                               r.seedB if r.hasSeedB else self.seed)
            if error:
                return wire.ComparisonAnswer(error=f"Run B: {error}")
        gm_b = comparison.run_b_model(self.gm, device, dtype)
        inputs_b = [comparison.cast_inputs(v, device, dtype) for v in inputs_b]
        result = comparison.compare_runs(self.gm, self.stepper.inputs, gm_b, inputs_b,
                                      local=r.local, before_node=before_node)
        result.model_a = result.model_b = self.source
        result.run_a = "as the window runs it"
        result.run_b = ", ".join(x for x in (r.device, r.dtype) if x) or "other inputs"
        if r.inputsB or r.hasSeedB:
            result.run_b += f", input seed {r.seedB}" if r.hasSeedB else ", other inputs"
        return wire.ComparisonAnswer(json=result.to_json())

    def reference(self):
        """The model's own forward on the run's inputs: the person's module on the arguments
        given, or the GraphModule itself on inputs the window made."""
        if all(spec.example for spec in self.specs):
            return self.model(*self.args, **self.kwargs)
        args, kwargs = unflatten_inputs(self.gm, self.stepper.inputs)
        return self.gm(*args, **kwargs)

    def code_of_graph(self) -> str | None:
        """The Python code of the graph as the stepper took its nodes (None if it has none),
        made once per stepper: printing a graph's code costs milliseconds (2.8 ms for vit_b_16),
        too much for the Step that reaches the output node."""
        try:
            return self.gm.graph.python_code(root_module="self").src
        except Exception:  # noqa: BLE001 - a graph that cannot print its code: run forward
            return None

    def forward_is_the_graph(self) -> bool:
        """Whether the reference is the stepped GraphModule and its forward is the code of the
        graph the stepper runs (not edited since recompile(), not replaced): then forward makes
        the same calls on the same values, and the run's own output is the reference, exactly."""
        module = self.model if all(spec.example for spec in self.specs) else self.gm
        if module is not self.gm or "forward" in vars(self.gm) or self.kwargs:
            return False
        return self.graph_code is not None and self.gm.code == self.graph_code

    def check_outputs(self) -> wire.OutputCheck:
        got = finish_outputs(self.gm, self.stepper.output)
        if self.forward_is_the_graph():
            return wire.OutputCheck(wire.EQUAL)
        try:
            with torch.no_grad():
                expected = self.reference()
        except Exception as error:  # noqa: BLE001
            return wire.OutputCheck(wire.FORWARD_FAILED,
                                    f"The model's own forward raised {type(error).__name__} on "
                                    f"this input ({error}); its output is not checked.")
        if exactly_equal(got, expected):
            return wire.OutputCheck(wire.EQUAL)
        if random := _first_random(self.gm):
            return wire.OutputCheck(wire.NONDETERMINISTIC,
                                    f"The output is not checked: node '{random}' is random, so "
                                    "two runs need not agree.")
        output = self.stepper.nodes[-1].name
        return wire.OutputCheck(wire.DIFFERS,
                                f"The graph's output ('{output}') differs from the model's own "
                                "forward on the same input: this is a bug of fxview's, please "
                                "report it with the model.")


class LiveEngine:
    """Serves one Session over a connected socket until the peer closes it."""

    NAME = "live engine"  # in the sentences the window shows
    AGAIN = "call fxview.show again to open a new window"  # what to do when it ended

    def __init__(self, session: Session, sock: socket.socket):
        self.session, self.sock = session, sock
        self.requests: queue.Queue = queue.Queue()
        self.busy = False
        # Pause: an Interrupt stops every request that had come before it (the one running, at
        # its next node, and those waiting behind it), none that comes after. Requests are
        # numbered as they come; `interrupt_upto` is the last number an Interrupt reached.
        self.received = 0
        self.interrupt_upto = 0
        self.current = 0
        self.at = None  # [node, when it started, said]: the node a command is running now
        self.write_lock = threading.Lock()
        self.unreadable = ""  # why the window's last frame could not be read: the session ends

    def send(self, kind: int, payload: bytes = b"") -> None:
        with self.write_lock:
            self.sock.sendall(wire.frame(kind, payload))

    def _read(self) -> None:
        stream = self.sock.makefile("rb")
        try:
            while (got := wire.read_frame(stream)) is not None:
                if got[0] == wire.INTERRUPT:
                    self.interrupt_upto = self.received
                else:
                    self.received += 1
                    self.requests.put((self.received, got))
        except wire.WireError as error:
            self.unreadable = str(error)
        except OSError:
            pass
        finally:
            self.interrupt_upto = math.inf  # the window is gone: a run stops at its next node
            self.requests.put(None)

    def hello(self) -> wire.EngineHello:
        return wire.EngineHello(pid=os.getpid(), live=True, runtime=_runtime(),
                                confinement="it runs in your own Python process "
                                            f"(pid {os.getpid()}), as your code does")

    def serve(self) -> None:
        """Answers requests until the window goes (it closed, or the socket broke)."""
        try:
            self.send(wire.HELLO, wire.encode(self.hello()))
            threading.Thread(target=self._read, name="fxview reader", daemon=True).start()
            threading.Thread(target=self._watch, name="fxview watch", daemon=True).start()
            while (request := self.requests.get()) is not None:
                self.current, frame = request
                self.busy = True
                try:
                    self.handle(*frame)
                    self.send(wire.DONE)
                finally:
                    self.busy = False
                    self.at = None
            self._end_unreadable()
        except wire.WireError as error:
            self.unreadable = str(error)
            self._end_unreadable()
        except OSError:
            pass  # the window went away: the session ends
        finally:
            self.sock.close()

    def _end_unreadable(self) -> None:
        """A frame from the window that does not read (a broken or hostile peer) ends the
        session: the window is told why, and so is this process, in one line each."""
        if not self.unreadable:
            return
        sentence = (f"The {self.NAME} could not read a message from the window "
                    f"({self.unreadable}), so it ended the session; {self.AGAIN}.")
        print(f"fxview: {sentence}", file=sys.stderr)
        try:
            self.send(wire.FAILED, wire.encode(sentence))
        except OSError:
            pass  # the window is gone already

    def _watch(self) -> None:
        """Says which node a command is at once it has run 50 ms (the window names it if the
        node never returns), as fxview-engine does, without a message for every quick node."""
        try:
            while self.sock.fileno() >= 0:
                time.sleep(0.05)
                at = self.at
                if self.busy and at and not at[2] and time.monotonic() - at[1] > 0.05:
                    at[2] = True
                    self.send(wire.RUNNING, wire.encode(at[0]))
        except OSError:
            pass  # the window went away

    def _before_node(self, next_name: str) -> bool:
        self.at = [next_name, time.monotonic(), False]
        return self.current > self.interrupt_upto

    def publish(self) -> None:
        self.send(wire.STATE, wire.encode(self.session.state()))

    def handle(self, kind: int, payload: bytes) -> None:
        s = self.session
        try:
            if kind == wire.OPEN:
                wire.decode(payload, wire.OpenRequest)  # the source names this session
                self.send(wire.PROGRESS, wire.encode(wire.ProgressNote(
                    f"Reading {s.class_name}'s graph", 40)))
                self.send(wire.OPENED, wire.encode(s.opened()))
                self.publish()
            elif kind == wire.SET_INPUTS:
                request = wire.decode(payload, wire.InputsRequest)
                error = s.set_inputs(request.inputs, request.seed)
                if error:
                    return self.send(wire.INPUTS_REJECTED, wire.encode(error))
                self.send(wire.INPUTS_APPLIED, wire.encode(request))
                self.publish()
            elif kind == wire.COMMAND:
                self.command(wire.decode(payload, wire.CommandRequest))
            elif kind == wire.SET_BREAKPOINT:
                request = wire.decode(payload, wire.BreakpointRequest)
                if request.condition.kind > wire.ABS_ABOVE:
                    raise wire.WireError("an unknown breakpoint condition")
                if request.on:
                    s.stepper.breakpoints[request.node] = request.condition
                else:
                    s.stepper.breakpoints.pop(request.node, None)
            elif kind == wire.SET_WATCH:
                request = wire.decode(payload, wire.WatchRequest)
                s.stepper.break_on_non_finite = request.breakOnNonFinite
            elif kind == wire.VALUE_REQUEST:
                request = wire.decode(payload, wire.ValueSliceRequest)
                self.send(wire.VALUES, wire.encode(s.value_slice(request)))
            elif kind == wire.SAVE_VALUE:
                request = wire.decode(payload, wire.SaveValueRequest)
                if request.format > wire.NPY:
                    raise wire.WireError("an unknown value file format")
                for piece in s.save_value(request):
                    self.send(wire.VALUE_SAVED, wire.encode(piece))
            elif kind == wire.COMPARE:
                request = wire.decode(payload, wire.CompareRequest)
                self.send(wire.COMPARISON, wire.encode(s.compare(request, self._before_node)))
            elif kind == wire.DETAIL_REQUEST:
                request = wire.decode(payload, wire.ValueSliceRequest)
                self.send(wire.DETAIL, wire.encode(s.detail(request)))
            elif kind == wire.PROFILE:
                self.profile(wire.decode(payload, wire.ProfileRequest))
            elif kind == wire.EXECUTED_PATH:
                self.send(wire.PATH, wire.encode(s.executed_path()))
            else:
                raise wire.WireError(f"an unknown request {kind}")
        except wire.WireError:
            raise
        except Exception as error:  # noqa: BLE001 - one sentence, the session stays
            line = (str(error).strip().splitlines() or ["no message"])[0]
            self.send(wire.FAILED, wire.encode(
                f"The {self.NAME} stopped on an unexpected error ({type(error).__name__}: "
                f"{line}); the model stays open, Reset (Ctrl+Shift+F5) to run again."))

    def profile(self, request: wire.ProfileRequest) -> None:
        """Run ▸ Profile…: every node's time over the runs (cost.profile), then the state."""
        if not 1 <= request.runs <= wire.MAX_PROFILE_RUNS:
            return self.send(wire.PROFILED, wire.encode(wire.ProfileAnswer(
                error=f"A profile takes 1 to {wire.MAX_PROFILE_RUNS} runs, not "
                      f"{request.runs}.")))
        stepper = self.session.stepper
        self.at = [stepper.next_node(), time.monotonic(), False]
        answer = wire.ProfileAnswer()
        with self.session.run_mode():
            if request.operators:  # first, so that the stepper ends holding a timed run
                answer.operators, answer.trace, answer.operatorsNote = \
                    operators.profiled_run(stepper, self._before_node)
            if request.operators and not stepper.finished:  # it failed, or Pause
                answer.error = answer.operatorsNote
            else:
                answer.times, answer.runs, answer.error = \
                    cost.profile(stepper, request.runs, self._before_node,
                                 warm_up=not request.operators)
        self.send(wire.PROFILED, wire.encode(answer))
        self.publish()

    def command(self, request: wire.CommandRequest) -> None:
        stepper = self.session.stepper
        stepper.before_node = self._before_node
        self.at = [stepper.next_node(), time.monotonic(), False]
        commands = {wire.STEP: stepper.step, wire.STEP_INTO: stepper.step_into,
                    wire.STEP_OUT: stepper.step_out, wire.RUN_TO_END: stepper.run_to_end,
                    wire.RESET: stepper.reset,
                    wire.RUN_TO: lambda: stepper.run_to(request.node)}
        if request.command not in commands:
            raise wire.WireError("an unknown run command")
        with self.session.run_mode():
            commands[request.command]()
            if request.command in (wire.STEP, wire.STEP_INTO) and not stepper.failed:
                stepper.check_watch()  # Play steps one node at a time: the watch stops it too
        self.publish()
