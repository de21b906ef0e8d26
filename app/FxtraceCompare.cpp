// fxtrace compare: run A and run B of a model side by side (another input, another precision or
// another file) and print how far apart each matched node's values are (core/records/Comparison.h).

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "ConfinedRun.h"
#include "Fxtrace.h"
#include "ModelComparison.h"
#include "RunComparison.h"

namespace fxview::fxtrace {

// One of compare's options that take a value; "" or what is wrong with it.
std::string compareOption(const std::string& option, const std::string& value,
                          CompareOptions& compare) {
    if (option == "--input-b") {
        InputSpec spec;
        std::string error;
        if (!parseInputSpec(value, spec, error))
            return error;
        compare.b.inputsB.push_back(spec);
    } else if (option == "--dtype") {
        if (!checkCompareDtype(value).empty())
            return "--dtype takes bfloat16, float16, float64 or float32";
        compare.b.dtype = value;
    } else if (option == "--seed-b") {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
            return "--seed-b needs a non-negative whole number";
        compare.b.seedB = std::stoull(value);
        compare.b.hasSeedB = true;
    } else if (option == "--metric") {
        if (!metricFromName(value, compare.metric))
            return "--metric takes rel_l2, max_abs, mean_abs, cosine or sqnr";
        if (!compare.thresholdGiven)
            compare.threshold = defaultThreshold(compare.metric);
    } else { // --threshold
        char* end = nullptr;
        compare.threshold = std::strtod(value.c_str(), &end);
        compare.thresholdGiven = true;
        if (value.empty() || *end || !std::isfinite(compare.threshold))
            return "--threshold needs a number";
    }
    return {};
}

int compare(const Options& options) {
    const CompareOptions& c = options.compare;
    ModelComparison what{options.model,
                         options.inputs,
                         options.seed,
                         options.opLibraries,
                         c.b,
                         nullptr,
                         {}}; // nothing is open: A and B are read from their files
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
