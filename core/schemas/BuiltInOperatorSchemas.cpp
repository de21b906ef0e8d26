// The operator-schema table made at build time (OperatorSchemaTable.inc, written by
// fxview-schema-table from the LibTorch fxview is built on), read once into a map on first use.

#include <string_view>
#include <unordered_map>

#include "BuiltInOperatorSchemas.h"
#include "ExportGraphWalk.h"

namespace fxview {

namespace {

#include "OperatorSchemaTable.inc" // constexpr std::string_view kOperatorSchemaTable

using SchemaMap = std::unordered_map<std::string, OperatorSchema>;

// A table's lines by qualified name; a line that names no schema is passed over.
SchemaMap readSchemaTable(std::string_view table) {
    SchemaMap read;
    while (!table.empty()) {
        std::size_t end = table.find('\n');
        std::string_view line = table.substr(0, end);
        table.remove_prefix(end == std::string_view::npos ? table.size() : end + 1);
        if (auto schema = parseSchemaTableLine(line))
            read.emplace(schema->qualifiedName(), std::move(*schema));
    }
    return read;
}

const SchemaMap& builtInSchemas() {
    static const SchemaMap schemas = readSchemaTable(kOperatorSchemaTable);
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
    return walkedWithSchemas(program, {}, unknown);
}

Graph walkedWithSchemas(const ExportedProgram& program, std::string_view engineSchemas,
                        std::vector<std::string>& unknown) {
    class Schemas : public ExportWalkListener {
    public:
        Schemas(std::string_view engineSchemas, std::vector<std::string>& unknown)
            : engine_(readSchemaTable(engineSchemas)), unknown_(unknown) {}
        const OperatorSchema* schemaOf(const std::string& target) override {
            std::optional<std::string> name = qualifiedOperatorName(target);
            if (!name)
                return nullptr;
            auto own = engine_.find(*name);
            const OperatorSchema* schema =
                own != engine_.end() ? &own->second : builtInOperatorSchema(*name);
            // A Python function's target (torch.vmap's torch._functorch.predispatch calls) has
            // no schema in any LibTorch: the engine places its arguments as the file does too.
            if (!schema)
                unknown_.push_back(target);
            return schema;
        }

    private:
        SchemaMap engine_;
        std::vector<std::string>& unknown_;
    } listener(engineSchemas, unknown);
    return ExportGraphWalk(program, listener).run();
}

} // namespace fxview
