// _decomposed.py's checks, shared by the quantized_decomposed ops (QuantizedDecomposedParts.h).

#include "QuantizedDecomposedParts.h"

#include "TorchValues.h"

#include <limits>

namespace fxview::qdecomposed {

std::optional<std::pair<std::int64_t, std::int64_t>> valueBounds(at::ScalarType dtype) {
    switch (dtype) {
    case at::kByte:
        return std::make_pair(0, 255);
    case at::kChar:
        return std::make_pair(-128, 127);
    case at::kUInt16:
        return std::make_pair(0, 65535);
    case at::kShort:
        return std::make_pair(-32768, 32767);
    case at::kInt:
        return std::make_pair(std::numeric_limits<std::int32_t>::min(),
                              std::numeric_limits<std::int32_t>::max());
    case at::kFloat8_e5m2:
        return std::make_pair(-57344, 57344);
    case at::kFloat8_e4m3fn:
        return std::make_pair(-448, 448);
    default:
        return std::nullopt;
    }
}

void checkBounds(std::int64_t quantMin, std::int64_t quantMax, at::ScalarType dtype) {
    auto bounds = valueBounds(dtype);
    TORCH_CHECK(bounds, "Unsupported dtype: ", dtypeText(dtype));
    TORCH_CHECK(quantMin >= bounds->first,
                "quant_min out of bound for dtype, quant_min_lower_bound: ", bounds->first,
                " quant_min: ", quantMin);
    TORCH_CHECK(quantMax <= bounds->second,
                "quant_max out of bound for dtype, quant_max_upper_bound: ", bounds->second,
                " quant_max: ", quantMax);
}

at::Tensor asFloat32(const at::Tensor& input) {
    at::Tensor x = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16
                       ? input.to(at::kFloat)
                       : input;
    TORCH_CHECK(
        x.scalar_type() == at::kFloat,
        "Expecting input to have dtype torch.float32, but got dtype: ", dtypeText(x.scalar_type()));
    return x;
}

at::Scalar item(const at::Tensor& t, const char* name) {
    TORCH_CHECK(t.numel() == 1, "Expecting ", name,
                " tensor to be one element, but received : ", t.numel());
    return t.item();
}

std::string dtypeText(at::ScalarType dtype) {
    return "torch." + dtypeName(dtype);
}

} // namespace fxview::qdecomposed
