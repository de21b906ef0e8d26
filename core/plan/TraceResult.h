#pragma once
// What an importer hands the interpreter: the fx-style Graph of a model and the plan that runs
// each of its nodes (PlanPrivate.h, LibTorch's side, opaque here), or why there is none.

#include <memory>
#include <string>

#include "Graph.h"

namespace fxview {

struct ExecutionPlan; // how to run each node; opaque outside core (PlanPrivate.h)

struct TraceResult {
    Graph graph;
    std::shared_ptr<const ExecutionPlan> plan;
    std::string error; // one sentence when the model's code can't be followed
    bool ok() const { return error.empty(); }
};

} // namespace fxview
