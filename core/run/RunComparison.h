#pragma once
// Runs two interpreters side by side and compares what their matched nodes produce
// (Comparison.h): run A is the reference, run B the same model on another input or in another
// precision (RunOptions::castTo), or another file. Nodes match by name, then the rest by module
// scope and order (a quantized model against its float original: quantize and dequantize nodes
// only B has stay unmatched and are listed).

#include <cstdint>
#include <functional>
#include <string>

#include "Comparison.h"
#include "Graph.h"
#include "Interpreter.h"

namespace fxview {

struct RunComparisonOptions {
    // Local: each of B's nodes is fed A's values (cast to B's dtype, quantized with B's scale
    // and zero point where B's value is quantized), so its error is its own, not what it was
    // given. Otherwise accumulated: each run on its own.
    bool local = false;
    // The most bytes of values held while one run waits for the other to make the same node
    // (runs of one model go in step and hold one node's value at a time).
    std::int64_t heldBytes = std::int64_t(1) << 30;
    // Called before each of A's nodes; false stops the comparison there (a Pause, a report of
    // progress).
    std::function<bool(const std::string& node)> beforeNode;
};

// Which node of B each node of A is paired with ("how": "name", for the same name in the same
// scope and op, or "scope order"), and the nodes left over on each side. Hidden guard nodes take
// no part.
struct NodeMatching {
    struct Pair {
        std::string a, b, how;
    };
    std::vector<Pair> pairs; // those by name in A's graph order, then those by scope order
    std::vector<std::string> onlyA, onlyB;
};
NodeMatching matchNodes(const Graph& a, const Graph& b);

// Resets both runs and runs them to the end side by side, comparing each matched node as soon
// as both have made it. Their inputs must be set. report.modelA/B and runA/B are left to the
// caller; a run that fails ends the comparison with report.failure saying which and why.
ComparisonReport compareRuns(Interpreter& a, Interpreter& b, const RunComparisonOptions& options);

} // namespace fxview
