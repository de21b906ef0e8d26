// Python evaluates a forward's annotations and torch.fx's symbolic_trace gives each placeholder
// that type; print(graph) shows its repr (torch/fx/node.py's _type_repr). TorchScript keeps the
// model's own text in a scripted archive's .debug_pkl, so the `def` line is read from there.

#include "SourceSignature.h"

#include <torch/csrc/jit/ir/ir.h>

#include <cctype>
#include <string>
#include <vector>

#include "PythonText.h"

namespace fxview {

namespace jit = torch::jit;

namespace {

bool nameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// The typing names Python's repr prefixes with their module.
const char* const kTypingNames[] = {"Optional", "List", "Tuple", "Dict", "Union", "Any"};

std::string typeName(const std::string& name) {
    std::string bare = name.rfind("typing.", 0) == 0 ? name.substr(7) : name;
    if (bare == "Tensor" || name == "torch.Tensor")
        return "torch.Tensor";
    for (const char* typing : kTypingNames)
        if (bare == typing)
            return "typing." + bare;
    return name;
}

// Where the body of the `def` at `def` ends in `text`: the first line after `from` that is not
// blank and is indented no deeper than the `def` line.
std::size_t bodyEnd(const std::string& text, std::size_t def, std::size_t from) {
    std::size_t lineStart = text.rfind('\n', def);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    const std::size_t defIndent = def - lineStart;
    for (std::size_t at = text.find('\n', from); at != std::string::npos;
         at = text.find('\n', at + 1)) {
        std::size_t first = text.find_first_not_of(" \t", at + 1);
        if (first == std::string::npos)
            return text.size();
        if (text[first] != '\n' && text[first] != '#' && first - (at + 1) <= defIndent)
            return at;
    }
    return text.size();
}

#ifdef FXVIEW_PYTHON_PIPE_UNIONS
// Python 3.14's repr of typing.Optional[X] and typing.Union[X, Y]: `X | None`, `X | Y`.
std::string pipedUnions(const std::string& text, int depth = 0) {
    for (const std::string head : {"typing.Optional[", "typing.Union["}) {
        std::size_t at = text.find(head);
        if (at == std::string::npos || depth > 32)
            continue;
        std::size_t open = at + head.size(), end = open;
        int level = 1;
        std::vector<std::string> items;
        std::size_t start = open;
        for (; end < text.size() && level > 0; ++end) {
            char c = text[end];
            level += c == '[' ? 1 : c == ']' ? -1 : 0;
            if ((c == ',' && level == 1) || level == 0) {
                items.push_back(pipedUnions(stripped(text.substr(start, end - start)), depth + 1));
                start = end + 1;
            }
        }
        if (level != 0)
            return text;
        if (head == "typing.Optional[")
            items.push_back("None");
        std::string joined;
        for (const std::string& item : items)
            joined += (joined.empty() ? "" : " | ") + item;
        return text.substr(0, at) + joined + pipedUnions(text.substr(end), depth + 1);
    }
    return text;
}
#endif

} // namespace

std::string fxTypeRepr(const std::string& annotation) {
    std::string text = stripped(annotation), out;
    for (std::size_t i = 0; i < text.size();) {
        char c = text[i];
        if (c == '\'' || c == '"') { // a string annotation: repr() of the string
            std::size_t end = text.find(c, i + 1);
            if (end == std::string::npos)
                return text;
            out += "'" + text.substr(i + 1, end - i - 1) + "'";
            i = end + 1;
        } else if (nameChar(c)) {
            std::size_t end = i;
            while (end < text.size() && nameChar(text[end]))
                ++end;
            out += typeName(text.substr(i, end - i));
            i = end;
        } else if (c == ',') {
            out += ", ";
            ++i;
        } else if (c == '|') {
            out += " | ";
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else {
            out += c;
            ++i;
        }
    }
#ifdef FXVIEW_PYTHON_PIPE_UNIONS
    return pipedUnions(out);
#else
    return out;
#endif
}

std::vector<std::string> parameterAnnotations(const jit::Graph& graph,
                                              const std::string& function) {
    try {
        for (const jit::Node* n : graph.nodes()) {
            std::optional<jit::SourceRange> original =
                n->sourceRange().findSourceRangeThatGenerated();
            if (!original || !original->source())
                continue;
            const auto& filename = original->source()->filename();
            if (filename && *filename == "<string>") // TorchScript's own builtins
                continue;
            std::string all = original->source()->text_str().str();
            // The node may come from another function's text (a default argument of a function
            // it calls): only a node inside the body of `def function(` tells the signature.
            std::size_t def = all.rfind("def " + function + "(", original->start());
            if (def == std::string::npos)
                continue;
            std::size_t open = def + 4 + function.size();
            std::size_t close = bracketPartner(all, open, open);
            if (close == std::string::npos || original->start() >= bodyEnd(all, def, close))
                continue;
            std::vector<std::string> params = topLevelItems(all.substr(open + 1, close - open - 1));
            std::vector<std::string> annotations;
            for (std::size_t i = 0; i < params.size(); ++i) {
                std::string param = stripped(params[i]);
                if (param.empty() || (i == 0 && param == "self"))
                    continue;
                // `name : annotation = default`: the annotation ends at the default's `=`.
                std::size_t colon = param.find(':');
                if (colon == std::string::npos) {
                    annotations.emplace_back();
                    continue;
                }
                std::string rest = param.substr(colon + 1);
                std::size_t equals = std::string::npos;
                int depth = 0;
                for (std::size_t k = 0; k < rest.size() && equals == std::string::npos; ++k) {
                    depth += rest[k] == '[' || rest[k] == '(' ? 1 : 0;
                    depth -= rest[k] == ']' || rest[k] == ')' ? 1 : 0;
                    if (rest[k] == '=' && depth == 0)
                        equals = k;
                }
                annotations.push_back(fxTypeRepr(rest.substr(0, equals)));
            }
            return annotations;
        }
    } catch (const std::exception&) {
    }
    return {};
}

} // namespace fxview
