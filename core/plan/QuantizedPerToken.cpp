// The quantized_decomposed ops that dynamic per-token activations and grouped weights use
// (torchao's and ExecuTorch's int8-activation / int4-weight linear: choose_qparams_per_token*,
// quantize_per_token, dequantize_per_channel_group, ...), plus fake_quant_per_channel and
// convert_element_type.no_fuse. Each is the ATen calls of its definition in PyTorch 2.6's
// torch/ao/quantization/fx/_decomposed.py, in the same order and with the same Python number
// types, so that the results are bit for bit PyTorch's.

#include "QuantizedDecomposedParts.h"

#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

namespace fxview::qdecomposed {

namespace {

using at::Tensor;

// A tensor's size as Python prints it in these ops' messages: torch.Size([2, 1]).
std::string sizeText(const Tensor& t) {
    std::ostringstream out;
    out << "torch.Size([";
    for (std::int64_t i = 0; i < t.dim(); ++i)
        out << (i ? ", " : "") << t.size(i);
    out << "])";
    return out.str();
}

// choose_qparams_per_token: symmetric int8 scales from each token's largest magnitude.
std::tuple<Tensor, Tensor> chooseQParamsPerToken(const Tensor& input, at::ScalarType dtype) {
    Tensor scales = input.abs().amax({-1}, /*keepdim=*/true);
    if (scales.scalar_type() == at::kHalf)
        scales = scales.to(at::kFloat); // avoids float16 overflow, as the Python says
    TORCH_CHECK(dtype == at::kChar,
                "unsupported dtype in choose_qparams_per_token: ", dtypeText(dtype));
    const std::int64_t quantMax = 127; // 2 ** (8 - 1) - 1
    scales = scales.clamp_min(1e-5).div(quantMax);
    return {scales, at::zeros_like(scales)};
}

// _choose_qparams_per_token_asymmetric_impl, after XNNPACK's quantization.h (its dtype is unused:
// the range is always int8's).
std::tuple<Tensor, Tensor> chooseQParamsPerTokenAsymmetric(const Tensor& input, at::ScalarType) {
    const std::int64_t qmin = -128, qmax = 127;
    Tensor minVal = at::amin(input, {-1}, /*keepdim=*/true);
    Tensor maxVal = at::amax(input, {-1}, /*keepdim=*/true);
    Tensor minNeg = at::min(minVal, at::zeros_like(minVal));
    Tensor maxPos = at::max(maxVal, at::zeros_like(maxVal));
    const double eps = std::numeric_limits<float>::epsilon(); // torch.finfo(torch.float32).eps
    Tensor scale = (maxPos - minNeg) / static_cast<double>(qmax - qmin);
    scale = scale.clamp_min(eps);
    Tensor descaledMin = minNeg / scale;
    Tensor descaledMax = maxPos / scale;
    Tensor fromMinError = descaledMin + qmin; // qmin + descaled_min: Tensor.__radd__
    Tensor fromMaxError = descaledMax + qmax;
    Tensor zeroPoint = at::where(fromMinError + fromMaxError > 0, at::rsub(descaledMin, qmin),
                                 at::rsub(descaledMax, qmax));
    zeroPoint = at::clamp(zeroPoint, qmin, qmax).round();
    return {scale.to(at::kDouble), zeroPoint.to(at::kLong)};
}

// _per_token_quant_qparam_dim_check.
void checkTokenQParams(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints) {
    std::int64_t tokens = 1;
    for (std::int64_t i = 0; i + 1 < input.dim(); ++i)
        tokens *= input.size(i);
    TORCH_CHECK(tokens == scales.numel(), "num_tokens: ", tokens, " scales: ", sizeText(scales));
    TORCH_CHECK(tokens == zeroPoints.numel(), "num_tokens: ", tokens,
                " zero_points: ", sizeText(zeroPoints));
}

Tensor quantizePerToken(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints,
                        std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype) {
    checkBounds(quantMin, quantMax, dtype);
    checkTokenQParams(input, scales, zeroPoints);
    // 1.0 / scales is Tensor.__rtruediv__: scales.reciprocal() * 1.0.
    return input.mul(scales.reciprocal() * 1.0)
        .add(zeroPoints)
        .round()
        .clamp(quantMin, quantMax)
        .to(dtype);
}

// No checks: the Python's CompositeExplicitAutograd definition has none (only its Meta one).
Tensor dequantizePerToken(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints,
                          std::int64_t, std::int64_t, at::ScalarType, at::ScalarType outputDtype) {
    return ((input - zeroPoints) * scales).to(outputDtype);
}

// The group size both channel-group ops use: GPTQ's single-column case takes the whole row.
std::int64_t checkedGroupSize(const Tensor& input, const Tensor& scales, std::int64_t groupSize,
                              const char* op) {
    TORCH_CHECK(groupSize > 1, op, ": group_size must be greater than 1, not ", groupSize);
    if (groupSize > input.size(-1) && scales.size(-1) == 1)
        groupSize = input.size(-1);
    TORCH_CHECK(input.size(-1) % groupSize == 0, op, ": the last dimension (", input.size(-1),
                ") is not a multiple of group_size ", groupSize);
    TORCH_CHECK(input.dim() == 2, op, ": expects a 2-D tensor, not ", input.dim(), "-D");
    return groupSize;
}

// dtype is not checked, as the Python's TODO says (torch.int4 cannot be expressed).
Tensor quantizePerChannelGroup(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints,
                               std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype,
                               std::int64_t groupSize) {
    TORCH_CHECK(input.dim() >= 1, "quantize_per_channel_group: expects a 2-D tensor, not 0-D");
    groupSize = checkedGroupSize(input, scales, groupSize, "quantize_per_channel_group");
    Tensor toQuant = input.reshape({-1, groupSize});
    TORCH_CHECK(at::isnan(toQuant).sum().item<std::int64_t>() == 0,
                "quantize_per_channel_group: the input holds NaN");
    Tensor s = scales.reshape({-1, 1}), zp = zeroPoints.reshape({-1, 1});
    return toQuant.mul(s.reciprocal() * 1.0)
        .add(zp)
        .round()
        .clamp_(quantMin, quantMax)
        .to(dtype)
        .reshape_as(input);
}

Tensor dequantizePerChannelGroup(const Tensor& input, const Tensor& scales,
                                 const std::optional<Tensor>& zeroPoints, std::int64_t,
                                 std::int64_t, at::ScalarType, std::int64_t groupSize,
                                 at::ScalarType outputDtype) {
    TORCH_CHECK(input.dim() >= 1, "dequantize_per_channel_group: expects a 2-D tensor, not 0-D");
    groupSize = checkedGroupSize(input, scales, groupSize, "dequantize_per_channel_group");
    Tensor grouped = input.reshape({-1, groupSize});
    Tensor s = scales.reshape({-1, 1});
    Tensor zp = zeroPoints && zeroPoints->defined()
                    ? zeroPoints->reshape({-1, 1})
                    : at::zeros({}, at::TensorOptions().dtype(at::kInt).device(s.device()));
    return grouped.sub(zp).mul(s).reshape_as(input).to(outputDtype);
}

// FakeQuantPerChannel.forward: quantize and dequantize along `axis` in float32.
Tensor fakeQuantPerChannel(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints,
                           std::int64_t axis, std::int64_t quantMin, std::int64_t quantMax) {
    Tensor s = scales.scalar_type() == at::kFloat ? scales : scales.to(at::kFloat);
    Tensor zp = zeroPoints.scalar_type() == at::kInt ? zeroPoints : zeroPoints.to(at::kInt);
    TORCH_CHECK(input.scalar_type() == at::kFloat,
                "Expecting input to have dtype torch.float32, but got dtype: ",
                dtypeText(input.scalar_type()));
    TORCH_CHECK(axis < input.dim(), "Expecting axis to be < ", input.dim());
    // _unsqueeze_multiple(x, list(range(0, axis)) + list(range(axis + 1, ndim))): sorted, as
    // Python builds it (a negative axis gives Python's own list, -1 and all).
    std::vector<std::int64_t> dims;
    for (std::int64_t d = 0; d < axis; ++d)
        dims.push_back(d);
    for (std::int64_t d = axis + 1; d < input.dim(); ++d)
        dims.push_back(d);
    std::sort(dims.begin(), dims.end());
    for (std::int64_t d : dims) {
        s = s.unsqueeze(d);
        zp = zp.unsqueeze(d);
    }
    Tensor temp = at::round(input * (s.reciprocal() * 1.0)) + zp;
    return (at::clamp(temp, quantMin, quantMax) - zp) * s;
}

// prims.convert_element_type: an empty_like of the new dtype (strides kept) copied into.
Tensor convertElementType(const Tensor& input, at::ScalarType dtype) {
    return at::empty_like(input, input.options().dtype(dtype)).copy_(input);
}

} // namespace

void definePerTokenOps(torch::Library& library) {
    library.def("choose_qparams_per_token(Tensor input, ScalarType dtype) -> (Tensor, Tensor)",
                TORCH_FN(chooseQParamsPerToken));
    library.def("_choose_qparams_per_token_asymmetric_impl(Tensor input, ScalarType dtype) -> "
                "(Tensor, Tensor)",
                TORCH_FN(chooseQParamsPerTokenAsymmetric));
    library.def("choose_qparams_per_token_asymmetric(Tensor input, ScalarType dtype) -> (Tensor, "
                "Tensor)",
                TORCH_FN(chooseQParamsPerTokenAsymmetric));
    library.def("quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int "
                "quant_min, int quant_max, ScalarType dtype) -> Tensor",
                TORCH_FN(quantizePerToken));
    library.def("dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int "
                "quant_min, int quant_max, ScalarType dtype, ScalarType output_dtype) -> Tensor",
                TORCH_FN(dequantizePerToken));
    library.def("quantize_per_channel_group(Tensor input, Tensor scales, Tensor zero_points, int "
                "quant_min, int quant_max, ScalarType dtype, int group_size) -> Tensor",
                TORCH_FN(quantizePerChannelGroup));
    library.def("dequantize_per_channel_group(Tensor input, Tensor scales, Tensor? zero_points, "
                "int quant_min, int quant_max, ScalarType dtype, int group_size, ScalarType "
                "output_dtype) -> Tensor",
                TORCH_FN(dequantizePerChannelGroup));
    library.def("fake_quant_per_channel(Tensor input, Tensor scales, Tensor zero_points, int "
                "axis, int quant_min, int quant_max) -> Tensor",
                TORCH_FN(fakeQuantPerChannel));
    library.def("convert_element_type.no_fuse(Tensor input, ScalarType dtype) -> Tensor",
                TORCH_FN(convertElementType));
}

} // namespace fxview::qdecomposed
