#pragma once
// The one interface fxview's importers implement: an opened model (a TorchScript module, a
// torch.export program) in, the fx-style Graph and the plan that runs it out. Everything after
// this — the interpreter, the scene, export, the app and fxtrace — is the same for every format.

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

class GraphImporter {
public:
    virtual ~GraphImporter() = default;
    // Whether this importer reads `model` (what loadModel opened it as).
    virtual bool reads(const Model& model) const = 0;
    // The graph torch.fx would show for it; an error sentence instead of throwing.
    virtual TraceResult importGraph(const Model& model) const = 0;
};

// The importer for TorchScript archives and built-in examples (import/torchscript/Tracer.cpp)
// and the one for torch.export programs (import/export/ExportImporter.cpp).
const GraphImporter& torchScriptImporter();
const GraphImporter& exportedProgramImporter();

// The model's graph, by whichever importer reads it.
TraceResult importGraph(const Model& model);

} // namespace fxview
