"""The live engine (python/fxview/live.py) as the window meets it, over a socket, against
torch.fx's Interpreter in this process (issue 38's fast live steps):
- each node's record has shape, dtype, stride, min, max, mean and NaN/Inf counts equal to what
  the Interpreter's value gives, and no std or histogram (hasDetail false);
- DetailRequest answers the node's whole value with std (torch.std over the finite values) and
  the histogram, the mean unchanged; a value freed (as Interpreter.run frees it) or changed in
  place since is made again from the run's inputs, and a sentence says when that cannot give
  what the run made (a random op);
- after Open and Reset every record travels, after a Step only the one that changed;
- Compare's run B shares the model's weights when nothing changes, else converts a copy;
- the output check uses the run's own output when the model is the GraphModule and its forward
  is its graph's code, and runs the forward otherwise (an nn.Module; a graph edited without
  recompile(), whose difference it still finds).
Run by CTest as python_live_engine.
"""

import socket
import sys
import threading
from pathlib import Path

import torch
import torch.fx

from fxview import fxgraph, values, wire
from fxview.live import LiveEngine, Session

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, run_groups, values_in_fx  # noqa: E402


CALLS = [0]


def counted(x):
    """Counts its calls (torch.fx.wrap'ped, so a call in the graph and in forward alike): how
    many times the model ran."""
    CALLS[0] += 1
    return x * 2


torch.fx.wrap("counted")


class Convs(torch.nn.Module):
    """A conv block with a tuple-valued node (chunk), an int (size), an in-place add and a
    counted call: records of every kind of value."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        a, b = torch.chunk(y, 2, dim=1)
        n = y.size(0)
        z = counted(a) + b * n
        w = z.clone()
        w.add_(1.0)  # changes w in place after the node that made it
        return torch.log(w - 1.5), z


class Window:
    """The window's side of a live session: requests out, answers read until Done."""

    def __init__(self, model, args):
        view = fxgraph.choose_view(model, args, {}, None)
        self.session = Session(model, args, {}, view, "python:test")
        self.ours, theirs = socket.socketpair()
        threading.Thread(target=LiveEngine(self.session, theirs).serve, daemon=True).start()
        self.stream = self.ours.makefile("rb")
        kind, _ = wire.read_frame(self.stream)
        assert kind == wire.HELLO

    def ask(self, kind, message=None):
        self.ours.sendall(wire.frame(kind, b"" if message is None else wire.encode(message)))
        answers = []
        while True:
            kind, payload = wire.read_frame(self.stream)
            if kind == wire.DONE:
                return answers
            answers.append((kind, wire.decode(payload, wire.PAYLOADS[kind])))

    def state(self, kind, message=None) -> wire.RunState:
        states = [m for k, m in self.ask(kind, message) if k == wire.STATE]
        assert len(states) == 1, f"{len(states)} states"
        return states[0]

    def command(self, command, node="") -> wire.RunState:
        return self.state(wire.COMMAND, wire.CommandRequest(command, node))

    def detail(self, node) -> wire.ValueSlice:
        (kind, answer), = self.ask(wire.DETAIL_REQUEST, wire.ValueSliceRequest(node=node))
        assert kind == wire.DETAIL
        return answer

    def close(self):
        self.ours.close()


def strides_in_fx(gm, *args):
    """Each tensor node's stride as the Interpreter's value has it (values_in_fx clones)."""
    strides = {}

    class Recording(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            items = result if isinstance(result, tuple) else (result,)
            strides[n.name] = [list(t.stride()) for t in items if isinstance(t, torch.Tensor)]
            return result

    with torch.no_grad():
        Recording(gm).run(*args)
    return strides


def finite_of(t):
    flat = t.detach().reshape(-1)
    flat = flat.float() if flat.dtype in (torch.float16, torch.bfloat16) else flat
    return flat[torch.isfinite(flat)]


def check_record(name, record, value):
    """A record without detail against the Interpreter's value of the node."""
    v = record.value
    if isinstance(value, tuple):
        check(v.type == "tuple" and len(v.items) == len(value), f"{name}: {v.type}")
        for i, (item, part) in enumerate(zip(v.items, value)):
            check_record(f"{name}[{i}]", wire.NodeRecord(value=item), part)
        return
    if not isinstance(value, torch.Tensor):
        check(v.value == str(value), f"{name}: {v.value!r} for {value!r}")
        return
    check(v.shape == list(value.shape) and v.dtype == fxgraph.dtype_name(value.dtype),
          f"{name}: {v.shape} {v.dtype}")
    finite = finite_of(value)
    nan, inf = int(torch.isnan(value).sum()), int(torch.isinf(value).sum())
    check((v.nanCount, v.infCount) == (nan, inf), f"{name}: NaN/Inf {v.nanCount}/{v.infCount}")
    lo, hi = torch.aminmax(finite)
    check((v.min, v.max, v.mean) == (float(lo), float(hi), float(finite.mean())),
          f"{name}: min/max/mean {v.min} {v.max} {v.mean} against {float(lo)} {float(hi)} "
          f"{float(finite.mean())}")
    check(v.hasStats and not v.hasDetail and not v.histogram and v.std == 0.0,
          f"{name}: sent with std {v.std} and {len(v.histogram)} bins")


def check_records_and_details():
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(Convs())
    x = torch.randn(2, 3, 9, 9)
    x[0, 0, 0, 0] = -10.0  # log of a negative: NaN in the output
    expected = values_in_fx(gm, x)
    window = Window(gm, (x,))
    opened = [k for k, _ in window.ask(wire.OPEN, wire.OpenRequest("python:test"))]
    check(opened[-1] == wire.STATE, f"Open answered {opened}")
    state = window.command(wire.RUN_TO_END)
    check(state.finished and state.recordsAreChanges, "Continue: not finished, or sent whole")
    strides = strides_in_fx(gm, x)
    for name, value in expected.items():
        if name != "output":  # clone's record is of what it made, before add_ changed it
            check_record(name, state.records[name], value)
            v = state.records[name].value
            got = [i.stride for i in v.items] if v.type == "tuple" else [v.stride] if v.stride \
                else []
            check(got == strides[name], f"{name}: strides {got}, Interpreter {strides[name]}")
    check(state.records["log"].value.nanCount > 0, "log has no NaN: the input did not make one")

    # The detail: std and the histogram of the same values, the mean the record's. conv and
    # relu were freed after their last use and are made again; clone was changed in place by
    # add_ and is made again as clone made it.
    for name in ("conv", "relu", "clone", "log"):
        answer = window.detail(name)
        v, finite = answer.summary, finite_of(expected[name])
        check(not answer.error and v.hasDetail, f"{name}: detail {answer.error!r}")
        check(v.std == float(torch.std(finite)), f"{name}: std {v.std}, torch.std "
                                                  f"{float(torch.std(finite))}")
        check(v.mean == state.records[name].value.mean, f"{name}: the detail moved the mean")
        check(sum(v.histogram) == v.histogramSample > 0 and len(v.histogram) == 24,
              f"{name}: histogram {v.histogram} of {v.histogramSample}")
        if expected[name].numel() <= 64 * 64:  # all of it counted: as torch.histc counts it
            histc = torch.histc(finite.double(), bins=24, min=v.min, max=v.max)
            check(v.histogram == [int(c) for c in histc], f"{name}: {v.histogram} != {histc}")
    chunk = window.detail("chunk").summary
    check(chunk.type == "tuple" and all(i.hasDetail for i in chunk.items), "chunk's items")
    missing = window.detail("no_such_node")
    check("There is no node 'no_such_node'" in missing.error, f"missing: {missing.error!r}")
    # The record keeps its detail: a full state (a second Open) carries it.
    again = window.state(wire.SET_INPUTS, wire.InputsRequest([], 0))
    check(not again.recordsAreChanges, "new inputs: records sent as changes")
    window.close()


def check_only_changes_travel():
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(Convs())
    window = Window(gm, (torch.randn(1, 3, 5, 5),))
    first = [m for k, m in window.ask(wire.OPEN, wire.OpenRequest("python:test"))
             if k == wire.STATE][0]
    names = [n.name for n in gm.graph.nodes]
    check(not first.recordsAreChanges and sorted(first.records) == sorted(names),
          "Open: not every record")
    for expected in names[:3]:
        step = window.command(wire.STEP)
        check(step.recordsAreChanges and list(step.records) == [expected],
              f"step to {expected}: records {list(step.records)}")
    rest = window.command(wire.RUN_TO_END)
    check(sorted(rest.records) == sorted(names[3:]), f"Continue sent {sorted(rest.records)}")
    reset = window.command(wire.RESET)
    check(not reset.recordsAreChanges and len(reset.records) == len(names)
          and all(r.state == wire.PENDING for r in reset.records.values()), "Reset: not whole")
    window.close()


class Noisy(torch.nn.Module):
    """A dropout in training: its value cannot be made again."""

    def forward(self, x):
        return torch.nn.functional.dropout(x, 0.5, training=True) + 1


def check_random_value_is_not_made_again():
    torch.manual_seed(0)
    window = Window(torch.fx.symbolic_trace(Noisy()), (torch.randn(4, 4),))
    window.ask(wire.OPEN, wire.OpenRequest("python:test"))
    window.command(wire.RUN_TO_END)
    freed = window.detail("dropout")
    check("gave another value (a random op" in freed.error, f"dropout: {freed.error!r}")
    (kind, answer), = window.ask(wire.VALUE_REQUEST, wire.ValueSliceRequest(
        node="dropout", rowAxis=0, colAxis=1, rowCount=4, colCount=4))
    check(kind == wire.VALUES and "gave another value" in answer.error, f"values: {answer.error!r}")
    kept = window.detail("output")  # the run's own output: never freed
    check(not kept.error and kept.summary.hasDetail, f"output: {kept.error!r}")
    window.close()


def finished_check(model, x):
    """The output check of a run to the end, and how many times the model ran in it."""
    CALLS[0] = 0
    window = Window(model, (x,))
    window.ask(wire.OPEN, wire.OpenRequest("python:test"))
    state = window.command(wire.RUN_TO_END)
    window.close()
    return state.outputCheck, CALLS[0]


def check_output_check_reuses_the_run():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 5, 5)
    model = Convs()
    gm = torch.fx.symbolic_trace(model)
    verdict, calls = finished_check(gm, x)
    check(verdict.verdict == wire.EQUAL and calls == 1,
          f"GraphModule: verdict {verdict.verdict}, the model ran {calls} times (1: reused)")
    verdict, calls = finished_check(model, x)
    check(verdict.verdict == wire.EQUAL and calls == 2,
          f"nn.Module: verdict {verdict.verdict}, the model ran {calls} times (2: forward ran)")
    # A graph edited without recompile(): forward is the old code, the run the new graph.
    edited = torch.fx.symbolic_trace(model)
    for node in edited.graph.nodes:
        if node.target is torch.log:
            node.target = torch.exp
    verdict, calls = finished_check(edited, x)
    check(verdict.verdict == wire.DIFFERS and calls == 2,
          f"edited graph: verdict {verdict.verdict} ({verdict.message}), ran {calls} times")
    edited.recompile()
    verdict, calls = finished_check(edited, x)
    check(verdict.verdict == wire.EQUAL and calls == 1,
          f"recompiled: verdict {verdict.verdict}, ran {calls} times")


def check_run_b_shares_or_converts_weights():
    """Compare's run B: the model itself when nothing changes and nothing trains (one copy of the
    weights, not two); else a copy made straight from the weights, equal to gm.to(dtype)'s."""
    import copy

    from fxview import comparison

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
    gm = torch.fx.symbolic_trace(model.eval())
    check(comparison.run_b_model(gm, None, None) is gm, "eval, same dtype: not shared")
    gm.train()
    trained = comparison.run_b_model(gm, None, None)
    norm = "1"  # the BatchNorm2d, as symbolic_trace names a Sequential's modules
    check(trained is not gm and trained.get_submodule(norm).running_mean
          is not gm.get_submodule(norm).running_mean,
          "training: B shares A's BatchNorm statistics")
    gm.eval()
    cast = comparison.run_b_model(gm, None, torch.bfloat16)
    expected = copy.deepcopy(gm).to(torch.bfloat16)
    for (name, got), (_, want) in zip([*cast.named_parameters(), *cast.named_buffers()],
                                      [*expected.named_parameters(), *expected.named_buffers()]):
        check(got.dtype == want.dtype and torch.equal(got, want)
              and type(got) is type(want) and got.requires_grad == want.requires_grad,
              f"bfloat16 {name}: {got.dtype} {type(got).__name__}")
    check(all(p.dtype == torch.float32 for p in gm.parameters()), "A's weights were cast")
    x = torch.randn(1, 3, 8, 8)
    with torch.no_grad():
        check(torch.equal(cast(x.bfloat16()), expected(x.bfloat16())), "bfloat16 B runs otherwise")

    class Cached(torch.nn.Module):  # writes into its buffer in eval mode, then reads it
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(2, 3))

        def forward(self, x):
            torch.relu_(x)  # into the input: the run's own
            self.cache.copy_(x * 2)
            return self.cache + 1

    cached = torch.fx.symbolic_trace(Cached().eval())
    check(comparison.may_write_weights(cached), "copy_ into a buffer not found")
    check(comparison.run_b_model(cached, None, None) is not cached, "B shares a written buffer")
    check(not comparison.may_write_weights(gm), "conv + batch norm found writing")


def main():
    return run_groups([("records and details", check_records_and_details, ()),
                       ("only changes travel", check_only_changes_travel, ()),
                       ("random value", check_random_value_is_not_made_again, ()),
                       ("output check", check_output_check_reuses_the_run, ()),
                       ("run B's model", check_run_b_shares_or_converts_weights, ())])


if __name__ == "__main__":
    sys.exit(main())
