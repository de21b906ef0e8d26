#pragma once
// An operator's schema as far as drawing a call needs it, without LibTorch: the argument names in
// order, which have defaults and which are keyword-only, and how many values it returns. The
// engine makes one from LibTorch's c10::FunctionSchema (TorchOperatorSchema.h); the window looks
// one up in the table made at build time from the same LibTorch (BuiltInOperatorSchemas.h), so
// that both place a .pt2 call's arguments with the same code (ExportedCallArguments.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxview {

struct SchemaArgument {
    std::string name;
    bool hasDefault = false;
    bool kwargOnly = false;
    bool operator==(const SchemaArgument&) const = default;
};

struct OperatorSchema {
    std::string name;     // "aten::add"
    std::string overload; // "Tensor"; "" for the default overload
    std::vector<SchemaArgument> arguments;
    int returns = 0;
    bool operator==(const OperatorSchema&) const = default;

    // "aten::add.Tensor", "aten::relu": how the table and a .pt2's target name it.
    std::string qualifiedName() const { return overload.empty() ? name : name + "." + overload; }
};

// A .pt2 call's target as the table names it: "torch.ops.aten.linear.default" -> "aten::linear",
// "torch.ops.aten.add.Tensor" -> "aten::add.Tensor"; nullopt for a target that names no op
// overload ("operator.getitem", "torch.ops.higher_order.cond").
std::optional<std::string> qualifiedOperatorName(std::string_view target);

// The schema's line in the table: "aten::add.Tensor self other *alpha= ->1" (a keyword-only
// argument starts with `*`, one with a default ends with `=`).
std::string schemaTableLine(const OperatorSchema& schema);

// The schema a table line describes; nullopt for a line that is not one.
std::optional<OperatorSchema> parseSchemaTableLine(std::string_view line);

} // namespace fxview
