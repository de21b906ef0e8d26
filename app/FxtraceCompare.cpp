// fxtrace compare: run A and run B of a model side by side (another input, another precision or
// another file) and print how far apart each matched node's values are (core/run/Comparison.h).

#include <iostream>

#include "ConfinedRun.h"
#include "Fxtrace.h"
#include "RunComparison.h"

namespace fxview::fxtrace {

int compare(const Options& options) {
    const CompareOptions& c = options.compare;
    ModelComparison what{options.model, options.inputs, options.seed, options.opLibraries, c.b};
    RunComparisonOptions runOptions;
    runOptions.local = c.b.local;
    runOptions.beforeNode = [](const std::string& next) {
        reportStage(next, true);
        return true;
    };
    reportStage("loading the models");
    ComparisonOutcome outcome = compareModels(what, runOptions);
    std::cerr << outcome.inputNote;
    if (!outcome.error.empty()) {
        std::cerr << outcome.error << "\n";
        return kModelFailed;
    }
    const ComparisonReport& report = outcome.report;
    std::cout << "A: " << report.modelA << ", " << report.runA << "\n"
              << "B: " << report.modelB << ", " << report.runB << "\n"
              << (report.local ? "Local: each of B's nodes fed A's values\n"
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
