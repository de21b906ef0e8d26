#include "ExportedCallArguments.h"

#include <map>
#include <set>
#include <stdexcept>

namespace fxview {

namespace {

// Python keywords that are also schema argument names: deserialize_inputs passes them
// positionally (a keyword argument cannot be spelled `from=`).
bool isPythonKeyword(const std::string& name) {
    static const std::set<std::string> keywords = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    return keywords.count(name) > 0;
}

} // namespace

std::vector<PlacedArgument> placedArguments(const OperatorSchema& schema, const ExportedNode& n) {
    std::map<std::string, std::size_t> given;
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        given[n.inputs[i].first] = i;
    std::vector<PlacedArgument> placed;
    for (const SchemaArgument& formal : schema.arguments) {
        auto it = given.find(formal.name);
        const ExportedValue* value = it != given.end() ? &n.inputs[it->second].second : nullptr;
        // The kind the call was written with, where the file says it (1 positional, 2 keyword).
        const int kind = value && it->second < n.inputKinds.size() ? n.inputKinds[it->second] : 0;
        const bool keyword = isPythonKeyword(formal.name);
        const bool required = !formal.hasDefault && !formal.kwargOnly;
        const bool positional =
            kind == 1 || (kind != 2 && required) || (kind == 2 && keyword && required);
        using P = PlacedArgument::Place;
        P place = P::Omitted;
        if (kind == 2 && !keyword && value)
            place = P::Keyword;
        else if (positional || keyword) {
            if (!value)
                throw std::runtime_error(n.target + " lacks its argument " + formal.name);
            place = P::Positional;
        } else if (value)
            place = P::Keyword;
        placed.push_back({place, value});
    }
    return placed;
}

} // namespace fxview
