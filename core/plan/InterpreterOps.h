#pragma once
// Core-internal: how a TorchScript node runs when its value is computed at run time. Include only
// from core's .cpp files.

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

namespace fxview {

// The operation that runs `n`: LibTorch's registered operator, or for the nodes TorchScript's
// interpreter runs with instructions of its own (interpreter/code_impl.h's emitNode: list and
// dict literals, isinstance, TupleSlice) the same work done here. Throws when there is neither.
torch::jit::Operation interpreterOperation(const torch::jit::Node* n);

} // namespace fxview
