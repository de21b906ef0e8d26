// torch._C._functorch's vmap calls, as torch/csrc/functorch/init.cpp binds them for Python: see
// Functorch.h.

#include "Functorch.h"

#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/functorch/BatchedTensorImpl.h>
#include <ATen/functorch/DynamicLayer.h>

#include <stdexcept>
#include <vector>

namespace fxview {

namespace {

namespace ft = at::functorch;
namespace jit = torch::jit;

ft::RandomnessType randomnessOf(const std::string& randomness) {
    if (randomness == "error")
        return ft::RandomnessType::Error;
    if (randomness == "same")
        return ft::RandomnessType::Same;
    if (randomness == "different")
        return ft::RandomnessType::Different;
    throw std::runtime_error("randomness argument must be error, same, or different.");
}

// Moves dimension `src` to `dst`, the others keeping their order (init.cpp's _movedim).
at::Tensor movedDim(const at::Tensor& self, std::int64_t src, std::int64_t dst) {
    const std::int64_t dims = self.dim();
    src = at::maybe_wrap_dim(src, dims);
    dst = at::maybe_wrap_dim(dst, dims);
    if (src == dst)
        return self;
    std::vector<std::int64_t> permutation;
    for (std::int64_t d = 0; d < dims; ++d)
        if (d != src)
            permutation.push_back(d);
    permutation.insert(permutation.begin() + dst, src);
    return self.permute(permutation);
}

// _remove_batch_dim(self, level, batch_size, out_dim): the level's batch dimension back as
// dimension out_dim, or, where `self` never met the level, `self` expanded along a new one.
at::Tensor removeBatchDim(const at::Tensor& self, std::int64_t level, std::int64_t batchSize,
                          std::int64_t outDim) {
    const ft::BatchedTensorImpl* batched = ft::maybeGetBatchedImpl(self);
    if (!batched || batched->level() < level) {
        std::vector<std::int64_t> sizes = self.sizes().vec();
        sizes.insert(sizes.begin() + outDim, batchSize);
        return self.expand(sizes);
    }
    if (batched->level() != level)
        throw std::runtime_error("_remove_batch_dim was given a tensor batched at level " +
                                 std::to_string(batched->level()) + ", not " +
                                 std::to_string(level));
    return movedDim(batched->value(), batched->bdim(), outDim);
}

std::vector<c10::IValue> popArguments(jit::Stack& stack, std::size_t n) {
    if (stack.size() < n)
        throw std::runtime_error("a functorch call was given too few arguments");
    std::vector<c10::IValue> args(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
    stack.resize(stack.size() - n);
    return args;
}

} // namespace

std::optional<jit::Operation> functorchOperation(const std::string& target) {
    // PyTorch 2.6 on: torch._functorch.predispatch's wrappers; their names are the bindings'.
    std::string name;
    for (const std::string prefix : {"torch._functorch.predispatch.", "torch._C._functorch."})
        if (target.rfind(prefix, 0) == 0)
            name = target.substr(prefix.size());
    if (name == "lazy_load_decompositions")
        // Registers Python decompositions of a few loss backwards and addr for vmap; the C++
        // layer runs those through its fallback, one slice at a time.
        return jit::Operation([](jit::Stack& stack) { stack.emplace_back(); });
    if (name == "_vmap_increment_nesting")
        return jit::Operation([](jit::Stack& stack) {
            auto args = popArguments(stack, 2);
            stack.emplace_back(ft::initAndPushDynamicLayer(ft::TransformType::Vmap,
                                                           c10::SymInt(args[0].toInt()),
                                                           randomnessOf(args[1].toStringRef())));
        });
    if (name == "_vmap_decrement_nesting")
        return jit::Operation([](jit::Stack& stack) {
            auto layer = ft::maybeCurrentDynamicLayer();
            if (!layer || layer->key() != ft::TransformType::Vmap)
                throw std::runtime_error("_vmap_decrement_nesting found no vmap level to close");
            stack.emplace_back(ft::popDynamicLayerAndDeleteMetadata().layerId());
        });
    if (name == "_add_batch_dim")
        return jit::Operation([](jit::Stack& stack) {
            auto args = popArguments(stack, 3);
            at::Tensor self = args[0].toTensor();
            std::int64_t dim = args[1].toInt();
            stack.emplace_back(
                ft::addBatchDim(self, dim < 0 ? self.dim() + dim : dim, args[2].toInt()));
        });
    if (name == "_remove_batch_dim")
        return jit::Operation([](jit::Stack& stack) {
            auto args = popArguments(stack, 4);
            stack.emplace_back(removeBatchDim(args[0].toTensor(), args[1].toInt(), args[2].toInt(),
                                              args[3].toInt()));
        });
    return std::nullopt;
}

c10::IValue physicalValue(const c10::IValue& value) {
    if (value.isTensor()) {
        at::Tensor t = value.toTensor();
        while (const ft::BatchedTensorImpl* batched = ft::maybeGetBatchedImpl(t))
            t = batched->value();
        return t;
    }
    if (value.isTuple()) {
        std::vector<c10::IValue> items;
        for (const c10::IValue& item : value.toTupleRef().elements())
            items.push_back(physicalValue(item));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    return value;
}

void closeVmapLevels() {
    while (auto layer = ft::maybeCurrentDynamicLayer()) {
        if (layer->key() != ft::TransformType::Vmap)
            break;
        ft::popDynamicLayerAndDeleteMetadata();
    }
}

} // namespace fxview
