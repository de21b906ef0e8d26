#pragma once
// Two runs compared node by node (run A, the reference, and run B: another input, precision or
// file): for each pair of matched nodes, how far B's value is from A's. Plain data: fxtrace
// prints it and writes it as JSON, the window reads that JSON and colours the graph by it.
// The runs themselves are in RunComparison.h.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "InputSpec.h"

namespace fxview {

// The numbers a pair of values is measured by. All are computed in float64 over every element
// (a tuple's tensors one after the other), A the reference: d = a - b, where a and b are equal
// (equal infinities too) or both NaN d is 0.
enum class Metric {
    MaxAbs,  // max |d|
    MeanAbs, // mean |d|
    RelL2,   // ||d|| / ||a||: 0 when d is 0, inf when a is 0 and d is not
    Cosine,  // a.b / (||a|| ||b||): 1 when d is 0, 0 when one of them is 0
    Sqnr,    // 20 log10(||a|| / ||d||) in dB, as torch.ao.ns.fx.utils.compute_sqnr: inf when d is 0
};
constexpr int kMetricCount = 5;

const char* metricName(Metric metric);  // "max_abs", "mean_abs", "rel_l2", "cosine", "sqnr"
const char* metricTitle(Metric metric); // "max |a-b|", "relative L2", "SQNR (dB)"
bool metricFromName(const std::string& name, Metric& metric);
// rel_l2 1e-3 (the default metric), max_abs 1e-3, mean_abs 1e-4, cosine 0.99999, sqnr 60 dB
// (the SQNR of a relative L2 of 1e-3).
double defaultThreshold(Metric metric);
// Cosine and SQNR fall as the runs part; the others grow.
bool lowerIsWorse(Metric metric);

// What run B is, beside run A (the model open, on its input): another file, dtype, input or
// seed, or for a live engine another device; with `local`, each of B's nodes is fed A's values.
struct CompareRequest {
    std::string modelB;             // another file; "" for A's model
    std::string dtype;              // "" or "bfloat16", "float16", "float64", "float32"
    std::string device;             // a live engine's torch device for B ("cuda:0"); "" for A's
    std::vector<InputSpec> inputsB; // empty: A's
    bool hasSeedB = false;
    std::uint64_t seedB = 0;
    bool local = false;
};

// "" or the sentence saying why `dtype` cannot be run B's dtype.
std::string checkCompareDtype(const std::string& dtype);

// One matched pair of nodes.
struct NodeDifference {
    std::string node;  // A's node
    std::string nodeB; // B's node (the same name unless matched by scope and order)
    std::string op, target;
    std::string match = "name"; // how they were paired: "name" or "scope order"
    // Whether the metrics hold numbers. Not when the values are not numbers (None, a string:
    // then `mismatch` says whether they differ), differ in shape, or one side never ran.
    bool compared = false;
    bool mismatch = false; // shapes, structure or non-numeric values differ
    std::string note;      // why there are no metrics, or what local mode could not do
    std::string shapeA, shapeB, dtypeA, dtypeB;
    std::int64_t elements = 0;
    double maxAbs = 0, meanAbs = 0, relL2 = 0, cosine = 1;
    double sqnr = std::numeric_limits<double>::infinity();

    double metric(Metric m) const;
    void setMetric(Metric m, double value);
    // Past `threshold` on `metric`, not finite, or mismatched.
    bool diverges(Metric m, double threshold) const;
};

struct ComparisonReport {
    std::string modelA, modelB;
    std::string runA, runB; // what each run is: "float32, input 1x3x224x224 seed 0"
    bool local = false;     // each of B's nodes fed A's values (the error is the node's own)
    std::vector<NodeDifference> nodes;     // in the order A ran them
    std::vector<std::string> onlyA, onlyB; // nodes one side has (or ran) and the other not
    std::string failure;                   // a run that failed: which and why; "" if none

    // The index of the first node that diverges, -1 if none does.
    int firstDivergence(Metric metric, double threshold) const;
};

// `First divergence: NODE (rel_l2 0.0123)` or `No divergence above 0.001 (rel_l2)`.
std::string divergenceLine(const ComparisonReport& report, Metric metric, double threshold);
// One row per node (name, op, the five metrics, note), the nodes only one side has, and
// divergenceLine last.
std::string formatComparison(const ComparisonReport& report, Metric metric, double threshold);
// The report as fxview.comparison JSON (docs/comparison.md); non-finite metrics as the strings
// "inf", "-inf", "nan".
std::string comparisonToJson(const ComparisonReport& report, Metric metric, double threshold);
// A metric's value as the table prints it: 4 significant digits (cosine 7: it parts from 1 late),
// "inf", "nan".
std::string formatMetric(double value, Metric metric = Metric::RelL2);

} // namespace fxview
