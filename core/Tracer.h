#pragma once
// Turns a loaded TorchScript model into the fx-style graph that torch.fx.symbolic_trace would
// record for it (see ../shared/docs/design.md, "How TorchScript maps onto it").

#include <memory>
#include <string>

#include "Graph.h"
#include "Model.h"

namespace fxview {

struct ExecutionPlan; // how to run each node; opaque outside core (PlanPrivate.h)

struct TraceResult {
    Graph graph;
    std::shared_ptr<const ExecutionPlan> plan;
    std::string error; // one sentence when the model's code can't be followed
    bool ok() const { return error.empty(); }
};

TraceResult traceModel(const Model& model);

} // namespace fxview
