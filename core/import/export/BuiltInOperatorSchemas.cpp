// The operator-schema table made at build time (OperatorSchemaTable.inc, written by
// fxview-schema-table from the LibTorch fxview is built on), read once into a map on first use.

#include <string_view>
#include <unordered_map>

#include "BuiltInOperatorSchemas.h"
#include "ExportGraphWalk.h"

namespace fxview {

namespace {

#include "OperatorSchemaTable.inc" // constexpr std::string_view kOperatorSchemaTable

const std::unordered_map<std::string, OperatorSchema>& builtInSchemas() {
    static const std::unordered_map<std::string, OperatorSchema> schemas = [] {
        std::unordered_map<std::string, OperatorSchema> read;
        std::string_view table = kOperatorSchemaTable;
        while (!table.empty()) {
            std::size_t end = table.find('\n');
            std::string_view line = table.substr(0, end);
            table.remove_prefix(end == std::string_view::npos ? table.size() : end + 1);
            if (auto schema = parseSchemaTableLine(line))
                read.emplace(schema->qualifiedName(), std::move(*schema));
        }
        return read;
    }();
    return schemas;
}

} // namespace

const OperatorSchema* builtInOperatorSchema(std::string_view qualifiedName) {
    const auto& schemas = builtInSchemas();
    auto it = schemas.find(std::string(qualifiedName));
    return it == schemas.end() ? nullptr : &it->second;
}

std::size_t builtInOperatorSchemaCount() {
    return builtInSchemas().size();
}

Graph walkedWithBuiltInSchemas(const ExportedProgram& program, std::vector<std::string>& unknown) {
    class BuiltIn : public ExportWalkListener {
    public:
        explicit BuiltIn(std::vector<std::string>& unknown) : unknown_(unknown) {}
        const OperatorSchema* schemaOf(const std::string& target) override {
            std::optional<std::string> name = qualifiedOperatorName(target);
            const OperatorSchema* schema = name ? builtInOperatorSchema(*name) : nullptr;
            // A Python function's target (torch.vmap's torch._functorch.predispatch calls) has
            // no schema in any LibTorch: the engine places its arguments as the file does too.
            if (!schema && name)
                unknown_.push_back(target);
            return schema;
        }

    private:
        std::vector<std::string>& unknown_;
    } listener(unknown);
    return ExportGraphWalk(program, listener).run();
}

} // namespace fxview
