// A .pt2's serialized_exported_program.json through the importer's reader of it: every schema
// union, number, subgraph and tensor meta; then the window's walk of the program it read (the
// window does it in its own process while the engine starts). A refusal is an exception with a
// sentence.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "ExportGraphWalk.h"
#include "ExportedProgram.h"
#include "OperatorSchema.h"

namespace {

// A few ATen schemas as the build-time table writes them (the harness links no LibTorch): calls
// of them are placed by their schema, any other is drawn as an op the table lacks.
class FewSchemas : public fxview::ExportWalkListener {
public:
    FewSchemas() {
        for (const char* line :
             {"aten::linear input weight bias= ->1", "aten::relu self ->1",
              "aten::add.Tensor self other *alpha= ->1",
              "aten::conv2d input weight bias= stride= padding= dilation= groups= ->1",
              "aten::split.Tensor self split_size dim= ->1", "aten::index.Tensor self indices ->1",
              "aten::max_pool2d_with_indices self kernel_size stride= padding= dilation= "
              "ceil_mode= ->2"})
            if (auto schema = fxview::parseSchemaTableLine(line))
                schemas_[schema->qualifiedName()] = *schema;
    }
    const fxview::OperatorSchema* schemaOf(const std::string& target) override {
        auto name = fxview::qualifiedOperatorName(target);
        auto it = name ? schemas_.find(*name) : schemas_.end();
        return it == schemas_.end() ? nullptr : &it->second;
    }

private:
    std::map<std::string, fxview::OperatorSchema> schemas_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const fxview::ExportedProgram program =
            fxview::parseExportedProgram(std::string(reinterpret_cast<const char*>(data), size));
        FewSchemas listener;
        fxview::ExportGraphWalk(program, listener).run();
    } catch (const std::runtime_error&) {
    }
    return 0;
}
