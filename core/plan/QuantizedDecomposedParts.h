#pragma once
// What QuantizedDecomposed.cpp (per tensor and per channel) and QuantizedPerToken.cpp (per token,
// per channel group, fake quantization) share: _decomposed.py's checks, raising its messages.
// Private to core/run.

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <utility>

namespace torch {
class Library;
}

namespace fxview::qdecomposed {

// _DTYPE_TO_QVALUE_BOUNDS: the dtypes these ops know, with their value ranges.
std::optional<std::pair<std::int64_t, std::int64_t>> valueBounds(at::ScalarType dtype);
// _quant_min_max_bounds_check.
void checkBounds(std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype);
// The input as float32 (float16 and bfloat16 are converted first, as the Python does).
at::Tensor asFloat32(const at::Tensor& input);
// A one-element tensor's .item(), as Python gives it: an int stays an int, a float a double.
at::Scalar item(const at::Tensor& t, const char* name);
// How Python prints a dtype in these messages: "torch.int8".
std::string dtypeText(at::ScalarType dtype);

// Adds the per-token, per-channel-group, fake-quantization and convert_element_type ops.
void definePerTokenOps(torch::Library& library);

} // namespace fxview::qdecomposed
