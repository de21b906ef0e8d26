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

// Run A (a model file, its inputs) and run B as `b` says, each an interpreter of its own: a
// comparison never touches a run being debugged. `b.device` must be "" (LibTorch runs on the CPU
// here).
struct ModelComparison {
    std::string modelA;
    std::vector<InputSpec> inputs; // empty: guessed, as `fxtrace run` guesses
    std::uint64_t seed = 0;
    std::vector<std::string> opLibraries;
    CompareRequest b;
    // The engine's open model of `modelA` and its import, if it has one: a run shares its weights
    // where the run cannot change them (an exported program, whose weights are read and cast
    // as its steps read them; a TorchScript module not training, in its own precision), so
    // that the weights are held once per dtype, not loaded again for A and for B.
    std::shared_ptr<const Model> open;
    TraceResult openImport;
};
// Whether a TorchScript graph may write into a tensor the module holds: an in-place op
// (aten::add_, aten::copy_; torch.fx's `inplace=True` runs as relu_) on a value that no input
// flows into, which is a weight, a buffer or a view of one. Writes into activations are the
// run's own (resnet's relu_). Such a model's runs cannot share its weights.
bool mayWriteWeights(const Graph& graph);

struct ComparisonOutcome {
    ComparisonReport report; // modelA/B and runA/B filled
    std::string inputNote;   // how A's input was guessed, when it was
    std::string error;       // a model that cannot be loaded or an input that cannot be made
};
ComparisonOutcome compareModels(const ModelComparison& what, const RunComparisonOptions& options);

} // namespace fxview
