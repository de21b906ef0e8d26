#include "OperatorSchema.h"

#include <charconv>

namespace fxview {

std::optional<std::string> qualifiedOperatorName(std::string_view target) {
    constexpr std::string_view prefix = "torch.ops.";
    if (!target.starts_with(prefix))
        return std::nullopt;
    std::string_view rest = target.substr(prefix.size());
    std::size_t dot1 = rest.find('.'), dot2 = rest.rfind('.');
    if (dot1 == std::string_view::npos || dot1 == dot2)
        return std::nullopt;
    std::string_view overload = rest.substr(dot2 + 1);
    return std::string(rest.substr(0, dot1)) +
           "::" + std::string(rest.substr(dot1 + 1, dot2 - dot1 - 1)) +
           (overload == "default" ? "" : "." + std::string(overload));
}

std::string schemaTableLine(const OperatorSchema& schema) {
    std::string line = schema.qualifiedName();
    for (const SchemaArgument& a : schema.arguments)
        line += " " + std::string(a.kwargOnly ? "*" : "") + a.name + (a.hasDefault ? "=" : "");
    return line + " ->" + std::to_string(schema.returns);
}

std::optional<OperatorSchema> parseSchemaTableLine(std::string_view line) {
    std::vector<std::string_view> words;
    for (std::size_t at = 0; at < line.size();) {
        std::size_t end = line.find(' ', at);
        end = end == std::string_view::npos ? line.size() : end;
        if (end > at)
            words.push_back(line.substr(at, end - at));
        at = end + 1;
    }
    if (words.size() < 2 || words.back().substr(0, 2) != "->")
        return std::nullopt;
    OperatorSchema schema;
    std::string_view qualified = words.front();
    std::size_t colons = qualified.find("::");
    if (colons == std::string_view::npos || colons == 0)
        return std::nullopt;
    std::size_t dot = qualified.find('.', colons + 2);
    schema.name = std::string(qualified.substr(0, dot));
    if (dot != std::string_view::npos)
        schema.overload = std::string(qualified.substr(dot + 1));
    std::string_view count = words.back().substr(2);
    auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), schema.returns);
    if (error != std::errc() || end != count.data() + count.size() || schema.returns < 0)
        return std::nullopt;
    for (std::size_t i = 1; i + 1 < words.size(); ++i) {
        std::string_view word = words[i];
        SchemaArgument a;
        if (word.starts_with('*')) {
            a.kwargOnly = true;
            word.remove_prefix(1);
        }
        if (word.ends_with('=')) {
            a.hasDefault = true;
            word.remove_suffix(1);
        }
        if (word.empty())
            return std::nullopt;
        a.name = std::string(word);
        schema.arguments.push_back(std::move(a));
    }
    return schema;
}

} // namespace fxview
