// fxtrace compare: run A and run B of a model side by side (another input, another precision or
// another file) and print how far apart each matched node's values are (core/run/Comparison.h).

#include <iostream>
#include <memory>

#include "Comparison.h"
#include "ConfinedRun.h"
#include "Fxtrace.h"
#include "RunComparison.h"

namespace fxview::fxtrace {

namespace {

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

struct OpenedRun {
    std::unique_ptr<Interpreter> interpreter;
    std::string error;
};

OpenedRun openRun(const std::string& file, const std::vector<std::string>& opLibraries,
                  const std::string& castTo) {
    LoadResult loaded = loadModel(file, opLibraries);
    if (!loaded.ok())
        return {nullptr, loaded.error};
    TraceResult traced = importGraph(*loaded.model);
    if (!traced.ok())
        return {nullptr, traced.error};
    RunOptions options;
    options.castTo = castTo; // B's model is loaded for B alone: casting it touches nothing else
    return {std::make_unique<Interpreter>(loaded.model, std::move(traced), options), {}};
}

} // namespace

int compare(const Options& options) {
    const CompareOptions& c = options.compare;
    reportStage("loading model A");
    OpenedRun a = openRun(options.model, options.opLibraries, "");
    if (!a.interpreter) {
        std::cerr << "Model A: " << a.error << "\n";
        return kModelFailed;
    }
    std::string fileB = c.modelB.empty() ? options.model : c.modelB;
    reportStage("loading model B");
    OpenedRun b = openRun(fileB, options.opLibraries, c.dtype);
    if (!b.interpreter) {
        std::cerr << "Model B: " << b.error << "\n";
        return kModelFailed;
    }
    std::vector<InputSpec> specs;
    if (!chooseInputs(*a.interpreter, options, specs))
        return kModelFailed;
    std::vector<InputSpec> specsB = c.inputsB.empty() ? specs : c.inputsB;
    std::uint64_t seedB = c.hasSeedB ? c.seedB : options.seed;
    if (std::string error = b.interpreter->setInputs(specsB, seedB); !error.empty()) {
        std::cerr << "Run B: " << error << "\n";
        return kModelFailed;
    }

    RunComparisonOptions runOptions;
    runOptions.local = c.local;
    runOptions.beforeNode = [](const std::string& next) {
        reportStage(next, true);
        return true;
    };
    ComparisonReport report = compareRuns(*a.interpreter, *b.interpreter, runOptions);
    report.modelA = options.model;
    report.modelB = fileB;
    report.runA = "weights as saved, " + inputText(specs, options.seed);
    report.runB = (c.dtype.empty() ? std::string("weights as saved") : c.dtype + " weights") +
                  ", " + inputText(specsB, seedB);

    std::cout << "A: " << report.modelA << ", " << report.runA << "\n"
              << "B: " << report.modelB << ", " << report.runB << "\n"
              << (c.local ? "Local: each of B's nodes fed A's values\n"
                          : "Accumulated: each run on its own\n")
              << formatComparison(report, c.metric, c.threshold);
    if (!options.jsonFile.empty() &&
        !writeFile(options.jsonFile, comparisonToJson(report, c.metric, c.threshold)))
        return kModelFailed;
    if (!report.failure.empty()) {
        std::cerr << report.failure << "\n";
        return kModelFailed;
    }
    return kOk;
}

} // namespace fxview::fxtrace
