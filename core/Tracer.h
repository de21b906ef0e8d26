#pragma once
// Turns a loaded TorchScript model into the fx-style graph that torch.fx.symbolic_trace would
// record for it (see ../shared/docs/design.md, "How TorchScript maps onto it").

#include <string>

#include "Graph.h"
#include "Model.h"

namespace fxview {

struct TraceResult {
    Graph graph;
    std::string error; // one sentence when the model's code can't be followed
    bool ok() const { return error.empty(); }
};

TraceResult traceModel(const Model& model);

} // namespace fxview
