"""A torch.fx GraphModule as the protocol's Graph: every node with the op, name, target, args,
kwargs and order that `gm.graph` has, so that the window draws the person's own graph and its
C++ printer (core/graph/FxText) prints what `print(gm.graph)` prints.

Also the views of a module that is not a GraphModule yet: torch.fx.symbolic_trace's, with
torch.export's and TorchScript's as the fallbacks when it cannot trace.
"""

from __future__ import annotations

import inspect

import torch
import torch.fx

from . import wire

# Python ints beyond int64 cannot cross as Int: they cross as their text.
_INT64 = (-(1 << 63), (1 << 63) - 1)


def qualified_class(cls) -> str:
    """'torch.nn.modules.linear.Linear' for nn.Linear, as nn_module_stack spells classes."""
    return f"{cls.__module__}.{cls.__qualname__}"


def module_class(cls) -> str:
    """'torch.nn.Linear' for nn.Linear (its public name, as a person writes it), else the
    qualified name."""
    if getattr(torch.nn, cls.__name__, None) is cls:
        return f"torch.nn.{cls.__name__}"
    return qualified_class(cls)


def _node_refs(value) -> list[wire.Argument]:
    """The nodes a value holds anywhere inside (a slice, a dict), in order: the edges of a value
    that crosses as text."""
    found: list[wire.Argument] = []
    torch.fx.node.map_arg(value, lambda n: found.append(wire.Argument(wire.A_NODE, text=n.name)))
    return found


def argument(value) -> wire.Argument:
    """One arg or kwarg value. Kinds torch.fx's _format_arg prints as it prints them (None,
    bools, ints, floats, strings with str(), nodes as %name, lists, tuples, dicts with string
    or int keys) cross as such; anything else (a slice, a dtype, a device) crosses as the text _format_arg prints,
    with the nodes inside it as items so that its edges are still drawn."""
    if isinstance(value, torch.fx.Node):
        return wire.Argument(wire.A_NODE, text=value.name)
    if hasattr(value, "_custom_fx_repr_fn"):
        pass  # printed by its own function: text below
    elif value is None:
        return wire.Argument(wire.A_NONE)
    elif isinstance(value, bool):
        return wire.Argument(wire.A_BOOL, boolean=value)
    elif isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
        return wire.Argument(wire.A_INT, integer=int(value))
    elif isinstance(value, float):
        return wire.Argument(wire.A_FLOAT, real=float(value))
    elif isinstance(value, str):
        return wire.Argument(wire.A_STRING, text=str(value))
    elif isinstance(value, list):
        return wire.Argument(wire.A_LIST, items=[argument(v) for v in value])
    elif isinstance(value, tuple):
        return wire.Argument(wire.A_TUPLE, items=[argument(v) for v in value])
    elif isinstance(value, dict) and all(isinstance(k, (str, int)) for k in value):
        # Items are (key, value) pairs; printed {k: v} in args and {'k': v} when returned.
        return wire.Argument(wire.A_DICT, items=[
            wire.Argument(wire.A_TUPLE, items=[argument(k), argument(v)])
            for k, v in value.items()])
    return wire.Argument(wire.A_REPR, text=torch.fx.node._format_arg(value),
                         items=_node_refs(value))


def scope_of(node: torch.fx.Node) -> tuple[str, str]:
    """The module path whose code made the node and that module's class, from the
    nn_module_stack torch.fx's tracer (and torch.export) record. A call_module's own module is
    the last entry of its stack: its scope is the module around it."""
    stack = node.meta.get("nn_module_stack") or {}
    entries = list(stack.values())
    if node.op == "call_module" and entries and entries[-1][0] == node.target:
        entries.pop()
    if not entries:
        return "", ""
    path, cls = entries[-1][0], entries[-1][1]
    return str(path), cls if isinstance(cls, str) else qualified_class(cls)


def _held(name: str, value) -> wire.HeldTensor | None:
    if not isinstance(value, torch.Tensor):
        return None
    return wire.HeldTensor(name, list(value.shape), dtype_name(value.dtype))


def dtype_name(dtype: torch.dtype) -> str:
    """'float32' for torch.float32, as the C++ engine names dtypes."""
    return str(dtype).removeprefix("torch.")


def _tensors(gm: torch.nn.Module, node: torch.fx.Node) -> list[wire.HeldTensor]:
    """What the node holds: a call_module's parameters and buffers, a get_attr's tensor."""
    try:
        if node.op == "call_module":
            module = gm.get_submodule(node.target)
            named = list(module.named_parameters()) + list(module.named_buffers())
            return [h for h in (_held(n, t) for n, t in named) if h]
        if node.op == "get_attr":
            value = gm
            for part in node.target.split("."):
                value = getattr(value, part)
            held = _held(node.target, value)
            return [held] if held else []
    except AttributeError:  # a pass left a dangling target: the run will say so at that node
        pass
    return []


def _target(node: torch.fx.Node) -> str:
    if node.op == "call_function":
        return node._pretty_print_target(node.target)
    return str(node.target)


def _module_type(gm: torch.nn.Module, node: torch.fx.Node) -> str:
    if node.op != "call_module":
        return ""
    try:
        return module_class(type(gm.get_submodule(node.target)))
    except AttributeError:
        return ""


def to_wire(gm: torch.fx.GraphModule, model_class: str) -> wire.Graph:
    """gm.graph as the protocol's Graph, node for node in graph order."""
    nodes = list(gm.graph.nodes)
    position = {n: i for i, n in enumerate(nodes)}
    out = []
    for n in nodes:
        scope, scope_type = scope_of(n)
        out.append(wire.Node(
            op=wire.OPS.index(n.op), name=n.name, target=_target(n),
            moduleType=_module_type(gm, n),
            typeName=torch.fx.node._type_repr(n.type) if n.type else "",
            args=[argument(a) for a in n.args],
            kwargs=[wire.KeywordArgument(k, argument(v)) for k, v in n.kwargs.items()],
            users=[u.name for u in sorted(n.users, key=position.__getitem__)],
            scope=scope, scopeType=scope_type, tensors=_tensors(gm, n),
            sourceTrace=n.stack_trace or n.meta.get("stack_trace") or ""))
    return wire.Graph(modelClass=model_class, nodes=out)


def graph_text(gm: torch.fx.GraphModule) -> str:
    """What print(gm.graph) writes."""
    return str(gm.graph) + "\n"


# --- the views of a module -----------------------------------------------------------------

class View:
    """The graph a person sees of their model and what steps it: a GraphModule (torch.fx's own
    or torch.export's), or a TorchScript file for the C++ engine (view "script")."""

    def __init__(self, kind, gm=None, note="", script=None):
        self.kind = kind  # "fx", "export" or "script"
        self.gm = gm
        self.note = note  # why this view and not the one asked for, or ""
        self.script = script  # view "script": the traced ScriptModule


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else 'no message'}"


def symbolic_trace(model: torch.nn.Module) -> torch.fx.GraphModule:
    """torch.fx.symbolic_trace, with each node's source line kept (node.stack_trace)."""
    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    graph = tracer.trace(model)
    name = model.__class__.__name__ if isinstance(model, torch.nn.Module) else model.__name__
    return torch.fx.GraphModule(tracer.root, graph, name)


def _export(model, args, kwargs) -> torch.fx.GraphModule:
    return torch.export.export(model, tuple(args), kwargs=dict(kwargs)).module()


def _script(model, args, kwargs):
    if kwargs:
        forward = model.forward if hasattr(model, "forward") else model
        bound = inspect.signature(forward).bind(*args, **kwargs)
        return torch.jit.trace(model, example_kwarg_inputs=dict(bound.arguments))
    return torch.jit.trace(model, tuple(args))


def choose_view(model, args, kwargs, view: str | None) -> View:
    """The view asked for (`view`), or the best one there is: a GraphModule as it is; any other
    module as symbolic_trace records it, else torch.export's graph, else TorchScript's."""
    if view not in (None, "fx", "export", "script"):
        raise ValueError(f"view={view!r}: use 'fx', 'export' or 'script'")
    if isinstance(model, torch.fx.GraphModule) and view in (None, "fx"):
        return View("fx", model)
    if view == "export":
        return View("export", _export(model, args, kwargs))
    if view == "script":
        return View("script", script=_script(model, args, kwargs))
    try:
        return View("fx", symbolic_trace(model))
    except Exception as fx_error:  # noqa: BLE001 - any tracing failure picks the next view
        why = f"torch.fx.symbolic_trace cannot trace {type(model).__name__} " \
              f"({_first_line(fx_error)})"
        try:
            return View("export", _export(model, args, kwargs),
                        note=f"{why}; showing torch.export's graph instead.")
        except Exception as export_error:  # noqa: BLE001
            return View("script", script=_script(model, args, kwargs),
                        note=f"{why}, nor can torch.export ({_first_line(export_error)}); "
                             "showing torch.jit.trace's graph instead.")
