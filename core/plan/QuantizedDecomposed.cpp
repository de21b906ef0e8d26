// Each op is the ATen calls of its Python definition in PyTorch 2.6's
// torch/ao/quantization/fx/_decomposed.py, in the same order and with the same Python number
// types (a float scale is a double, `1.0 / scales` is reciprocal() * 1.0), so that the results are
// bit for bit PyTorch's. The checks raise the assertions' messages.

#include "QuantizedDecomposed.h"
#include "QuantizedDecomposedParts.h"

#include <ATen/ATen.h>
#include <torch/library.h>

#include <limits>

namespace fxview {

namespace {

using at::Tensor;
using namespace qdecomposed;

Tensor quantizePerTensorOf(const Tensor& input, double scale, const at::Scalar& zeroPoint,
                           std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype) {
    Tensor x = asFloat32(input);
    checkBounds(quantMin, quantMax, dtype);
    double invScale = 1.0 / scale;
    return at::clamp(at::round(x * invScale) + zeroPoint, at::Scalar(quantMin),
                     at::Scalar(quantMax))
        .to(dtype);
}

Tensor quantizePerTensor(const Tensor& input, double scale, std::int64_t zeroPoint,
                         std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype) {
    return quantizePerTensorOf(input, scale, zeroPoint, quantMin, quantMax, dtype);
}

Tensor quantizePerTensorTensor(const Tensor& input, const Tensor& scale, const Tensor& zeroPoint,
                               std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype) {
    at::Scalar zp = item(zeroPoint, "zero_point");
    return quantizePerTensorOf(input, item(scale, "scale").toDouble(), zp, quantMin, quantMax,
                               dtype);
}

Tensor quantizePerTensorTensor2(const Tensor& input, const Tensor& scale, const Tensor& zeroPoint,
                                const Tensor& quantMin, const Tensor& quantMax,
                                at::ScalarType dtype) {
    at::Scalar zp = item(zeroPoint, "zero_point");
    return quantizePerTensorOf(input, item(scale, "scale").toDouble(), zp, quantMin.item().toLong(),
                               quantMax.item().toLong(), dtype);
}

Tensor dequantizePerTensorOf(const Tensor& input, double scale, const at::Scalar& zeroPoint,
                             at::ScalarType dtype, std::optional<at::ScalarType> outDtype) {
    TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype: ", dtypeText(dtype),
                ", but got ", dtypeText(input.scalar_type()));
    TORCH_CHECK(valueBounds(dtype),
                "Unsupported dtype in dequantize_per_tensor: ", dtypeText(dtype));
    return (input.to(outDtype.value_or(at::kFloat)) - zeroPoint) * scale;
}

Tensor dequantizePerTensor(const Tensor& input, double scale, std::int64_t zeroPoint, std::int64_t,
                           std::int64_t, at::ScalarType dtype,
                           std::optional<at::ScalarType> outDtype) {
    return dequantizePerTensorOf(input, scale, zeroPoint, dtype, outDtype);
}

Tensor dequantizePerTensorTensor(const Tensor& input, const Tensor& scale, const Tensor& zeroPoint,
                                 std::int64_t, std::int64_t, at::ScalarType dtype,
                                 std::optional<at::ScalarType> outDtype) {
    at::Scalar zp = item(zeroPoint, "zero_point");
    return dequantizePerTensorOf(input, item(scale, "scale").toDouble(), zp, dtype, outDtype);
}

Tensor dequantizePerTensorTensor2(const Tensor& input, const Tensor& scale, const Tensor& zeroPoint,
                                  const Tensor&, const Tensor&, at::ScalarType dtype,
                                  std::optional<at::ScalarType> outDtype) {
    at::Scalar zp = item(zeroPoint, "zero_point");
    return dequantizePerTensorOf(input, item(scale, "scale").toDouble(), zp, dtype, outDtype);
}

// _permute_to_axis_zero: the permutation swapping `axis` and 0 (its own inverse).
std::vector<std::int64_t> axisToZero(std::int64_t dims, std::int64_t axis) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(dims));
    for (std::int64_t i = 0; i < dims; ++i)
        order[static_cast<std::size_t>(i)] = i;
    order[static_cast<std::size_t>(axis)] = 0;
    order[0] = axis;
    return order;
}

std::vector<std::int64_t> channelShape(std::int64_t dims, const Tensor& scales) {
    std::vector<std::int64_t> shape(static_cast<std::size_t>(dims), 1);
    shape[0] = scales.size(0);
    return shape;
}

Tensor quantizePerChannel(const Tensor& input, const Tensor& scales, const Tensor& zeroPoints,
                          std::int64_t axis, std::int64_t quantMin, std::int64_t quantMax,
                          at::ScalarType dtype) {
    Tensor x = asFloat32(input);
    TORCH_CHECK(axis < x.dim(), "Expecting axis to be < ", x.dim());
    checkBounds(quantMin, quantMax, dtype);
    std::vector<std::int64_t> order = axisToZero(x.dim(), axis);
    x = x.permute(order);
    std::vector<std::int64_t> shape = channelShape(x.dim(), scales);
    Tensor s = scales.view(shape), zp = zeroPoints.view(shape);
    Tensor res = at::clamp(at::round(x * (s.reciprocal() * 1.0)) + zp, at::Scalar(quantMin),
                           at::Scalar(quantMax));
    return res.permute(order).to(dtype);
}

Tensor dequantizePerChannel(const Tensor& input, const Tensor& scales,
                            const std::optional<Tensor>& zeroPoints, std::int64_t axis,
                            std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype,
                            std::optional<at::ScalarType> outDtype) {
    TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype ", dtypeText(dtype),
                ", but got dtype: ", dtypeText(input.scalar_type()));
    TORCH_CHECK(axis < input.dim(), "Expecting axis to be < ", input.dim());
    checkBounds(quantMin, quantMax, dtype);
    std::vector<std::int64_t> order = axisToZero(input.dim(), axis);
    Tensor x = input.permute(order);
    std::vector<std::int64_t> shape = channelShape(x.dim(), scales);
    Tensor s = scales.view(shape);
    Tensor res = zeroPoints && zeroPoints->defined() ? (x - zeroPoints->view(shape)) * s : x * s;
    return res.to(outDtype.value_or(at::kFloat)).permute(order);
}

// choose_qparams.tensor and choose_qparams_symmetric.tensor: torch.aminmax, then
// torch.ao.quantization.utils.determine_qparams (per tensor, has_customized_qrange=False).
std::tuple<Tensor, Tensor> chooseQParams(const Tensor& input, std::int64_t quantMin,
                                         std::int64_t quantMax, double eps, at::ScalarType dtype,
                                         bool symmetric) {
    const at::ScalarType in = input.scalar_type();
    TORCH_CHECK(
        in == at::kFloat || in == at::kHalf || in == at::kBFloat16,
        "Expecting input to have dtype torch.float32/16/b16, but got dtype: ", dtypeText(in));
    TORCH_CHECK(valueBounds(dtype),
                "Expecting target dtype to be one of the quantized dtypes, "
                "but got: ",
                dtypeText(dtype));
    TORCH_CHECK(quantMin <= 0 && 0 <= quantMax,
                "Used-specified quantization range must include 0.");
    TORCH_CHECK(quantMin < quantMax, "qmin must be strictly less than qmax for user-specified "
                                     "quantization range.");
    auto [minVal, maxVal] = at::aminmax(input);
    // check_min_max_valid: an empty observation gives the defaults.
    if (minVal.item<double>() == std::numeric_limits<double>::infinity() &&
        maxVal.item<double>() == -std::numeric_limits<double>::infinity())
        return {at::tensor({1.0f}), at::tensor({std::int64_t(0)})};
    TORCH_CHECK(at::le(minVal, maxVal).item<bool>(), "min ", minVal.item<double>(),
                " should be less than max ", maxVal.item<double>());
    Tensor minNeg = at::min(minVal, at::zeros_like(minVal));
    Tensor maxPos = at::max(maxVal, at::zeros_like(maxVal));
    Tensor epsilon = at::tensor({static_cast<float>(eps)});
    Tensor scale, zeroPoint = at::zeros(minNeg.sizes(), at::kLong);
    if (symmetric) {
        maxPos = at::max(-minNeg, maxPos);
        scale = at::max(maxPos / (static_cast<double>(quantMax - quantMin) / 2), epsilon);
        if (dtype == at::kByte || dtype == at::kQUInt8)
            zeroPoint = zeroPoint.new_full(zeroPoint.sizes(), 128);
    } else {
        scale = at::max((maxPos - minNeg) / static_cast<double>(quantMax - quantMin), epsilon);
        zeroPoint = at::rsub(at::round(minNeg / scale).to(at::kInt), quantMin);
        zeroPoint = at::clamp(zeroPoint, quantMin, quantMax);
    }
    // For scalars, tensors of size 1, as determine_qparams makes them.
    if (scale.dim() == 0)
        scale = at::tensor({scale.item<double>()}, scale.options());
    if (zeroPoint.dim() == 0)
        zeroPoint = at::tensor({zeroPoint.item<std::int64_t>()}, zeroPoint.options());
    return {scale.to(at::kDouble), zeroPoint.to(at::kLong)};
}

std::tuple<Tensor, Tensor> chooseQParamsTensor(const Tensor& input, std::int64_t quantMin,
                                               std::int64_t quantMax, double eps,
                                               at::ScalarType dtype) {
    return chooseQParams(input, quantMin, quantMax, eps, dtype, false);
}

std::tuple<Tensor, Tensor> chooseQParamsSymmetricTensor(const Tensor& input, std::int64_t quantMin,
                                                        std::int64_t quantMax, double eps,
                                                        at::ScalarType dtype) {
    return chooseQParams(input, quantMin, quantMax, eps, dtype, true);
}

} // namespace

void registerQuantizedDecomposedOps() {
    static const bool registered = [] {
        // Kept for the process's life: the dispatcher holds the registrations while they live.
        static torch::Library library(torch::Library::DEF, "quantized_decomposed", std::nullopt,
                                      __FILE__, __LINE__);
        library.def("quantize_per_tensor(Tensor input, float scale, int zero_point, int "
                    "quant_min, int quant_max, ScalarType dtype) -> Tensor",
                    TORCH_FN(quantizePerTensor));
        library.def("quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, "
                    "int quant_min, int quant_max, ScalarType dtype) -> Tensor",
                    TORCH_FN(quantizePerTensorTensor));
        library.def("quantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor zero_point, "
                    "Tensor quant_min, Tensor quant_max, ScalarType dtype) -> Tensor",
                    TORCH_FN(quantizePerTensorTensor2));
        library.def("dequantize_per_tensor(Tensor input, float scale, int zero_point, int "
                    "quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) "
                    "-> Tensor",
                    TORCH_FN(dequantizePerTensor));
        library.def("dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, "
                    "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? "
                    "out_dtype=None) -> Tensor",
                    TORCH_FN(dequantizePerTensorTensor));
        library.def("dequantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor "
                    "zero_point, Tensor quant_min, Tensor quant_max, ScalarType dtype, *, "
                    "ScalarType? out_dtype=None) -> Tensor",
                    TORCH_FN(dequantizePerTensorTensor2));
        library.def("quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int "
                    "axis, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
                    TORCH_FN(quantizePerChannel));
        library.def("dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, "
                    "int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? "
                    "out_dtype=None) -> Tensor",
                    TORCH_FN(dequantizePerChannel));
        library.def("choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float "
                    "eps, ScalarType dtype) -> (Tensor, Tensor)",
                    TORCH_FN(chooseQParamsTensor));
        library.def("choose_qparams_symmetric.tensor(Tensor input, int quant_min, int "
                    "quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
                    TORCH_FN(chooseQParamsSymmetricTensor));
        definePerTokenOps(library);
        return true;
    }();
    (void)registered;
}

} // namespace fxview
