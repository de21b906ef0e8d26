#pragma once
// Core-internal: how the model's own code spelled a call (x.mean(1) or torch.mean(x, 1)), read
// from the source range TorchScript kept for its node. Include only from core's .cpp files.

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/csrc/jit/ir/ir.h>

#include "FxTargets.h"
#include "SourceLocation.h"

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

    // The arguments of the call `n` came from, as the model's code wrote them: the keyword of
    // each (`dim` for `dim=1`, "" when positional) and its text. nullopt when no source was
    // kept, the text is not a call of `opName` (a Python operator, an inlined builtin), or it
    // unpacks (`*xs`).
    struct WrittenArgument {
        std::string keyword;
        std::string text;
    };
    std::optional<std::vector<WrittenArgument>> writtenArguments(const torch::jit::Node* n,
                                                                 const std::string& opName);

    // The text of the model's own code that `n` came from, or "" if none was kept.
    std::string originalText(const torch::jit::Node* n);
    // Whether `a` and `b` came from the same place in the model's code (one expression).
    bool sameOrigin(const torch::jit::Node* a, const torch::jit::Node* b);

    // Where the model's code made `n`, as Python prints a traceback, outermost frame first (see
    // SourceLocation.h): a traced node's recorded Python stack, each line read from its file
    // when that is on this machine; a scripted node's line after the lines of the calls it was
    // inlined from (`callers`, outermost first). "" when the archive kept no source for it.
    std::string traceback(const std::vector<const torch::jit::Node*>& callers,
                          const torch::jit::Node* n);

private:
    const std::string* sourceLine(const std::string& path, int number);
    std::vector<SourceLocation> frames(const std::vector<const torch::jit::Node*>& callers,
                                       const torch::jit::Node* n, int depth);
    std::vector<SourceLocation> moduleCallFrames(const torch::jit::Node* call, int depth);
    std::optional<SourceLocation> scriptedFrame(const torch::jit::Node* n);
    std::vector<SourceLocation> recordedStack(const std::string& text);
    std::unordered_map<std::string, std::vector<std::string>> files_; // path -> its lines
};

} // namespace fxview
