#pragma once
// Import-internal: the built-in example models (their names and descriptions: Examples.h).

#include <torch/script.h>

#include <string>

namespace fxview {

// Builds the built-in example NAME; throws std::invalid_argument if unknown.
torch::jit::Module buildExample(const std::string& name);

} // namespace fxview
