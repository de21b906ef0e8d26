"""The kinds of models people bring that are not plain float graphs (issue 24), saved by PyTorch
2.6 in this process and opened by fxtrace, against PyTorch itself:
- FX graph mode quantization (prepare_fx/convert_fx) of a model of our own that holds each
  quantized construct (a fused conv-bn-relu, per-channel weights, quantized add_relu and cat,
  a quantized linear, quantize_per_tensor and dequantize) and of torchvision's resnet18 and
  mobilenet_v3_small, scripted and traced: `fxtrace graph` of the scripted archive equals
  print(symbolic_trace(gm).graph), the run's outputs are torch.equal to gm(x), and a quantized
  node's JSON shows its dtype, scale, zero point, int range and dequantized statistics as the
  tensor PyTorch computes.
- PT2E quantization (prepare_pt2e/convert_pt2e with the XNNPACK quantizer, per-channel weights:
  PyTorch's recommended flow) of QuantMix and of torchvision's resnet18, saved as a .pt2 and as a
  traced TorchScript archive: both call quantized_decomposed ops, which only PyTorch's Python
  defines; `fxtrace graph` of the .pt2 equals print(torch.export.load(f).graph) and the runs'
  outputs are torch.equal to torch.export.load(f).module()(x).
- The per-token and grouped quantized_decomposed ops (torchao's and ExecuTorch's 8da4w linear,
  fake_quant_per_channel, convert_element_type.no_fuse) in a model of our own, as a .pt2, a
  traced and a scripted archive, run torch.equal to PyTorch's.
- Library ops: a model of our own calling torchvision's nms and roi_align, one calling
  torchaudio's lfilter (torchaudio::_lfilter), and torchvision's scripted Faster R-CNN (nms,
  a TorchScript class ImageList, a module setting its own attribute in forward): they open with
  the libraries the packages install, and run torch.equal to forward. `--ops` loads a library
  given by path, and a path that is no library is refused with a sentence.
- torchaudio's models (Wav2Letter, ConvTasNet, DeepSpeech, wav2vec2, Conformer, Emformer,
  HDemucs, WaveRNN) and torchvision's segmentation (lraspp: a dict built in forward), optical
  flow (raft_small: loops, a list attribute) and SSD models, scripted and traced as PyTorch can
  save them: each runs to outputs torch.equal to the eager forward's, lists of tensors saved
  so that torch.load's weights_only=True reads them.
- Every scripted model symbolic_trace can trace prints as it prints (boxes: roi_align traced
  through, as torch.fx.wrap only wraps calls from torchvision's own module; `boxes[keep]` a
  getitem; lfilter and the 8da4w model: what uses only buffers and literals ran while tracing),
  but for the differences KNOWN_PRINT_DIFFERENCES names.
- torchvision's segmentation program (lraspp_mobilenet_v3_large) as a .pt2: `--save-outputs`
  holds what ep.module() returns, the OrderedDict(out=...) its out_spec says, readable by
  torch.load's default weights_only=True.
Run by CTest as python_real_models (FXTRACE names the built fxtrace).
"""

import difflib
import importlib.util
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch
import torch.fx
import torchaudio
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, fxtrace, run_groups  # noqa: E402

WORK = Path(tempfile.mkdtemp(prefix="tst_real_models-"))


class QuantMix(torch.nn.Module):
    """Each construct FX quantization rewrites: conv-bn-relu (fused, per-channel weights), a
    residual add with relu (quantized::add_relu), cat (a quantized op), mean, linear."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1),
                                        torch.nn.BatchNorm2d(8), torch.nn.ReLU())
        self.branch = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.side = torch.nn.Conv2d(8, 4, 1)
        self.fc = torch.nn.Linear(12, 5)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.branch(x) + x)
        z = torch.cat([y, self.side(y)], dim=1)
        return self.fc(z.mean((2, 3)))


def fx_quantized(model, x):
    prepared = prepare_fx(model.eval(), get_default_qconfig_mapping("x86"), (x,))
    torch.manual_seed(1)
    for _ in range(4):  # calibration, on inputs like x
        prepared(torch.randn_like(x))
    return convert_fx(prepared)


def fx_quantized_models():
    torch.manual_seed(0)
    yield "quant_mix", fx_quantized(QuantMix(), torch.randn(2, 3, 12, 12)), torch.randn(2, 3, 12, 12)
    for name in ("resnet18", "mobilenet_v3_small"):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None)
        x = torch.randn(1, 3, 64, 64)
        yield f"{name}_fx_quantized", fx_quantized(model, x), x


def quantized_tensor_json(value, reference):
    """The JSON fxtrace wrote for a quantized value against the tensor PyTorch computed."""
    q = value.get("quantization", {})
    ints = reference.int_repr()
    real = reference.dequantize()
    return (value.get("dtype") == str(reference.dtype).removeprefix("torch.")
            and q.get("qscheme") == str(reference.qscheme()).removeprefix("torch.")
            and q.get("scale_min") == reference.q_scale()
            and q.get("zero_point_min") == reference.q_zero_point()
            and q.get("int_min") == int(ints.min()) and q.get("int_max") == int(ints.max())
            and value["stats"]["min"] == float(real.min())
            and value["stats"]["max"] == float(real.max()))


def check_fx_quantized(name, gm, x):
    started = time.monotonic()
    input_file = WORK / f"{name}_input.pt"
    torch.save(x, input_file)
    expected = gm(x)
    for kind in ("scripted", "traced"):
        archive = WORK / f"{name}_{kind}.pt"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            saved = torch.jit.script(gm) if kind == "scripted" else torch.jit.trace(gm, x)
        saved.save(str(archive))
        if kind == "scripted":
            # A trace records the scales as numbers where torch.fx reads the buffers: only
            # the scripted archive can print as torch.fx does.
            graph = fxtrace("graph", archive)
            printed = str(torch.fx.symbolic_trace(gm).graph) + "\n"
            check(graph.returncode == 0 and graph.stdout == printed,
                  f"{name} ({kind}): the graph is not torch.fx's:\n{graph.stdout}{graph.stderr}")
        outputs, document = WORK / f"{name}_{kind}_out.pt", WORK / f"{name}_{kind}.json"
        run = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-outputs", outputs,
                      "--json", document)
        if not check(run.returncode == 0 and "Outputs equal: True" in run.stdout,
                     f"{name} ({kind}): run failed:\n{run.stdout[-2000:]}{run.stderr}"):
            continue
        got = torch.load(outputs)
        got = got[0] if isinstance(got, tuple) and len(got) == 1 else got
        check(torch.equal(got, expected), f"{name} ({kind}): outputs differ from gm(x)")
        nodes = {n["name"]: n for n in json.loads(document.read_text())["nodes"]}
        quantize = nodes.get("quantize_per_tensor", {}).get("meta", {}).get("value", {})
        scale = gm.get_buffer(next(n.target for n in gm.graph.nodes
                                   if n.op == "get_attr" and "scale" in n.target))
        zero_point = gm.get_buffer(next(n.target for n in gm.graph.nodes
                                        if n.op == "get_attr" and "zero_point" in n.target))
        reference = torch.quantize_per_tensor(x, scale, zero_point, torch.quint8)
        check(quantized_tensor_json(quantize, reference),
              f"{name} ({kind}): the quantized input's JSON {quantize} is not {reference.q_scale()}, "
              f"{reference.q_zero_point()}")
    print(f"ok   {name}: {len(gm.graph.nodes)} nodes, scripted and traced "
          f"({time.monotonic() - started:.1f} s)")


def pt2e_quantized(model, x, dynamic=False):
    from torch.ao.quantization.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torch.ao.quantization.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)

    captured = torch.export.export_for_training(model.eval(), (x,)).module()
    # Dynamic: activations' qparams chosen at run time (choose_qparams.tensor), as for LLMs.
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
    prepared = prepare_pt2e(captured, quantizer)
    torch.manual_seed(1)
    for _ in range(4):
        prepared(torch.randn_like(x))
    return convert_pt2e(prepared)


class ConvertedPt2e(torch.nn.Module):
    """What XNNPACK's convert_pt2e leaves around a conv and a linear, written out: activations
    quantized and dequantized per tensor (int8), conv weights per output channel, the linear's
    per tensor; for a PyTorch whose torch.ao has no PT2E quantization any more (2.10 on: it
    moved to torchao, which Debian does not package)."""

    def __init__(self):
        super().__init__()
        ops = torch.ops.quantized_decomposed
        weight = torch.randn(8, 3, 3, 3) / 3
        scales = weight.abs().amax((1, 2, 3)) / 127
        self.register_buffer("conv_q", ops.quantize_per_channel(
            weight, scales, torch.zeros(8, dtype=torch.int64), 0, -127, 127, torch.int8))
        self.register_buffer("conv_scales", scales)
        self.register_buffer("conv_zeros", torch.zeros(8, dtype=torch.int64))
        self.bias = torch.nn.Parameter(torch.randn(8) / 10)
        fc = torch.randn(5, 8) / 3
        self.fc_scale = float(fc.abs().max() / 127)
        self.register_buffer("fc_q", ops.quantize_per_tensor(fc, self.fc_scale, 0, -127, 127,
                                                             torch.int8))

    def forward(self, x):
        ops = torch.ops.quantized_decomposed
        qx = ops.quantize_per_tensor(x, 0.03, -3, -128, 127, torch.int8)
        x = ops.dequantize_per_tensor(qx, 0.03, -3, -128, 127, torch.int8)
        w = ops.dequantize_per_channel(self.conv_q, self.conv_scales, self.conv_zeros, 0, -127,
                                       127, torch.int8)
        y = torch.relu(torch.nn.functional.conv2d(x, w, self.bias, padding=1))
        qy = ops.quantize_per_tensor(y, 0.02, -128, -128, 127, torch.int8)
        y = ops.dequantize_per_tensor(qy, 0.02, -128, -128, 127, torch.int8).mean((2, 3))
        fc = ops.dequantize_per_tensor(self.fc_q, self.fc_scale, 0, -127, 127, torch.int8)
        return torch.nn.functional.linear(y, fc)


def pt2e_quantized_models():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 12, 12)
    if importlib.util.find_spec("torch.ao.quantization.quantize_pt2e") is None:
        yield "converted_pt2e", ConvertedPt2e().eval(), x
        return
    yield "quant_mix_pt2e", pt2e_quantized(QuantMix(), x), x
    torch.manual_seed(0)
    yield "quant_mix_pt2e_dynamic", pt2e_quantized(QuantMix(), x, dynamic=True), x
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)
    yield "resnet18_pt2e", pt2e_quantized(torchvision.models.resnet18(weights=None), x), x


class Int8DynActInt4Weight(torch.nn.Module):
    """What torchao's and ExecuTorch's 8da4w quantization leaves in a linear: activations
    quantized per token at run time (choose_qparams_per_token_asymmetric, quantize_per_token,
    dequantize_per_token), int4 weights in groups (dequantize_per_channel_group); and the other
    per-token and grouped ops _decomposed.py defines, each used once on values of this run."""

    def __init__(self, features=16, out=6, group=4):
        super().__init__()
        ops = torch.ops.quantized_decomposed
        weight = torch.randn(out, features)
        grouped = weight.reshape(-1, group)
        scales = grouped.abs().amax(1) / 7
        zeros = torch.randint(-2, 3, scales.shape)
        self.group = group
        self.register_buffer("w_int4", ops.quantize_per_channel_group(
            weight, scales, zeros, -8, 7, torch.int8, group))
        self.register_buffer("w_scales", scales)
        self.register_buffer("w_zeros", zeros)
        self.register_buffer("ch_scales", torch.rand(out) / 20 + 0.01)
        self.register_buffer("ch_zeros", torch.randint(-3, 4, (out,), dtype=torch.int32))

    def forward(self, x):
        ops = torch.ops.quantized_decomposed
        scales, zeros = ops.choose_qparams_per_token_asymmetric(x, torch.int8)
        q = ops.quantize_per_token(x, scales, zeros, -128, 127, torch.int8)
        x = ops.dequantize_per_token(q, scales, zeros, -128, 127, torch.int8, torch.float32)
        w = ops.dequantize_per_channel_group(self.w_int4, self.w_scales, self.w_zeros, -8, 7,
                                             torch.int8, self.group, torch.float32)
        y = torch.nn.functional.linear(x, w)
        sym_scales, sym_zeros = ops.choose_qparams_per_token(y, torch.int8)
        yq = ops.quantize_per_token(y, sym_scales, sym_zeros, -128, 127, torch.int8)
        regrouped = ops.quantize_per_channel_group(y, sym_scales.repeat_interleave(2, 1),
                                                   sym_zeros.repeat_interleave(2, 1), -128, 127,
                                                   torch.int8, 3)
        faked = ops.fake_quant_per_channel(y, self.ch_scales, self.ch_zeros, 1, -128, 127)
        half = ops.convert_element_type(faked, torch.float16)  # .no_fuse, its one overload
        return yq, regrouped, half, ops.dequantize_per_channel_group(
            self.w_int4, self.w_scales, None, -8, 7, torch.int8, 4, torch.bfloat16)


def per_token_models():
    torch.manual_seed(0)
    yield "int8_dyn_act_int4_weight", Int8DynActInt4Weight(), torch.randn(5, 16) * 3


def check_pt2e(name, gm, x):
    started = time.monotonic()
    input_file = WORK / f"{name}_input.pt"
    torch.save(x, input_file)
    program = WORK / f"{name}.pt2"
    torch.export.save(torch.export.export(gm, (x,)), program)
    loaded = torch.export.load(program)
    expected = loaded.module()(x)
    graph = fxtrace("graph", program)
    check(graph.returncode == 0 and graph.stdout == str(loaded.graph) + "\n",
          f"{name}: the .pt2's graph is not PyTorch's:\n{graph.stdout[-1500:]}{graph.stderr}")
    archive = WORK / f"{name}_traced.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(gm, x).save(str(archive))
    for path in (program, archive):
        outputs = WORK / f"{path.name}_out.pt"
        run = fxtrace("run", path, "--input", f"file:{input_file}", "--save-outputs", outputs)
        if not check(run.returncode == 0, f"{path.name}: run failed:\n{run.stdout[-2000:]}{run.stderr}"):
            continue
        got, want = torch.load(outputs), expected
        want, have = flat(want), flat(got)
        check(len(want) == len(have) and all(torch.equal(a, b) for a, b in zip(want, have)),
              f"{path.name}: outputs differ from the program's module()")
    print(f"ok   {name}: .pt2 and traced, {len(loaded.graph.nodes)} nodes "
          f"({time.monotonic() - started:.1f} s)")


class Boxes(torch.nn.Module):
    """torchvision's ops as detection heads call them."""

    def forward(self, feats, boxes, scores):
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        pooled = torchvision.ops.roi_align(feats, [boxes[keep]], output_size=(2, 2),
                                           spatial_scale=0.5)
        return pooled.flatten(1), keep


class Filter(torch.nn.Module):
    """torchaudio's lfilter, which calls torchaudio::_lfilter."""

    def forward(self, x):
        return torchaudio.functional.lfilter(x, torch.tensor([1.0, -0.5]),
                                             torch.tensor([0.5, 0.5]))


class Remembers(torch.nn.Module):
    """Sets its own attribute in forward and reads it back, as AnchorGenerator does."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor(2.0))
        self.cache = [torch.zeros(1)]

    def forward(self, x):
        self.cache = [x * self.scale, x + 1]
        return self.cache[0] - self.cache[1]


def torchaudio_models():
    """torchaudio's models, small configurations, each in the kinds PyTorch 2.6 can save it
    (DeepSpeech and HDemucs do not script, wav2vec2 and WaveRNN do not trace)."""
    m = torchaudio.models
    torch.manual_seed(0)
    yield "wav2letter", m.Wav2Letter(num_classes=10, input_type="waveform", num_features=1), \
        (torch.randn(1, 1, 1600),), ("scripted", "traced")
    yield "conv_tasnet", m.ConvTasNet(
        num_sources=2, enc_kernel_size=16, enc_num_feats=32, msk_kernel_size=3, msk_num_feats=16,
        msk_num_hidden_feats=32, msk_num_layers=2, msk_num_stacks=1), \
        (torch.randn(1, 1, 800),), ("scripted", "traced")
    yield "deepspeech", m.DeepSpeech(n_feature=20, n_hidden=32, n_class=10), \
        (torch.randn(1, 1, 30, 20),), ("traced",)
    yield "wav2vec2", m.wav2vec2_model(
        extractor_mode="group_norm", extractor_conv_layer_config=[(16, 10, 5), (16, 3, 2)],
        extractor_conv_bias=False, encoder_embed_dim=32, encoder_projection_dropout=0.0,
        encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4, encoder_num_layers=2,
        encoder_num_heads=4, encoder_attention_dropout=0.0, encoder_ff_interm_features=64,
        encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=False,
        encoder_layer_drop=0.0, aux_num_out=10), (torch.randn(1, 1000),), ("scripted",)
    yield "conformer", m.Conformer(input_dim=16, num_heads=4, ffn_dim=32, num_layers=2,
                                   depthwise_conv_kernel_size=3), \
        (torch.randn(2, 20, 16), torch.tensor([20, 15])), ("scripted", "traced")
    yield "emformer", m.Emformer(input_dim=16, num_heads=4, ffn_dim=32, num_layers=2,
                                 segment_length=4), \
        (torch.randn(2, 12, 16), torch.tensor([12, 10])), ("scripted", "traced")
    yield "hdemucs", m.HDemucs(sources=["a", "b"], channels=8, growth=2, nfft=256, depth=3), \
        (torch.randn(1, 2, 2048),), ("traced",)
    yield "wavernn", m.WaveRNN(upsample_scales=[2, 2], n_classes=16, hop_length=4,
                               n_res_block=1, n_rnn=16, n_fc=16, kernel_size=3, n_freq=10,
                               n_hidden=8, n_output=8), \
        (torch.randn(1, 1, 64), torch.randn(1, 1, 10, 18)), ("scripted",)


def vision_models():
    """torchvision's models beyond classification: segmentation (a dict built in forward and
    returned: prints as torch.fx), optical flow (raft: loops, a list attribute appended to) and
    SSD detection, each as PyTorch can save it."""
    torch.manual_seed(0)
    yield "lraspp_mobilenet_v3_large", torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None), (torch.randn(1, 3, 64, 64),), ("scripted",)
    torch.manual_seed(0)
    images = (torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128))
    yield "raft_small", torchvision.models.optical_flow.raft_small(weights=None), images, \
        ("scripted", "traced")
    torch.manual_seed(0)
    yield "ssdlite320_mobilenet_v3_large", \
        torchvision.models.detection.ssdlite320_mobilenet_v3_large(
            weights=None, weights_backbone=None), ([torch.rand(3, 320, 320)],), ("scripted",)


def library_models():
    torch.manual_seed(0)
    xy = torch.rand(6, 2) * 20
    boxes = torch.cat([xy, xy + torch.rand(6, 2) * 10 + 1], 1)
    yield "boxes", Boxes(), (torch.randn(1, 4, 16, 16), boxes, torch.rand(6))
    yield "lfilter", Filter(), (torch.randn(2, 50),)
    yield "remembers", Remembers(), (torch.randn(3, 4),)
    torch.manual_seed(0)
    detector = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.0)
    yield "fasterrcnn_mobilenet_v3_large_320_fpn", detector, ([torch.rand(3, 120, 160)],)


def flat(value):
    """A nested output's tensors in order (dict values by key order)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for k in value for t in flat(value[k])]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in flat(item)]
    return []


# Where fxview's print differs from torch.fx's for a reason TorchScript does not keep.
KNOWN_PRINT_DIFFERENCES = {}


def reproduced_forward(name, model, args, calls=3):
    """The model's forward as two calls in a row agree on it, or None (the failure said).

    Debian's PyTorch 2.6 runs conv2d through oneDNN, which on this AMD Zen 4 CPU now and then
    returns garbage (tst_dynamo.py says more): one CI run's eager raft_small gave NaN flows where
    fxtrace's LibTorch gave numbers. A forward PyTorch itself cannot repeat is no oracle: the
    result two calls agree on is, and a forward that never repeats is a failure of its own."""
    previous = flat(model(*args))
    for _ in range(calls - 1):
        output = model(*args)
        current = flat(output)
        if len(current) == len(previous) and all(torch.equal(a, b)
                                                 for a, b in zip(current, previous)):
            return output
        print(f"note {name}: two calls of the eager forward differ; calling it again")
        previous = current
    check(False, f"{name}: the eager forward gave {calls} different results in {calls} calls")
    return None


def check_saved_model(name, model, args, kind="scripted"):
    """`name` saved as torch.jit.script or .trace makes it: fxtrace runs it to outputs torch.equal
    to the saved module's own; where symbolic_trace can trace the model, the scripted archive
    prints as torch.fx prints it."""
    started = time.monotonic()
    model = model.eval()
    archive, input_file, outputs = (WORK / f"{name}_{kind}.pt", WORK / f"{name}_input.pt",
                                    WORK / f"{name}_{kind}_out.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved = torch.jit.script(model) if kind == "scripted" else torch.jit.trace(model, args)
    saved.save(str(archive))
    torch.save(args, input_file)
    printed = ""
    with torch.no_grad():
        # The model's own forward, in eager mode, is the oracle: a module torch.jit.trace returns
        # may run other kernels than its saved self (torchaudio's Conformer differs in the last
        # bits), and a loaded archive, once TorchScript's executor has profiled and optimized
        # its graph in this process, may too (raft_small after a few calls).
        expected = reproduced_forward(name, model, args)
        if expected is None:
            return
        if kind == "scripted":
            try:
                printed = str(torch.fx.symbolic_trace(model).graph) + "\n"
            except Exception:  # noqa: BLE001 - control flow on data: torch.fx has no graph
                pass
    if name in KNOWN_PRINT_DIFFERENCES:
        printed = ""
    if printed:
        graph = fxtrace("graph", archive)
        check(graph.stdout == printed, f"{name}: the graph is not torch.fx's:\n"
              + "\n".join(difflib.unified_diff(printed.splitlines(), graph.stdout.splitlines(),
                                               "torch.fx", "fxtrace", lineterm="")))
    run = fxtrace("run", archive, "--input", f"file:{input_file}", "--save-outputs", outputs)
    if not check(run.returncode == 0, f"{name}: run failed:\n{run.stdout[-2000:]}{run.stderr}"):
        return
    got = torch.load(outputs)  # weights_only=True, torch.load's default
    got = got[0] if isinstance(got, tuple) and len(got) == 1 else got
    want, have = flat(expected), flat(got)
    differing = [i for i, (a, b) in enumerate(zip(want, have)) if not torch.equal(a, b)]
    worst = max((float((want[i] - have[i]).abs().max()) for i in differing
                 if want[i].shape == have[i].shape), default=0.0)
    # Where a NaN came from tells a wrong kernel from a wrong value fed to it: name both sides'.
    nans = [(int(want[i].isnan().sum()), int(have[i].isnan().sum())) for i in differing
            if want[i].is_floating_point() and have[i].is_floating_point()]
    if check(len(want) == len(have) and not differing,
             f"{name} {kind}: outputs differ from forward ({len(have)} tensors, "
             f"{len(want)} expected; outputs {differing} differ, by up to {worst}; NaNs in "
             f"forward's and fxtrace's: {nans[:4]})"):
        print(f"ok   {name} {kind}: {len(want)} output tensors equal"
              f"{', prints as torch.fx' if printed else ''} ({time.monotonic() - started:.1f} s)")


def check_segmentation_outputs():
    started = time.monotonic()
    torch.manual_seed(0)
    model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None).eval()
    x = torch.randn(1, 3, 64, 64)
    program, outputs = WORK / "lraspp.pt2", WORK / "lraspp_out.pt"
    torch.export.save(torch.export.export(model, (x,)), program)
    expected = torch.export.load(program).module()(x)  # a plain call: grad mode on
    run = fxtrace("run", program, "--save-outputs", outputs)
    if not check(run.returncode == 0, f"lraspp: run failed:\n{run.stdout[-2000:]}{run.stderr}"):
        return
    got = torch.load(outputs)  # weights_only=True, torch.load's default
    check(isinstance(got, dict) and list(got) == list(expected) == ["out"] and
          torch.equal(got["out"], expected["out"]), f"lraspp: {type(got)} is not {type(expected)}")
    print(f"ok   lraspp_mobilenet_v3_large.pt2: outputs as ep.module() returns them "
          f"({time.monotonic() - started:.1f} s)")


def check_ops_flag():
    # libtorchaudio.so up to torchaudio 2.8, libtorchaudio.abi3.so from 2.9
    library = sorted((Path(torchaudio.__file__).parent / "lib").glob("libtorchaudio*.so"))[0]
    archive = WORK / "lfilter_scripted.pt"
    given = fxtrace("graph", archive, "--ops", library)
    check(given.returncode == 0, f"--ops {library}: {given.stderr}")
    bogus = WORK / "not_a_library.so"
    bogus.write_text("not a shared library")
    refused = fxtrace("graph", archive, "--ops", bogus)
    check(refused.returncode == 1 and refused.stderr.startswith(
        f"Cannot load the op library '{bogus}': ") and refused.stderr.count("\n") == 1,
        f"--ops with a bad library: exit {refused.returncode}, {refused.stderr!r}")
    print("ok   --ops: a library by path, and a file that is none refused")


def main():
    groups = [(name, check_fx_quantized, (name, gm, x)) for name, gm, x in fx_quantized_models()]
    groups += [(name, check_pt2e, (name, gm, x)) for name, gm, x in pt2e_quantized_models()]
    groups += [(name, check_pt2e, (name, m, x)) for name, m, x in per_token_models()]
    groups += [(name, check_saved_model, (name, m, (x,))) for name, m, x in per_token_models()]
    groups += [(name, check_saved_model, (name, m, args)) for name, m, args in library_models()]
    groups += [(f"{name} {kind}", check_saved_model, (name, m, args, kind))
               for name, m, args, kinds in [*torchaudio_models(), *vision_models()]
               for kind in kinds]
    groups.append(("--ops", check_ops_flag, ()))
    groups.append(("segmentation", check_segmentation_outputs, ()))
    return run_groups(groups)


if __name__ == "__main__":
    sys.exit(main())
