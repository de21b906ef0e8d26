// Compare Runs of model files: each run an interpreter of its own on a model loaded afresh, or
// sharing the engine's open model where nothing the run does can change its weights.

#include "ModelComparison.h"

#include <torch/script.h>

#include <memory>
#include <unordered_map>

#include "Importer.h"
#include "ModelPrivate.h"

namespace fxview {

namespace {

std::unique_ptr<Interpreter> openRun(const std::string& file,
                                     const std::vector<std::string>& opLibraries,
                                     const std::string& castTo, std::string& error) {
    LoadResult loaded = loadModel(file, opLibraries);
    if (!loaded.ok()) {
        error = loaded.error;
        return nullptr;
    }
    TraceResult traced = importGraph(*loaded.model);
    if (!traced.ok()) {
        error = traced.error;
        return nullptr;
    }
    RunOptions options;
    options.castTo = castTo; // the model is this run's alone: casting it touches nothing else
    return std::make_unique<Interpreter>(loaded.model, std::move(traced), options);
}

} // namespace

bool mayWriteWeights(const Graph& graph) {
    // One pass in graph order (a node's inputs come before it), no recursion: a 27,000-node
    // chain must not need 27,000 frames.
    std::unordered_map<std::string, bool> fedByInput;
    auto fed = [&](const std::string& name) {
        auto it = fedByInput.find(name);
        return it == fedByInput.end() || it->second; // else a block's parameter: made by the run
    };
    bool writes = false;
    graph.forEachNode([&](const Node& n, int) {
        const std::string op = n.schema.substr(0, n.schema.find('.'));
        const bool inPlace = op.size() > 2 && op.back() == '_' && op[op.size() - 2] != '_';
        if (inPlace && !n.args.empty())
            n.args.front().forEachNodeRef(
                [&](const std::string& ref) { writes = writes || !fed(ref); });
        bool fromInput = n.op == Op::Placeholder;
        auto visit = [&](const std::string& ref) { fromInput = fromInput || fed(ref); };
        for (const Argument& a : n.args)
            a.forEachNodeRef(visit);
        for (const KeywordArgument& k : n.kwargs)
            k.value.forEachNodeRef(visit);
        fedByInput[n.name] = fromInput;
    });
    return writes;
}

namespace {

// A run of `file` in `castTo` on the open model's weights, when nothing the run does can change
// them (a TorchScript module's castWeights, its training-mode buffers and its in-place writes
// into what it holds would); else nullptr.
std::unique_ptr<Interpreter> sharedRun(const ModelComparison& what, const std::string& file,
                                       const std::string& castTo) {
    if (!what.open || file != what.modelA || !what.openImport.ok())
        return nullptr;
    const Model::Private& m = what.open->d();
    if (!m.exported &&
        (!castTo.empty() || m.module.is_training() || mayWriteWeights(what.openImport.graph)))
        return nullptr;
    RunOptions options;
    options.castTo = castTo;
    return std::make_unique<Interpreter>(what.open, what.openImport, options);
}

std::unique_ptr<Interpreter> runOf(const ModelComparison& what, const std::string& file,
                                   const std::string& castTo, std::string& error) {
    if (std::unique_ptr<Interpreter> shared = sharedRun(what, file, castTo))
        return shared;
    return openRun(file, what.opLibraries, castTo, error);
}

std::string inputText(const std::vector<InputSpec>& specs, std::uint64_t seed) {
    std::string text;
    bool random = false;
    for (const InputSpec& s : specs) {
        text += (text.empty() ? "" : " ") + s.text();
        random = random || (s.file.empty() && !s.example);
    }
    return "input " + (text.empty() ? std::string("none") : text) +
           (random ? " (seed " + std::to_string(seed) + ")" : "");
}

} // namespace

ComparisonOutcome compareModels(const ModelComparison& what, const RunComparisonOptions& options) {
    ComparisonOutcome out;
    const CompareRequest& b = what.b;
    if (std::string error = checkCompareDtype(b.dtype); !error.empty()) {
        out.error = error;
        return out;
    }
    if (!b.device.empty() && b.device != "cpu") {
        out.error = "Run B's device '" + b.device +
                    "' is not this engine's: fxview-engine runs on the CPU (a live Python "
                    "session compares on its own devices).";
        return out;
    }
    std::string error;
    std::unique_ptr<Interpreter> a = runOf(what, what.modelA, "", error);
    if (!a) {
        out.error = "Model A: " + error;
        return out;
    }
    std::string fileB = b.modelB.empty() ? what.modelA : b.modelB;
    std::unique_ptr<Interpreter> runB = runOf(what, fileB, b.dtype, error);
    if (!runB) {
        out.error = "Model B: " + error;
        return out;
    }
    std::vector<InputSpec> specs = what.inputs;
    if (specs.empty()) {
        InputChoice guess = a->guessInputs();
        if (!guess.error.empty()) {
            out.error = guess.error;
            return out;
        }
        specs = guess.specs;
        out.inputNote = guess.explanation;
    }
    if (std::string e = a->setInputs(specs, what.seed); !e.empty()) {
        out.error = "Run A: " + e;
        return out;
    }
    std::vector<InputSpec> specsB = b.inputsB.empty() ? specs : b.inputsB;
    std::uint64_t seedB = b.hasSeedB ? b.seedB : what.seed;
    if (std::string e = runB->setInputs(specsB, seedB); !e.empty()) {
        out.error = "Run B: " + e;
        return out;
    }
    out.report = compareRuns(*a, *runB, options);
    out.report.modelA = what.modelA;
    out.report.modelB = fileB;
    out.report.runA = "weights as saved, " + inputText(specs, what.seed);
    out.report.runB = (b.dtype.empty() ? std::string("weights as saved") : b.dtype + " weights") +
                      ", " + inputText(specsB, seedB);
    return out;
}

} // namespace fxview
