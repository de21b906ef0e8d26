#pragma once
// Core-internal, private to import/export/: how torch.export's auto_functionalized (v1) and
// auto_functionalized_v2 run a custom op that writes into its inputs, as their dense
// implementations in torch/_higher_order_ops/auto_functionalize.py do.

#include <torch/csrc/jit/runtime/operator.h>

#include <memory>
#include <string>
#include <vector>

namespace fxview {

enum class AutoFunctionalizedKind { V1, V2 };

// The operation of one auto_functionalized node calling `op`, whose inputs after the op arrive
// on the stack in the order of `names` (the file's keyword names: the op's arguments and, for
// v2, _all_bases and each mutable argument's view keys). v1 clones each mutable argument
// (clone_preserve_strides), calls the op on the clones and returns (its outputs..., the
// clones...); v2 clones _all_bases, regenerates each mutable argument from its base (the base
// itself, aten.alias, aten.slice or as_strided, as its keys say), calls the op and returns (its
// outputs..., the new bases...). An op that returns nothing gives None first.
torch::jit::Operation autoFunctionalizedOperation(AutoFunctionalizedKind kind,
                                                  std::shared_ptr<torch::jit::Operator> op,
                                                  std::vector<std::string> names);

} // namespace fxview
