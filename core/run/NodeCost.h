#pragma once
// Core-internal (run/): what a node's run costs, as the Interpreter records it on the node's
// NodeRecord (docs/cost.md): the storages its outputs hold that its inputs did not, whether
// they alias an input (a view, or an input written in place), the bytes every value a later node
// still uses holds, and floating-point operations counted from shapes as
// torch.utils.flop_counter counts them. LibTorch stays in run/'s .cpp files and here.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

namespace fxview {

struct Node;
struct NodeRecord;

// A storage as a value holds it: its impl (identity) and its size in bytes.
using StorageBytes = std::unordered_map<const void*, std::int64_t>;

// Adds the storage of every tensor `value` holds (tuples, lists and dicts walked) to `out`.
void addStorages(const c10::IValue& value, StorageBytes& out);

// The version counters of the tensors a node is about to take, by storage: an input whose
// counter moved while the node ran was written in place.
std::unordered_map<const void*, std::int64_t> versionsByStorage(const torch::jit::Stack& operands);

// Sets record.newBytes and record.aliasKind: `value`'s storages that `operands` did not hold
// count as new; one they held makes the node a view, or in-place when its version counter moved
// from `before`.
void noteOutputCost(NodeRecord& record, const torch::jit::Stack& operands,
                    const std::unordered_map<const void*, std::int64_t>& before,
                    const c10::IValue& value);

// What a call_module's FLOPs need of its module: nn.Linear's and nn.Conv*'s weight;
// nn.MultiheadAttention's layout when the module says it (a traced one keeps no batch_first) and
// the keys its bias_k and add_zero_attn add.
struct ModuleFacts {
    c10::IValue weight;
    c10::IValue batchFirst; // a bool, or none when the module does not say
    std::int64_t addedKeys = 0;
};

// The node's FLOPs as torch.utils.flop_counter counts the kernels its operator runs
// (convolution, linear, mm, addmm, bmm, baddbmm, matmul, scaled dot product attention), from its
// operands' and output's shapes; a call_module's nn.Linear, nn.Conv* or nn.MultiheadAttention
// as the kernels its forward runs. 0 for every other operator.
std::int64_t countFlops(const Node& node, const torch::jit::Stack& operands,
                        const c10::IValue& value, const ModuleFacts& module = {});

// Each value's bytes in the distinct storages of `values`: those it holds that no value before
// it holds, leaving out the storages in `apart` (the weights'). Their sum is the live set.
std::vector<std::int64_t> storageShares(const std::vector<const c10::IValue*>& values,
                                        const std::unordered_set<const void*>& apart);

} // namespace fxview
