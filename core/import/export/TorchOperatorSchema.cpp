#include "TorchOperatorSchema.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <map>
#include <set>

namespace fxview {

OperatorSchema operatorSchemaOf(const c10::FunctionSchema& schema) {
    OperatorSchema s;
    s.name = schema.name();
    s.overload = schema.overload_name();
    for (const c10::Argument& a : schema.arguments())
        s.arguments.push_back({a.name(), a.default_value().has_value(), a.kwarg_only()});
    s.returns = static_cast<int>(schema.returns().size());
    return s;
}

std::string registeredOperatorSchemaTable() {
    std::map<std::string, std::set<std::string>> linesOf;
    for (const auto& op : torch::jit::getAllOperators()) {
        OperatorSchema schema = operatorSchemaOf(op->schema());
        linesOf[schema.qualifiedName()].insert(schemaTableLine(schema));
    }
    std::string table;
    for (const auto& [name, lines] : linesOf)
        if (lines.size() == 1)
            table += *lines.begin() + "\n";
    return table;
}

} // namespace fxview
