#pragma once
// Core-internal: the Python-number functions a torch.export graph calls on symbolic sizes
// (`_operator.mul(sym_size_int, 8)`, `torch.sym_max`), which are not ATen operators. Include only
// from core's .cpp files.

#include <optional>
#include <string>

#include <torch/script.h>

namespace fxview {

// The operation for a serialized target such as "_operator.floordiv" or "torch.sym_max", with
// Python's semantics (floor division and modulo round toward negative infinity, int ** int stays
// an int); nullopt when the target is not one of them. It pops `arity` values and pushes one.
std::optional<torch::jit::Operation> symbolicOperation(const std::string& target, int arity);

// How torch.fx prints the target: "_operator.mul" -> "operator.mul".
std::string symbolicTargetName(const std::string& target);

} // namespace fxview
