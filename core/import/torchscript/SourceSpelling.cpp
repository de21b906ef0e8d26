// A scripted archive's .debug_pkl holds the model's own text at each call; a traced one, the
// Python stack it was recorded from (file and line).

#include "SourceSpelling.h"

#include <torch/csrc/jit/api/function_impl.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "PythonText.h"

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

std::optional<std::vector<SourceSpelling::WrittenArgument>>
SourceSpelling::writtenArguments(const jit::Node* n, const std::string& opName) {
    try {
        std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
        if (!original || !original->source() || !builtinDefinition(n).empty())
            return std::nullopt;
        // The range is the call (`x.mean((2, 3))`) or only its callee (`torch.cat`): then the
        // arguments follow it in the source.
        std::string all = original->source()->text_str().str();
        std::size_t from = std::min(original->start(), all.size());
        std::size_t close = std::min(original->end(), all.size());
        while (close < all.size() && close > from && identifierChar(all[close - 1]) &&
               identifierChar(all[close])) // a range can stop a character short (wholeText)
            ++close;
        while (close > from && std::isspace(static_cast<unsigned char>(all[close - 1])))
            --close;
        std::size_t open = std::string::npos;
        if (close > from && all[close - 1] == ')') {
            open = bracketPartner(all, from, close - 1);
            --close;
        } else {
            std::size_t next = all.find_first_not_of(" \t", close);
            if (next == std::string::npos || all[next] != '(')
                return std::nullopt;
            open = next;
            close = bracketPartner(all, open, open);
        }
        if (open == std::string::npos || close == std::string::npos || open <= from)
            return std::nullopt;
        std::string text = all.substr(from, close + 1 - from);
        open -= from;
        // The callee's last name is the op's: `torch.cat`, `x.mean`, `F.relu` (relu_ too).
        std::size_t end = open;
        while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1])))
            --end;
        std::size_t start = end;
        while (start > 0 && identifierChar(text[start - 1]))
            --start;
        std::string callee = text.substr(start, end - start);
        if (callee.empty() || (callee != opName && callee + "_" != opName))
            return std::nullopt;
        std::vector<WrittenArgument> written;
        for (const std::string& item :
             topLevelItems(text.substr(open + 1, text.size() - open - 2))) {
            std::string value = stripped(item);
            if (value.empty() || value[0] == '*')
                return std::nullopt;
            WrittenArgument a;
            std::size_t name = 0;
            while (name < value.size() && identifierChar(value[name]))
                ++name;
            std::size_t equals = value.find_first_not_of(" \t\n", name);
            if (name > 0 && equals != std::string::npos && value[equals] == '=' &&
                (equals + 1 >= value.size() || value[equals + 1] != '=')) {
                a.keyword = value.substr(0, name);
                value = stripped(value.substr(equals + 1));
            }
            a.text = value;
            written.push_back(std::move(a));
        }
        return written;
    } catch (const std::exception&) {
        return std::nullopt;
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

std::string SourceSpelling::traceback(const std::vector<const jit::Node*>& callers,
                                      const jit::Node* n) {
    std::string text;
    try {
        for (const SourceLocation& frame : frames(callers, n, 0))
            text += tracebackFrame(frame);
    } catch (const std::exception&) {
        return {};
    }
    return text;
}

std::vector<SourceLocation> SourceSpelling::frames(const std::vector<const jit::Node*>& callers,
                                                   const jit::Node* n, int depth) {
    std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
    std::vector<SourceLocation> found;
    if (original && original->source())
        found = recordedStack(original->source()->text_str().str());
    if (found.empty() && original && original->source()) {
        for (const jit::Node* call : callers)
            if (auto frame = scriptedFrame(call))
                found.push_back(std::move(*frame));
        if (auto frame = scriptedFrame(n))
            found.push_back(std::move(*frame));
    }
    if (found.empty() && n->kind() == c10::prim::CallMethod)
        return moduleCallFrames(n, depth);
    return found;
}

// A traced module call keeps no stack of its own, but the first thing its forward did does:
// that stack, without the frames inside the module (PyTorch's own, for a torch.nn module).
std::vector<SourceLocation> SourceSpelling::moduleCallFrames(const jit::Node* call, int depth) {
    auto cls = call->inputs().empty() ? nullptr : call->inputs()[0]->type()->cast<c10::ClassType>();
    jit::Function* method = cls ? cls->findMethod(call->s(c10::attr::name)) : nullptr;
    if (!method || !method->isGraphFunction() || depth > 8)
        return {};
    for (const jit::Node* inner : jit::toGraphFunction(*method).graph()->nodes()) {
        std::vector<SourceLocation> found = frames({}, inner, depth + 1);
        if (found.empty())
            continue;
        std::vector<SourceLocation> outside = found;
        while (!outside.empty() && isTorchInternalFile(outside.back().file))
            outside.pop_back();
        return outside.empty() ? found : outside;
    }
    return {};
}

// A scripted node's place in the Python source TorchScript compiled (.debug_pkl keeps the
// function's text, file and first line); none for TorchScript's own builtins ("<string>").
std::optional<SourceLocation> SourceSpelling::scriptedFrame(const jit::Node* n) {
    std::optional<jit::SourceRange> original = n->sourceRange().findSourceRangeThatGenerated();
    if (!original || !original->source())
        return std::nullopt;
    auto place = original->file_line_col();
    if (!place || std::get<0>(*place).empty() || std::get<0>(*place) == "<string>")
        return std::nullopt;
    const auto& source = original->source();
    SourceLocation frame;
    frame.file = std::get<0>(*place);
    frame.line = static_cast<int>(std::get<1>(*place));
    std::size_t lineno = source->lineno_for_offset(original->start());
    frame.text = stripped(source->get_line(lineno).str());
    // The function is the nearest `def` at or above the line (the text is one function's).
    for (std::size_t l = lineno + 1; l-- > 0 && frame.function.empty();) {
        std::string line = stripped(source->get_line(l).str());
        if (line.rfind("def ", 0) != 0)
            continue;
        std::size_t end = 4;
        while (end < line.size() && identifierChar(line[end]))
            ++end;
        frame.function = line.substr(4, end - 4);
    }
    return frame;
}

// A traced node's stack as the tracer recorded it, innermost first, a frame a line:
// "/m.py(12): forward". Outermost first when read; nothing if the text is not such a stack.
std::vector<SourceLocation> SourceSpelling::recordedStack(const std::string& text) {
    std::vector<SourceLocation> frames;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        std::string line = text.substr(start, end == std::string::npos ? end : end - start);
        start = end == std::string::npos ? text.size() : end + 1;
        if (line.empty())
            continue;
        std::size_t open = line.rfind('('), close = line.rfind("): ");
        if (open == std::string::npos || close == std::string::npos || close <= open + 1 ||
            line.find_first_not_of("0123456789", open + 1) != close || close - open > 10)
            return {};
        SourceLocation frame;
        frame.file = line.substr(0, open);
        frame.line = std::stoi(line.substr(open + 1, close - open - 1));
        frame.function = line.substr(close + 3);
        if (const std::string* source = sourceLine(frame.file, frame.line))
            frame.text = stripped(*source);
        frames.insert(frames.begin(), std::move(frame));
    }
    // What called the model's forward (torch.jit.trace, the script that called it) is not the
    // model's code: the stack starts at the first forward, as torch.fx's records do.
    auto forward = std::find_if(frames.begin(), frames.end(),
                                [](const SourceLocation& f) { return f.function == "forward"; });
    if (forward != frames.end())
        frames.erase(frames.begin(), forward);
    return frames;
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
