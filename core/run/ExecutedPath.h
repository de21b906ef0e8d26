#pragma once
// The executed path of a run as an fx-style graph: what tracing with this input would record.
// The interpreter logs what happened (cheap, during the run); the graph is built from the log
// only when someone asks for it.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "Graph.h"
#include "RunRecord.h"

namespace fxview {

struct PathEvent {
    enum class Kind {
        Ran,         // a node ran
        BranchDone,  // an if finished `block`: its value is that block's results
        LoopEnter,   // a loop starts: counter 0, carried values from its args
        LoopNext,    // a loop starts iteration `iteration`: carried values from its results
        LoopSkipped, // a loop ran no iteration: its value is its initial carried values
        LoopDone,    // a loop finished: its value is its body's last carried results
        HopRan,      // a higher-order op (while_loop, scan...) ran: one node, its blocks kept
    };
    Kind kind = Kind::Ran;
    const Node* node = nullptr;
    int block = 0;
    std::int64_t iteration = 0;
    ValueSummary value;    // Ran: what this run of the node produced, when hasValue
    bool hasValue = false; // a top-level node's is read from its record instead
};

// Replays `log` over `graph`: each node that ran becomes a node of its own (a loop body's nodes
// once per iteration, renamed tanh, tanh_1...), control flow leaves no node, and arguments
// point at the values that really flowed. Hidden guards are left out. With `values`, each
// path node's value (an unrolled loop's nodes have one per iteration) is put there by name.
Graph buildExecutedPath(const Graph& graph, const std::vector<PathEvent>& log,
                        std::unordered_map<std::string, ValueSummary>* values = nullptr);

} // namespace fxview
