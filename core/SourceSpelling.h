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

private:
    const std::string* sourceLine(const std::string& path, int number);
    std::unordered_map<std::string, std::vector<std::string>> files_; // path -> its lines
};

} // namespace fxview
