#pragma once
// Core-internal: a Tensor subscript (`x[:, 0]`, `x[..., None]`) as torch.fx records it. TorchScript
// compiles one subscript into a chain of aten::slice / select / unsqueeze nodes, one per index
// element; torch.fx records one `operator.getitem(x, (slice(None, None, None), 0))`. Include only
// from core's .cpp files.

#include <functional>
#include <optional>
#include <vector>

#include <torch/csrc/jit/ir/ir.h>

#include "Graph.h"
#include "SourceSpelling.h"

namespace fxview {

// The constant a value holds while tracing, if it is one.
using ConstantOf = std::function<std::optional<c10::IValue>(const torch::jit::Value*)>;

class TensorSubscript {
public:
    explicit TensorSubscript(SourceSpelling& spelling) : spelling_(spelling) {}

    // Whether `n` is a link of a subscript that goes on: its value feeds only the next link.
    bool continues(const torch::jit::Node* n);
    // When `n` ends a subscript whose every element is a constant: the links, first to last.
    std::vector<const torch::jit::Node*> chainEndingAt(const torch::jit::Node* n);
    // The index torch.fx passes to getitem for `chain`: one element, or a tuple of them; nullopt
    // when a slice bound is computed at run time or the dims do not follow one another.
    static std::optional<Argument> index(const std::vector<const torch::jit::Node*>& chain,
                                         const ConstantOf& constantOf);
    // The index of a list slice (`x.shape[-2:]`, aten::slice.t), as the slice object torch.fx
    // prints: `slice(-2, None, None)`; nullopt for a bound computed at run time.
    static std::optional<Argument> listSlice(const torch::jit::Node* n,
                                             const ConstantOf& constantOf);

    // `x[idx]`, `x[a, b]` with tensors (aten::index(x, [idx])): the index torch.fx passes to
    // getitem, given the literal list of indices the node reads; nullopt for any other node, or
    // a subscript that mixes tensors with slices or None.
    std::optional<Argument> tensorIndex(const torch::jit::Node* n, const Argument& indices);

private:
    bool writtenAsSubscript(const torch::jit::Node* n);
    bool isLink(const torch::jit::Node* n);
    bool sameSubscript(const torch::jit::Node* a, const torch::jit::Node* b);
    SourceSpelling& spelling_;
};

} // namespace fxview
