#pragma once
// Shared by the Qt Tests that run models: an interpreter on a model with inputs made from specs,
// and the nodes of a graph a person sees.

#include <memory>

#include "Importer.h"
#include "Interpreter.h"
#include "TestSupport.h"

namespace fxview {

// The top-level nodes a person sees (hidden guards and the work feeding them left out), in order:
// what torch.fx's node list is compared with.
inline std::vector<const Node*> shownNodes(const Graph& graph) {
    std::vector<const Node*> shown;
    for (const Node& node : graph.nodes)
        if (!node.hidden)
            shown.push_back(&node);
    return shown;
}

inline std::unique_ptr<Interpreter> session(const std::string& source,
                                            const std::vector<std::string>& specs,
                                            std::uint64_t seed = 0, RunOptions options = {}) {
    LoadResult loaded = loadModel(source);
    if (!loaded.ok())
        qFatal("%s", loaded.error.c_str());
    TraceResult traced = importGraph(*loaded.model);
    if (!traced.ok())
        qFatal("%s", traced.error.c_str());
    auto run = std::make_unique<Interpreter>(loaded.model, std::move(traced), options);
    std::vector<InputSpec> inputs;
    for (const std::string& text : specs) {
        InputSpec spec;
        std::string error;
        if (!parseInputSpec(text, spec, error))
            qFatal("%s", error.c_str());
        inputs.push_back(spec);
    }
    std::string error = run->setInputs(inputs, seed);
    if (!error.empty())
        qFatal("%s", error.c_str());
    return run;
}

} // namespace fxview
