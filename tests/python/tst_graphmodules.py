"""fxview.export on GraphModules a torch.fx user makes, against torch.fx itself (issue 22):
- the .txt export equals print(gm.graph), byte for byte, and so does fxview's own printer given
  the graph the live engine sends (every node crossed whole);
- run=True's JSON carries every node's shape as ShapeProp records it, and the verdict "equal"
  (the interpreted run against gm(*args), in this process);
- a module symbolic_trace cannot trace is shown as torch.export's graph, with the sentence.

Models: TinyNet after a person's pass, torchvision's resnet18, mobilenet_v3_small, vit_b_16,
swin_t and convnext_tiny as symbolic_trace traces them, lraspp_mobilenet_v3_large (a dict
returned), torch.fx.wrap'ped functions with a custom
leaf module (a Tracer subclass), and an FX graph mode quantized model (prepare_fx/convert_fx).
Run by CTest as python_graphmodules (FXVIEW_APP and FXTRACE name the built programs).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch
import torch.fx
import torchvision
from torch.fx.passes.shape_prop import ShapeProp

import fxview
from fxview import fxgraph, wire
from fxview.live import Session

sys.path.insert(0, str(Path(__file__).parent.parent / "fixtures"))
sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
import live_models  # noqa: E402 - TinyNet, the person's pass, ShapeBranch: shared with tst_live
from checks import check, run_groups  # noqa: E402

WORK = Path(tempfile.mkdtemp(prefix="tst_graphmodules-"))


def scale_and_shift(x, s):
    return x * s + 1.0


torch.fx.wrap("scale_and_shift")


class Clamp(torch.nn.Module):
    """A person's own module that their tracer keeps whole (a leaf)."""

    def forward(self, x):
        return x.clamp(-1, 1)


class WithLeaf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.clamp = Clamp()

    def forward(self, x):
        y = scale_and_shift(self.fc(x), 0.5)
        return self.clamp(y)[:, : x.shape[1] // 2]


class LeafTracer(torch.fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, Clamp) or super().is_leaf_module(m, qualname)


def traced(model):
    return torch.fx.symbolic_trace(model.eval())


def quantized():
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 4, 3)).eval()
    x = torch.randn(1, 3, 16, 16)
    prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), (x,))
    for _ in range(4):
        prepared(torch.randn(1, 3, 16, 16))
    return convert_fx(prepared), x


def graph_modules():
    """(name, GraphModule, args) for every model of the docstring."""
    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224)
    yield "tinynet_pass", live_models.a_pass(traced(live_models.TinyNet())), (torch.randn(3, 4),)
    for name in ("resnet18", "mobilenet_v3_small", "vit_b_16", "swin_t", "convnext_tiny"):
        yield name, traced(getattr(torchvision.models, name)(weights=None)), (image,)
    # Returns {'out': ...}: a dict in the output node's args.
    segmentation = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None)
    yield "lraspp_mobilenet_v3_large", traced(segmentation), (torch.randn(1, 3, 64, 64),)
    leaf = WithLeaf()
    yield "wrapped_and_leaf", torch.fx.GraphModule(leaf, LeafTracer().trace(leaf), "WithLeaf"), \
        (torch.randn(3, 4),)
    gm, x = quantized()
    yield "fx_quantized", gm, (x,)


def shapes_from_json(document):
    return {n["name"]: n["meta"]["value"].get("shape") for n in document["nodes"]
            if n.get("meta", {}).get("value", {}).get("type") == "Tensor"}


def printed_by_fxview(gm, args):
    """The graph the live engine sends for gm, printed by fxview's own printer (core/graph/
    FxText, through wire_peer): what the window's text shows once scopes are collapsed."""
    session = Session(gm, args, {}, fxgraph.choose_view(gm, args, {}, None), "python:test")
    frame = wire.frame(wire.OPENED, wire.encode(session.opened()))
    result = subprocess.run([os.environ["WIRE_PEER"], "print"], input=frame,
                            capture_output=True, timeout=120)
    return result.stdout.decode()


def check_graph_module(name, gm, args):
    started = time.monotonic()
    text = WORK / f"{name}.txt"
    fxview.export(gm, args, text)
    printed = str(gm.graph) + "\n"
    check(text.read_text() == printed, f"{name}: the .txt is not print(gm.graph)")
    # Every node crossed whole: fxview's printer, given the graph as the window gets it,
    # prints what torch.fx prints (ops, names, targets, args, kwargs, types, users).
    check(printed_by_fxview(gm, args) == printed,
          f"{name}: fxview's printer does not print the graph as torch.fx does")
    if name == "resnet18":
        # depth=1: each block one box, printed as the call_module torch.fx would record for it.
        fxview.export(gm, args, text, depth=1)
        boxes = text.read_text()
        check("%layer1_0 : [num_users=1] = call_module[target=layer1.0](args = (%maxpool,)" in boxes
              and "layer1_0_conv1" not in boxes, f"resnet18 at depth 1:\n{boxes}")
    document_path = WORK / f"{name}.json"
    fxview.export(gm, args, document_path, run=True)
    document = json.loads(document_path.read_text())
    verdict = document.get("output_check", {})
    check(verdict.get("verdict") == "equal", f"{name}: output_check {verdict}")
    ShapeProp(gm).propagate(*args)
    expected = {n.name: list(n.meta["tensor_meta"].shape) for n in gm.graph.nodes
                if isinstance(n.meta.get("tensor_meta"), torch.fx.passes.shape_prop.TensorMetadata)}
    got = shapes_from_json(document)
    wrong = [(n, got.get(n), s) for n, s in expected.items() if got.get(n) != s]
    check(expected and not wrong, f"{name}: shapes differ from ShapeProp's: {wrong[:3]}")
    print(f"ok   {name}: {len(gm.graph.nodes)} nodes, text, {len(expected)} shapes and the "
          f"verdict as torch.fx's ({time.monotonic() - started:.1f} s)")


def check_fallback_to_export():
    model, x = live_models.ShapeBranch().eval(), torch.randn(3, 4)
    text = WORK / "fallback.txt"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fxview.export(model, (x,), text)
    notes = [str(w.message) for w in caught if w.filename == __file__]
    check(any(n.startswith("torch.fx.symbolic_trace cannot trace ShapeBranch (") and
              n.endswith("showing torch.export's graph instead.") and "\n" not in n
              for n in notes), f"fallback warning: {notes}")
    expected = str(torch.export.export(model, (x,)).module().graph) + "\n"
    check(text.read_text() == expected, "the fallback's text is not torch.export's graph")
    # view= chooses: TinyNet as torch.export sees it.
    tiny = live_models.TinyNet()
    fxview.export(tiny, (x,), WORK / "tiny_export.txt", view="export")
    expected = str(torch.export.export(tiny, (x,)).module().graph) + "\n"
    check((WORK / "tiny_export.txt").read_text() == expected, "view='export' is not export's")
    print("ok   fallback to torch.export's graph, and view='export'")


def main():
    groups = [(name, check_graph_module, (name, gm, args)) for name, gm, args in graph_modules()]
    groups.append(("fallback", check_fallback_to_export, ()))
    return run_groups(groups)


if __name__ == "__main__":
    sys.exit(main())
