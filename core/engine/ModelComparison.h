#pragma once
// Compare Runs of model files (Comparison.h's CompareRequest): loads what the runs need, runs
// them side by side (RunComparison.h) and says what was compared.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Importer.h"
#include "RunComparison.h"

namespace fxview {

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
