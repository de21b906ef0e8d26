#pragma once
// fxtrace's pieces shared by its files: fxtrace.cpp (the command line, graph, nodes, json, run),
// FxtraceCompare.cpp (compare), FxtraceExport.cpp (export: a file's graph, or a live engine's)
// and FxtraceOperators.cpp (operators: a torch.profiler trace laid onto the graph).

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Comparison.h"
#include "InputSpec.h"
#include "Interpreter.h"
#include "Model.h"
#include "Tracer.h"

namespace fxview::fxtrace {

constexpr int kOk = 0;
constexpr int kModelFailed = 1;
constexpr int kBadUsage = 2;

// compare: what run B is, and how the runs are judged.
struct CompareOptions {
    CompareRequest b;
    Metric metric = Metric::RelL2;
    double threshold = defaultThreshold(Metric::RelL2);
    bool thresholdGiven = false; // else the metric's own default
};

struct Options {
    std::string command;
    std::string model;
    std::string output;
    std::vector<InputSpec> inputs;
    std::uint64_t seed = 0;
    std::string jsonFile;
    std::string outputsFile;
    bool showHidden = false;
    bool keepValues = false;
    bool tracePath = false;
    std::string savedNode, savedValueFile; // --save-value NODE FILE
    bool breakOnNonFinite = false;         // --break-on nan
    int profileRuns = 0;                   // --profile N: N timed runs after a warm-up
    std::string csvFile;                   // --csv FILE: the cost table as CSV
    std::string traceFile;                 // operators MODEL TRACE
    // export
    QString format;
    bool run = false;
    int steps = -1;
    double scale = 2.0;
    QString theme = "light";
    bool transparent = false;
    int depth = -1;                  // --depth: scopes deeper than this drawn as boxes
    std::vector<std::string> expand; // --expand: scopes opened on top of --depth
    bool showWeights = false;        // --show-weights: weights as boxes of their own
    // the engine process (any command)
    double timeLimit = 0;
    std::int64_t memoryLimit = 0;
    bool inProcess = false;
    std::vector<std::string> opLibraries; // --ops LIB.so: libraries of custom ops, loaded first
    // --attach FD: export what a live engine (the person's Python) serves on this socket
    int attachFd = -1;
    CompareOptions compare;
};

// Writes `text` to `path`; false, with a sentence on stderr, if it cannot.
bool writeFile(const std::string& path, const std::string& text);

// Inputs from --input, or guessed from the graph (and said so on stderr).
bool chooseInputs(Interpreter& run, const Options& options, std::vector<InputSpec>& specs);

// Runs A and B side by side and prints their differences node by node (FxtraceCompare.cpp).
int compare(const Options& options);
// One of compare's options that take a value (--input-b, --dtype, --seed-b, --metric,
// --threshold) into `compare`; "" or what is wrong with it.
std::string compareOption(const std::string& option, const std::string& value,
                          CompareOptions& compare);

// Lays options.traceFile (a torch.profiler trace of the model's run) onto `graph` and prints
// each node's operators (FxtraceOperators.cpp).
int layTrace(const Options& options, const Graph& graph);

// Draws the graph offscreen and writes it in the format asked for, through the same export
// code the app uses: a file's graph (run first with --run or --step)...
int exportPicture(const Options& options, const std::shared_ptr<Model>& model, TraceResult traced);
// ...or the graph a live engine serves on options.attachFd, run there.
int exportLive(const Options& options);

} // namespace fxview::fxtrace
