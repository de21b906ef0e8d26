"""The higher-order ops Step Into opens, run block by block: the Python twin of
core/run/InterpreterHops.cpp. Each op is a generator that yields the next subgraph to run with its
operands and the node's block runs ([iteration] of a loop), is sent back the subgraph's output, and
returns the op's value, following PyTorch's dense implementations in torch/_higher_order_ops/
(cond's branch; while_loop_dense; generic_scan; map_dense; invoke_subgraph; the grad-mode and
autocast wrappers' context managers) so the values are the ones ep.module() computes. An op whose
arguments are laid out otherwise (another PyTorch's) is not opened: it runs whole, by PyTorch."""

from __future__ import annotations

import contextlib

import torch
import torch.fx


def _higher_order_op(name: str):
    """torch.ops.higher_order.NAME, or None where this PyTorch has none."""
    try:
        return getattr(torch.ops.higher_order, name)
    except Exception:  # noqa: BLE001 - older PyTorch: no such namespace or op
        return None


_OPS = {op: name for name, op in (
    (name, _higher_order_op(name)) for name in (
        "cond", "invoke_subgraph", "while_loop", "scan", "map_impl",
        "wrap_with_set_grad_enabled", "wrap_with_autocast")) if op is not None}


class HopError(Exception):
    """What the op's dense implementation would raise, as the node's failure."""


def _results(output) -> list:
    """A subgraph's output as the list of its results (a graph may return one value bare)."""
    return list(output) if isinstance(output, (tuple, list)) else [output]


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _leading_length(xs: list, op: str) -> int:
    length = None
    for x in xs:
        if not isinstance(x, torch.Tensor) or x.dim() == 0:
            raise HopError(f"{op}'s xs must be tensors of at least one dimension")
        if length is not None and x.size(0) != length:
            raise HopError(f"{op}'s xs must have the same leading dimension size")
        length = x.size(0)
    return length or 0


def _one_call(inner, operands, block=""):
    output = yield inner, list(operands), None, block
    return output


def _cond(pred, true_gm, false_gm, operands):
    taken = bool(pred)
    return (yield from _one_call(true_gm if taken else false_gm, operands,
                                 "the true branch" if taken else "the false branch"))


def _invoke_subgraph(inner, identifier, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]  # 2.6: the operands as one list
    return (yield from _one_call(inner, operands, str(identifier or "")))


def _while_loop(cond_gm, body_gm, carried, additional):
    carried, additional = list(carried), list(additional)
    iteration = 0
    while True:
        pred = _results((yield cond_gm, carried + additional, [iteration],
                         f"cond_fn after {_count(iteration, 'iteration')}"))[0]
        if not (isinstance(pred, bool) or (isinstance(pred, torch.Tensor) and pred.dim() == 0
                                           and pred.dtype == torch.bool)):
            raise HopError("while_loop's cond_fn must return a boolean scalar tensor or a boolean")
        if not bool(pred):
            break
        iteration += 1
        out = _results((yield body_gm, carried + additional, [iteration],
                        f"body_fn, iteration {iteration}"))
        if len(out) != len(carried):
            raise HopError(f"while_loop's body returned {len(out)} values for {len(carried)} "
                           "carried")
        carried = out
    if iteration == 0:  # while_loop_dense hands back clones when the body never ran
        carried = [v.clone() if isinstance(v, torch.Tensor) else v for v in carried]
    return tuple(carried)


def _scan(combine_gm, init, xs, additional):
    carry, xs, additional = list(init), list(xs), list(additional)
    length = _leading_length(xs, "scan")
    # generic_scan runs element 0 on first_slice_copy (a copy, or zeros for no elements) to
    # learn the outputs' shapes, stores it, and runs the rest on views.
    first = [x.new_zeros(x.shape[1:]) if length == 0 else torch.select_copy(x, 0, 0) for x in xs]
    out = _results((yield combine_gm, carry + first + additional, [1],
                    f"combine_fn, element 1 of {length}"))
    if len(out) < len(carry):
        raise HopError("scan's combine_fn returned fewer values than its carry")
    ys = out[len(carry):]
    outs = [torch.empty([length] + list(y.shape), dtype=y.dtype, device=y.device) for y in ys]
    if length == 0:
        return (*carry, *outs)
    for i in range(length):
        if i:
            out = _results((yield combine_gm, carry + [x.select(0, i) for x in xs] + additional,
                            [i + 1], f"combine_fn, element {i + 1} of {length}"))
            ys = out[len(carry):]
        carry = out[:len(carry)]
        for o, y in zip(outs, ys):
            o.select(0, i).copy_(y)
    return (*carry, *outs)


def _map(body_gm, xs, pos_args):
    xs, pos_args = list(xs), list(pos_args)
    length = _leading_length(xs, "map")
    if length == 0:
        raise HopError("map was given xs with no elements along dim 0, which PyTorch's map "
                       "cannot stack")
    per_slice = []
    for i in range(length):
        per_slice.append(_results((yield body_gm, [x.select(0, i) for x in xs] + pos_args,
                                   [i + 1], f"slice {i + 1} of {length}")))
    return tuple(torch.stack([one[k] for one in per_slice]) for k in range(len(per_slice[0])))


def _wrapped(block, inner, *operands):
    return (yield from _one_call(inner, operands, block))


def _drive(name: str, args: tuple):
    """The op's generator for its arguments, or None where their layout is not the one known."""
    def graphs(*indices):
        return all(isinstance(args[i], torch.fx.GraphModule) for i in indices)

    if name == "cond" and len(args) == 4 and graphs(1, 2):
        return _cond(*args)
    if name == "invoke_subgraph" and len(args) >= 2 and graphs(0):
        return _invoke_subgraph(*args)
    if name == "while_loop" and len(args) == 4 and graphs(0, 1):
        return _while_loop(*args)
    if name == "scan" and len(args) == 4 and graphs(0):  # 2.6 wrote dim and reverse too
        return _scan(*args)
    if name == "map_impl" and len(args) == 3 and graphs(0):
        return _map(*args)
    if name == "wrap_with_set_grad_enabled" and len(args) >= 2 and graphs(1):
        return _wrapped("grad mode on" if args[0] else "grad mode off", *args[1:])
    if name == "wrap_with_autocast" and len(args) >= 5 and graphs(4):
        state = f"autocast to {str(args[1]).removeprefix('torch.')}" if args[2] else "no autocast"
        return _wrapped(state, *args[4:])
    return None


class HopRun:
    """One higher-order op node's run, block by block: `block` is the subgraph to run next with
    its `operands` (`block_name` says which: "body_fn, iteration 2"); `finish(output)` hands it that block's output and says whether the op is done
    (its `value` then set); `block_runs` is what the node's record shows ([iteration])."""

    def __init__(self, name: str, args: tuple, driver):
        self.name, self.args, self.driver = name, args, driver
        self.value = None
        self.block_runs: list[int] | None = None
        self._take(next(driver))

    @staticmethod
    def start(target, args: tuple) -> "HopRun | None":
        name = _OPS.get(target)
        driver = _drive(name, tuple(args)) if name else None
        return HopRun(name, tuple(args), driver) if driver is not None else None

    def _take(self, yielded) -> None:
        self.block, self.operands, runs, self.block_name = yielded
        if runs is not None:
            self.block_runs = runs

    def finish(self, output) -> bool:
        try:
            self._take(self.driver.send(output))
            return False
        except StopIteration as done:
            self.value = done.value
            return True

    def context(self):
        """The grad mode or autocast state the op's blocks run in, entered around each node."""
        if self.name == "wrap_with_set_grad_enabled":
            return torch.set_grad_enabled(bool(self.args[0]))
        if self.name == "wrap_with_autocast":
            device, dtype, enabled, cache = self.args[:4]
            return torch.autocast(str(device), dtype=dtype, enabled=bool(enabled),
                                  cache_enabled=bool(cache))
        return contextlib.nullcontext()
