// A scripted archive's .debug_pkl holds the model's own text at each call; a traced one, the
// Python stack it was recorded from (file and line).

#include "SourceSpelling.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

namespace fxview {

namespace jit = torch::jit;

namespace {
bool identifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A range's text, its last name completed: TorchScript's range for a call chained after a
// property (`y.to(x.dtype).sum`) can stop a character short.
std::string wholeText(const jit::SourceRange& range) {
    std::string all = range.source()->text_str().str();
    std::size_t end = std::min(range.end(), all.size());
    while (end < all.size() && end > range.start() && identifierChar(all[end - 1]) &&
           identifierChar(all[end]))
        ++end;
    return all.substr(range.start(), end - range.start());
}

} // namespace

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
            return spellingOf(wholeText(*original), opName);
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

// TorchScript compiles Tensor properties (`x.shape`, `x.ndim`, `x.T`) by inlining builtin
// definitions (`def shape(a : Tensor) -> List[int]: return a.size()`, in a source named
// "<string>"): a node made there read the property of the `def` around it. Otherwise the
// node's own text says it: `x.shape` or `x.shape[0]` (the subscript comes along in the range).
std::string SourceSpelling::builtinDefinition(const jit::Node* n) {
    try {
        std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
        if (!original || !original->source())
            return {};
        const auto& filename = original->source()->filename();
        if (!filename || *filename != "<string>")
            return {};
        std::string all = original->source()->text_str().str();
        std::size_t def = all.rfind("def ", original->start());
        if (def == std::string::npos)
            return {};
        std::size_t end = def + 4;
        while (end < all.size() && identifierChar(all[end]))
            ++end;
        return all.substr(def + 4, end - def - 4);
    } catch (const std::exception&) {
        return {};
    }
}

std::string SourceSpelling::attributeRead(const jit::Node* n) {
    try {
        std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
        if (!original || !original->source())
            return {};
        if (std::string builtin = builtinDefinition(n); !builtin.empty())
            return builtin;
        std::string text = original->text().str();
        std::size_t end = text.find_last_not_of(" \t\n");
        while (end != std::string::npos && text[end] == ']') {
            std::size_t open = text.rfind('[', end);
            end = open == std::string::npos || open == 0 ? std::string::npos
                                                         : text.find_last_not_of(" \t\n", open - 1);
        }
        if (end == std::string::npos)
            return {};
        std::size_t start = end + 1;
        while (start > 0 && identifierChar(text[start - 1]))
            --start;
        bool named = start <= end && !std::isdigit(static_cast<unsigned char>(text[start]));
        return named && start > 0 && text[start - 1] == '.' ? text.substr(start, end + 1 - start)
                                                            : std::string();
    } catch (const std::exception&) {
        return {};
    }
}

std::string SourceSpelling::originalText(const jit::Node* n) {
    try {
        std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
        return original && original->source() ? original->text().str() : std::string();
    } catch (const std::exception&) {
        return {};
    }
}

bool SourceSpelling::sameOrigin(const jit::Node* a, const jit::Node* b) {
    try {
        std::optional<jit::SourceRange> ra = a->sourceRange().findSourceRangeThatGenerated(),
                                        rb = b->sourceRange().findSourceRangeThatGenerated();
        return ra && rb && ra->source() && ra->source() == rb->source() &&
               ra->start() == rb->start() && ra->end() == rb->end();
    } catch (const std::exception&) {
        return false;
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
