#pragma once
// Core-internal: torch.vmap inside a torch.export program. Export keeps functorch's pre-dispatch
// calls as nodes (torch._functorch.predispatch: lazy_load_decompositions, _vmap_increment_nesting,
// _add_batch_dim, _remove_batch_dim, _vmap_decrement_nesting), which ep.module() runs through
// torch._C._functorch; these run them through the C++ beneath it, LibTorch's functorch layer
// (ATen/functorch), so the ops between them see BatchedTensors as they do in PyTorch. Include
// only from core's .cpp files.

#include <optional>
#include <string>

#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

namespace fxview {

// The operation that runs functorch's call `target` ("torch._functorch.predispatch._add_batch_dim")
// on its positional arguments, or nullopt when `target` is none of them.
std::optional<torch::jit::Operation> functorchOperation(const std::string& target);

// `value` as a person sees it: a BatchedTensor (a value inside torch.vmap) as the tensor it
// wraps, every level's batch dimension in place; other values as they are.
c10::IValue physicalValue(const c10::IValue& value);

// Closes the vmap levels a run left open (it stopped, failed or was reset inside torch.vmap):
// functorch's layer stack is the thread's, and the next run must start without them.
void closeVmapLevels();

} // namespace fxview
