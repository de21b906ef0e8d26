#pragma once
// A few ATen schemas as the build-time table writes them, for the harnesses that walk a program
// (they link no LibTorch): calls of them are placed by their schema, any other is drawn as an op
// the table lacks, as the window's reader draws it.

#include <map>
#include <string>

#include "ExportGraphWalk.h"
#include "OperatorSchema.h"

class FewSchemas : public fxview::ExportWalkListener {
public:
    FewSchemas() {
        for (const char* line :
             {"aten::linear input weight bias= ->1", "aten::relu self ->1",
              "aten::add.Tensor self other *alpha= ->1",
              "aten::conv2d input weight bias= stride= padding= dilation= groups= ->1",
              "aten::split.Tensor self split_size dim= ->1", "aten::index.Tensor self indices ->1",
              "aten::view self size ->1",
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
