"""A GraphModule run node by node the way a debugger steps, each node by
torch.fx.Interpreter.run_node on the real module: the Python twin of core/run/Interpreter (the
same commands and the same stops: step, step into a call_module's own traced graph or the
subgraphs a higher-order op runs (hops.py: torch.cond's branch, invoke_subgraph, while_loop's
cond and body each iteration, scan's and map's block once per slice, the grad-mode and autocast
wrappers' block), step out, run to a node, run to the end or a breakpoint, reset)."""

from __future__ import annotations

import contextlib
import inspect
import os
import time
import traceback

import torch
import torch.fx
from torch.fx.graph import _PyTreeCodeGen

from . import cost, fxgraph, operators, values, wire
from .hops import HopError, HopRun
from .summary import summarize

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_OWN_DIR = os.path.dirname(__file__) + os.sep


def _where(error: BaseException) -> str:
    """The innermost line of the person's own code in the error's traceback, as
    'file.py:12 in forward: `x = self.fc(x)`', or ''."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith((_TORCH_DIR, _OWN_DIR))
              and not f.filename.startswith("<eval_with_key>")]
    if not frames:
        return ""
    f = frames[-1]
    line = f" `{f.line.strip()}`" if f.line else ""
    return f" at {os.path.basename(f.filename)}:{f.lineno} in {f.name}:{line}".rstrip(":")


def _device_of(module: torch.nn.Module) -> torch.device | None:
    for p in module.parameters():
        return p.device
    for b in module.buffers():
        return b.device
    return None


def _synchronize(device) -> None:
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)


class Stepper:
    """One GraphModule's run. `inputs` are the placeholders' values in order (flat)."""

    def __init__(self, gm: torch.fx.GraphModule, inputs: list, prefix: str = "",
                 weights: frozenset = frozenset()):
        self.gm = gm
        # The placeholders that are weights, buffers or constants (a program's, or a Dynamo
        # graph's parameters, which come in as placeholders): the live set leaves them out, as it
        # leaves out what get_attr reads.
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.weights = frozenset(weights) | {
            n.name for n, v in zip(placeholders, inputs) if isinstance(v, torch.nn.Parameter)}
        self.interpreter = torch.fx.Interpreter(gm)
        self.nodes = list(gm.graph.nodes)
        self.by_name = {n.name: n for n in self.nodes}
        self.inputs = list(inputs)
        self.prefix = prefix
        self.device = _device_of(gm)
        # Node -> its condition (Always: before it; otherwise after it, when met).
        self.breakpoints: dict[str, wire.BreakCondition] = {}
        self.break_on_non_finite = False
        self.before_node = None  # (next name) -> bool: False stops the run there (Pause)
        # operators.py: each node's own computation inside a torch.profiler range naming it.
        self.annotate = False
        self.reset()

    # --- state ------------------------------------------------------------------------------
    def reset(self) -> None:
        self.interpreter.env = {}
        self.pc = 0
        self.records = {n.name: wire.NodeRecord() for n in self.nodes}
        self.changed: set[str] | None = None  # records changed since take_changes; None: all
        self.order: list[str] = []
        self.last = ""
        self.child: Stepper | None = None
        self.child_node: torch.fx.Node | None = None
        self.hop: HopRun | None = None  # the higher-order op child_node is, run block by block
        self.hop_us = 0.0  # the time of its blocks that finished
        self.hop_flops = 0  # the FLOPs of the blocks, or the module, stepped into so far
        self.finished = self.failed = False
        self.failure = ""
        self.output = None
        self.stop_note = ""
        # What the Values view reads: every value, kept past its last use while they fit in
        # values.KEEP_BYTES; each tensor's version counter when its node made it. A value freed
        # is made again when it is asked for (made_again), the last few kept in `remade`.
        self.values: dict[str, object] = {}
        self.remade: dict[str, object] = {}
        self.versions: dict[str, int] = {}
        self.kept_bytes = 0
        self.weight_storages: set = set()  # cost.py: the storages weights hold
        self.peak = wire.PeakLive()  # the live set's peak so far, and what is alive there

    @property
    def depth(self) -> int:
        return 1 + self.child.depth if self.child else 0

    def last_node(self) -> str:
        if self.child and self.child.last_node():
            return f"{self.child_node.name}.{self.child.last_node()}"
        return self.last

    def next_node(self) -> str:
        if self.child:
            return f"{self.child_node.name}.{self.child.next_node()}"
        return self.nodes[self.pc].name if self.pc < len(self.nodes) and not self.failed else ""

    def take_changes(self) -> set[str] | None:
        """The names of the records changed since the last call (what the window has not been
        sent), or None for every record (after a reset)."""
        changed, self.changed = self.changed, set()
        return changed

    def _changed(self, name: str) -> None:
        if self.changed is not None:
            self.changed.add(name)

    def _go_on(self) -> bool:
        return self.before_node is None or self.before_node(self.next_node())

    def made_again(self, name: str):
        """(value, "") with the value node `name` made in this run, made again: the graph run from
        the run's inputs up to it in a scratch Interpreter, values freed after their last use as
        Interpreter.run frees them; or (None, why not). It must summarise exactly as the node's
        record does, or it is not what the run saw (a random op, an input changed in place)."""
        if name in self.remade:
            return self.remade[name], ""
        record = self.records[name]
        scratch = torch.fx.Interpreter(self.gm)
        placeholders = iter(self.inputs)
        try:
            for node in self.nodes:
                value = next(placeholders) if node.op == "placeholder" else scratch.run_node(node)
                if node.name == name:
                    break
                scratch.env[node] = value
                for gone in scratch.user_to_last_uses.get(node, []):
                    scratch.env.pop(gone, None)
        except Exception as error:  # noqa: BLE001 - the model's own error, as a sentence
            return None, (f"Making the value of '{name}' again from the run's inputs raised "
                          f"{type(error).__name__} ({error}); Run to Cursor (F4) on the node to "
                          "see it.")
        if summarize(value, detail=record.value.hasDetail) != record.value:
            return None, (f"The value of '{name}' was freed after its last use, as torch.fx "
                          "frees it, and making it again from the run's inputs gave another "
                          "value (a random op, or a node that changed an input in place): Run "
                          "to Cursor (F4) on the node to see it as the run made it.")
        if len(self.remade) >= values.REMADE_KEPT:
            self.remade.pop(next(iter(self.remade)))
        self.remade[name] = value
        return value, ""

    # --- running one node -------------------------------------------------------------------
    def _run_node(self, node: torch.fx.Node):
        if node.op == "placeholder":
            index = sum(1 for n in self.nodes[:self.pc] if n.op == "placeholder")
            return self.inputs[index]
        return self.interpreter.run_node(node)

    def _operands(self, node: torch.fx.Node):
        """The node's args and kwargs as run_node takes them, and their tensors' versions."""
        if node.op in ("placeholder", "get_attr"):
            return ((), {}), {}
        operands = self.interpreter.fetch_args_kwargs_from_env(node)
        return operands, cost.versions(operands)

    def _note_cost(self, node: torch.fx.Node, operands, before: dict, value) -> None:
        record = self.records[node.name]
        if node.op == "output":
            return
        cost.note_output_cost(record, operands, before, value)
        if node.op == "get_attr" or node.name in self.weights:
            self.weight_storages.update(cost.storages(value))
        record.flops = cost.count_flops(node, self.gm, *operands, value)

    def _note_live(self, node: torch.fx.Node) -> None:
        """The bytes every value a later node uses holds, weights apart: what
        torch.fx.Interpreter.run's env still holds that some node still reads."""
        live = [(n.name, v) for n, v in self.interpreter.env.items()
                if n.users and n.op != "get_attr" and n.name not in self.weights]
        shares = cost.shares([v for _, v in live], self.weight_storages)
        total = self.records[node.name].liveBytes = sum(shares)
        if total > self.peak.bytes:
            self.peak = cost.peak_live(node.name, [n for n, _ in live], shares)

    def _done(self, node: torch.fx.Node, value, elapsed_us: float, operands=((), {}),
              before=None) -> None:
        env = self.interpreter.env
        env[node] = value
        self._note_cost(node, operands, before or {}, value)
        record = self.records[node.name]
        # Without std and the histogram: the window asks for them when it shows the node.
        record.state, record.value = wire.DONE_STATE, summarize(value, detail=False)
        self._changed(node.name)
        record.timeUs, record.runs = elapsed_us, record.runs + 1
        self.order.append(node.name)
        self.last = node.name
        self.values[node.name] = value
        self.versions[node.name] = values.version_of(value)
        # Values no later node needs go, as torch.fx.Interpreter.run frees them, once the ones
        # kept for the Values view fill values.KEEP_BYTES.
        for gone in self.interpreter.user_to_last_uses.get(node, []):
            env.pop(gone, None)
            size = values.tensor_bytes(self.values.get(gone.name))
            if self.kept_bytes + size <= values.KEEP_BYTES:
                self.kept_bytes += size
            else:
                self.values.pop(gone.name, None)
        self._note_live(node)
        self.pc += 1
        if node.op == "output":
            self.finished = True
            self.output = value

    def _fail(self, node: torch.fx.Node, error: BaseException) -> None:
        message = str(error).strip().splitlines()
        message = message[0] if message else "no message"
        self.failure = (f"Node '{node.name}' ({node.op} {fxgraph._target(node)}) raised "
                        f"{type(error).__name__}: {message}{_where(error)}. Change the input "
                        "or the model, then reset and run again.")
        record = self.records[node.name]
        record.state, record.error = wire.FAILED_STATE, self.failure
        self._changed(node.name)
        self.failed = True
        self.last = node.name
        self.order.append(node.name)

    def _advance(self) -> None:
        if self.finished or self.failed:
            return
        node = self.nodes[self.pc]
        operands, before = self._operands(node)
        _synchronize(self.device)
        start = time.perf_counter()
        try:
            if self.annotate:  # the node's operators, not fxview's summaries, in its range
                with torch.profiler.record_function(operators.PREFIX + node.name):
                    value = self._run_node(node)
            else:
                value = self._run_node(node)
            _synchronize(self.device)
        except Exception as error:  # noqa: BLE001 - the model's error is the person's to see
            self._fail(node, error)
            return
        self._done(node, value, (time.perf_counter() - start) * 1e6, operands, before)

    # --- stepping into a module or a function -----------------------------------------------
    def _inner_graph(self, node: torch.fx.Node):
        """The node's own traced graph and its inputs, or None when it has none to show."""
        if node.op == "call_module":
            root = self.gm.get_submodule(node.target)
        elif node.op == "call_function" and inspect.isfunction(node.target) \
                and not (node.target.__module__ or "").startswith("torch"):
            root = node.target  # a torch.fx.wrap'ped function of the person's own
        else:
            return None
        args, kwargs = self.interpreter.fetch_args_kwargs_from_env(node)
        try:
            inner = fxgraph.symbolic_trace(root)
            bound = inspect.signature(inner.forward).bind(*args, **kwargs)
        except Exception:  # noqa: BLE001 - it cannot be traced: it runs whole
            return None
        bound.apply_defaults()
        inputs = []
        for p in inner.graph.nodes:
            if p.op == "placeholder":
                inputs.append(bound.arguments.get(p.target.lstrip("*")))
        return inner, inputs

    def _enter(self, node: torch.fx.Node, graph, inputs) -> None:
        self.child = Stepper(graph, inputs, prefix=node.name)
        self.child_node = node

    def _enter_hop(self, node: torch.fx.Node) -> bool:
        """Opens a higher-order op's first block; False when it runs whole (or failed)."""
        if node.op != "call_function" or node.kwargs:
            return False
        args, _ = self.interpreter.fetch_args_kwargs_from_env(node)
        try:
            hop = HopRun.start(node.target, args)
        except HopError as error:
            self._fail(node, error)
            return True
        if hop is None:
            return False
        self.hop, self.hop_us = hop, 0.0
        self._enter(node, hop.block, hop.operands)
        self._show_block_runs(node)
        return True

    def _show_block_runs(self, node: torch.fx.Node) -> None:
        if self.hop.block_runs is not None and self.records[node.name].blockRuns != \
                self.hop.block_runs:
            self.records[node.name].blockRuns = list(self.hop.block_runs)
            self._changed(node.name)

    def _child_finished(self) -> None:
        """The child's graph ran to its output: the op's next block, or the node's value."""
        node, child = self.child_node, self.child
        elapsed = sum(r.timeUs for r in child.records.values())
        self.hop_flops += sum(r.flops for r in child.records.values())
        if self.hop is None:
            self.child = self.child_node = None
            return self._done_inside(node, child.output, elapsed)
        self.hop_us += elapsed
        try:
            done = self.hop.finish(child.output)
        except HopError as error:
            self.child = self.child_node = self.hop = None
            return self._fail(node, error)
        self._show_block_runs(node)
        if not done:
            return self._enter(node, self.hop.block, self.hop.operands)
        value = self.hop.value
        self.child = self.child_node = self.hop = None
        self._done_inside(node, value, self.hop_us)

    def _done_inside(self, node: torch.fx.Node, value, elapsed_us: float) -> None:
        """A node stepped into has finished: its FLOPs are those its own nodes counted."""
        operands = self.interpreter.fetch_args_kwargs_from_env(node)
        self._done(node, value, elapsed_us, operands)
        self.records[node.name].flops, self.hop_flops = self.hop_flops, 0

    def _step_child(self, into: bool) -> None:
        with self.hop.context() if self.hop else contextlib.nullcontext():
            self.child.step_into() if into else self.child.step()
        self.order.append(f"{self.child_node.name}.{self.child.last_node()}")
        if self.child.failed:
            self.failure = f"Inside '{self.child_node.name}': {self.child.failure}"
            record = self.records[self.child_node.name]
            record.state, record.error = wire.FAILED_STATE, self.failure
            self._changed(self.child_node.name)
            self.failed = True
        elif self.child.finished:
            self._child_finished()

    # --- the debugger's commands ------------------------------------------------------------
    def step(self) -> None:
        if self.child:
            return self._step_child(False)
        self._advance()

    def step_into(self) -> None:
        if self.child:
            return self._step_child(True)
        if self.finished or self.failed:
            return
        node = self.nodes[self.pc]
        if self._enter_hop(node):
            return self._step_child(False) if self.child else None
        inner = self._inner_graph(node)
        if inner is None:
            return self._advance()
        self._enter(node, *inner)
        self._step_child(False)

    def step_out(self) -> None:
        if not self.child:
            return self.run_to_end()
        self.stop_note = ""
        while self.child and not self.failed:
            if not self._go_on():
                return
            self._step_child(False)
            if self.check_watch():
                return

    def run_to(self, name: str) -> None:
        self.stop_note = ""
        while not self.finished and not self.failed:
            if not self._go_on():
                return
            self.step()
            if self.failed or self.last_node() == name or self.check_watch():
                return

    def run_to_end(self) -> None:
        self.stop_note = ""
        first = True
        while not self.finished and not self.failed:
            # A breakpoint stops the run before its node; continuing from it runs that node.
            at = self.breakpoints.get(self.next_node())
            if not first and at is not None and at.kind == wire.ALWAYS:
                return
            first = False
            if not self._go_on():
                return
            self.step()
            if self.check_watch():
                return

    # --- where the numbers go wrong (core/run/InterpreterWatch.cpp) -------------------------
    def innermost(self) -> "Stepper":
        """The stepper whose own node ran last: the module Step Into is in, or this one."""
        if self.child and self.child.last_node():
            return self.child.innermost()
        return self

    def check_watch(self) -> bool:
        """Whether the node that ran last meets its breakpoint's condition or the NaN watch;
        sets stop_note to the paragraph that says so."""
        self.stop_note = ""
        name, at = self.last_node(), self.innermost()
        record = at.records.get(at.last)
        if not name or record is None or record.state != wire.DONE_STATE:
            return False
        condition = self.breakpoints.get(name)
        hit = condition is not None and values.condition_met(condition, record.value)
        counts = values.non_finite(record.value)
        if not hit and not (self.break_on_non_finite and sum(counts)):
            return False
        note = f"Stopped at {name}: "
        if hit and condition.kind == wire.ABS_ABOVE and not sum(counts):
            note += (f"its output reaches |x| = {values.largest_magnitude(record.value)!r}, "
                     f"above the breakpoint's |x| > {condition.threshold!r}.")
        else:
            node, bad = at.by_name[at.last], []
            for used in node.all_input_nodes:
                r = at.records.get(used.name)
                if r is not None and r.state == wire.DONE_STATE and sum(values.non_finite(r.value)):
                    bad.append(f"{used.name} ({values.non_finite_text(values.non_finite(r.value))})")
            note += f"its output holds {values.non_finite_text(counts)}"
            note += ("; they came in with " + ", ".join(bad) + ", already not finite."
                     if bad else "; every input it took was finite, so they were born here.")
            trace = node.stack_trace or ""
            if "File \"" in trace:
                note += "\n  " + trace[trace.rindex("File \""):].rstrip("\n")
        self.stop_note = note
        return True


def bind_inputs(gm: torch.fx.GraphModule, args, kwargs) -> list:
    """The placeholders' values, in order, for a call gm(*args, **kwargs): a torch.export
    module's inputs are flattened by its in_spec as its own forward does; other GraphModules
    bind their forward's signature, defaults included."""
    if isinstance(gm.graph._codegen, _PyTreeCodeGen):
        signature = inspect.signature(gm.forward)
        bound = signature.bind(*args, **kwargs)
        return list(gm.graph.process_inputs(*bound.args, **bound.kwargs))
    bound = inspect.signature(gm.forward).bind(*args, **kwargs)
    bound.apply_defaults()
    values = []
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            name = n.target.lstrip("*")
            values.append(bound.arguments[name] if name in bound.arguments else
                          (n.args[0] if n.args else None))
    return values


def finish_outputs(gm: torch.fx.GraphModule, output):
    """The run's output as gm(...) returns it (a torch.export module's out_spec applied)."""
    return gm.graph.process_outputs(output)


def unflatten_inputs(gm: torch.fx.GraphModule, values: list) -> tuple[tuple, dict]:
    """The call gm(*args, **kwargs) whose placeholders get `values`: bind_inputs undone."""
    if isinstance(gm.graph._codegen, _PyTreeCodeGen):
        import torch.utils._pytree as pytree

        args, kwargs = pytree.tree_unflatten(values, gm.graph._codegen.pytree_info.in_spec)
        return tuple(args), dict(kwargs)
    return tuple(values), {}
