// A scripted archive's .debug_pkl holds the model's own text at each call; a traced one, the
// Python stack it was recorded from (file and line).

#include "SourceSpelling.h"

#include <fstream>
#include <optional>

namespace fxview {

namespace jit = torch::jit;

// How the model's own code spelled the call at `n` (its source range): a method or a
// function. Code without kept source says nothing.
Spelling SourceSpelling::at(const jit::Node* n, const std::string& opName) {
    try {
        // The archive's code/ always spells torch.mean(x): only the range of the model's
        // own source (kept in .debug_pkl) says how it was written.
        std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
        if (!original || !original->source())
            return Spelling::Unknown;
        // A traced node keeps the Python stack it was recorded from ("path(161): forward"):
        // its line, if that file is on this machine. A scripted one, the call's own text.
        std::string stack = original->source()->text_str().str();
        std::string first = stack.substr(0, stack.find('\n'));
        std::size_t open = first.rfind('('), close = first.rfind("): ");
        if (open == std::string::npos || close == std::string::npos || close < open ||
            first.find_first_not_of("0123456789", open + 1) != close)
            return spellingOf(original->text().str(), opName);
        // Recorded inside torch.nn.functional's own code: the model called F.<function>
        // (F.layer_norm runs torch.layer_norm there, F.relu(x, inplace=True) torch.relu_).
        const std::string file = first.substr(0, open), function = first.substr(close + 3);
        const std::string functional = "/torch/nn/functional.py";
        if (file.size() > functional.size() &&
            file.compare(file.size() - functional.size(), functional.size(), functional) == 0)
            return function == opName || function + "_" == opName ? Spelling::Functional
                                                                  : Spelling::Unknown;
        const std::string* line =
            sourceLine(file, std::stoi(first.substr(open + 1, close - open - 1)));
        return line ? spellingInLine(*line, opName) : Spelling::Unknown;
    } catch (const std::exception&) {
        return Spelling::Unknown;
    }
}

// Line `number` (1-based) of a Python file a traced archive names, read once per file.
const std::string* SourceSpelling::sourceLine(const std::string& path, int number) {
    auto it = files_.find(path);
    if (it == files_.end()) {
        std::vector<std::string> lines;
        std::ifstream in(path);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
        it = files_.emplace(path, std::move(lines)).first;
    }
    if (number < 1 || static_cast<std::size_t>(number) > it->second.size())
        return nullptr;
    return &it->second[static_cast<std::size_t>(number) - 1];
}

} // namespace fxview
