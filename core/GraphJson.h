#pragma once
// The fxview.graph JSON format, version 1 (../shared/docs/design.md, "JSON").

#include <string>

#include "Graph.h"

namespace fxview {

struct JsonModelInfo {
    std::string source;    // path or example:NAME
    std::string className; // TorchScript class of the root module
};

std::string graphToJson(const Graph& graph, const JsonModelInfo& model);

} // namespace fxview
