#pragma once
// PT2E quantization's ops (quantized_decomposed::quantize_per_tensor, dequantize_per_channel, ...)
// are defined by PyTorch's Python (torch/ao/quantization/fx/_decomposed.py), so LibTorch alone has
// none of them. fxview registers them natively, computed exactly as that Python computes them.

namespace fxview {

// Registers the ops once per process; later calls do nothing. Called before a model is read, so
// a TorchScript archive that calls them loads and a .pt2 program finds them.
void registerQuantizedDecomposedOps();

} // namespace fxview
