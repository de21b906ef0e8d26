#pragma once
// Core-internal: how the model's own code spelled a call (x.mean(1) or torch.mean(x, 1)), read
// from the source range TorchScript kept for its node. Include only from core's .cpp files.

#include <string>
#include <unordered_map>
#include <vector>

#include <torch/csrc/jit/ir/ir.h>

#include "FxTargets.h"

namespace fxview {

class SourceSpelling {
public:
    // Unknown when the archive kept no source for `n`, or the text says neither.
    Spelling at(const torch::jit::Node* n, const std::string& opName);
    // The attribute the model's code read where `n` came from (`x.shape` -> "shape"), or "" if
    // its text is not an attribute read (`x.size()`) or no source was kept.
    std::string attributeRead(const torch::jit::Node* n);

    // The builtin TorchScript inlined where `n` came from (`_assert` for torch._assert, `shape`
    // for the Tensor property), or "" for the model's own code.
    std::string builtinDefinition(const torch::jit::Node* n);

    // The text of the model's own code that `n` came from, or "" if none was kept.
    std::string originalText(const torch::jit::Node* n);
    // Whether `a` and `b` came from the same place in the model's code (one expression).
    bool sameOrigin(const torch::jit::Node* a, const torch::jit::Node* b);

private:
    const std::string* sourceLine(const std::string& path, int number);
    std::unordered_map<std::string, std::vector<std::string>> files_; // path -> its lines
};

} // namespace fxview
