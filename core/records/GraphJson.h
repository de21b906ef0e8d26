#pragma once
// The fxview.graph JSON format, version 1 (../shared/docs/design.md, "JSON").

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "Graph.h"
#include "InputSpec.h"
#include "OutputCheck.h"
#include "RunRecord.h"
#include "ScopeTree.h"

namespace fxview {

struct JsonModelInfo {
    std::string source;    // path or example:NAME
    std::string className; // TorchScript class of the root module
};

// After a run: the inputs it used and each node's record, which become `input` and `meta`.
struct JsonRunInfo {
    std::vector<InputSpec> inputs;
    std::vector<ValueSummary> inputValues;
    std::uint64_t seed = 0;
    std::function<const NodeRecord*(const std::string&)> recordOf;
    // The run's verdict against the model's own forward: the document's `output_check`,
    // {"verdict": "equal" | "differs" | "not checked", "reason": ...}.
    OutputCheck outputCheck;
    // The document's `peak_live`: {"node", "bytes", "values": [{"node", "bytes"}]}, what is alive
    // where the live set peaks, the largest first (docs/cost.md).
    PeakLive peak;
};

std::string graphToJson(const Graph& graph, const JsonModelInfo& model,
                        const JsonRunInfo* run = nullptr);

// The document with the module hierarchy after its nodes, as the picture drew it:
// "scopes": [{"path", "class", "parent", "depth", "nodes", "first", "last", "open", "box"}],
// parents first; `open` says it was drawn open, `box` that it was drawn as one box. The nodes
// stay every node of the graph: JSON is the data, the picture formats draw the boxes.
std::string withScopeTree(const std::string& json, const ScopeTree& tree,
                          const std::set<std::string>& open);

} // namespace fxview
