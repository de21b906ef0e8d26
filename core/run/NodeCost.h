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

// The node's FLOPs as torch.utils.flop_counter counts the kernels its operator runs
// (convolution, linear, mm, addmm, bmm, baddbmm, matmul, scaled dot product attention), from its
// operands' and output's shapes; `weight` is a call_module's own weight (nn.Linear, nn.Conv*).
// 0 for every other operator.
std::int64_t countFlops(const Node& node, const torch::jit::Stack& operands,
                        const c10::IValue& value, const c10::IValue& weight = {});

// The distinct storages' bytes of `values`, leaving out those in `apart` (the weights').
std::int64_t distinctBytes(const std::vector<const c10::IValue*>& values,
                           const std::unordered_set<const void*>& apart);

} // namespace fxview
