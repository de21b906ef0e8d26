#pragma once
// What a run records for each node (its `meta`), as plain data for the printers and the UI.

#include <cstdint>
#include <string>
#include <vector>

namespace fxview {

// A value as a person wants to see it: a tensor's shape, dtype and statistics, a tuple item by
// item, a scalar's value.
struct ValueSummary {
    std::string type; // "Tensor", "tuple", "list", "int", "float", "bool", "str", "None", other
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> stride;
    std::string dtype; // "float32"
    std::string device;
    std::int64_t numel = 0;
    std::int64_t bytes = 0;
    bool hasStats = false;                      // full summaries of numeric tensors only
    double min = 0, max = 0, mean = 0, std = 0; // over the finite values; std is unbiased
    std::int64_t nanCount = 0, infCount = 0;
    // Counts of the finite values in equal bins from min to max, over all values or, for a
    // big tensor, 64 evenly spaced runs of 64 (histogramSample says how many were counted).
    std::vector<std::int64_t> histogram;
    std::int64_t histogramSample = 0;
    // Whether std and the histogram were made (with hasStats). fxview-engine makes them with the
    // rest in one pass; a live run keeps only min, max, mean and the counts for each node, and
    // makes them when the window asks for the node (EngineMessage::DetailRequest).
    bool hasDetail = false;
    // A quantized tensor (quint8, qint8, qint32): the statistics above describe its dequantized
    // values, scale * (q - zero_point), as torch.Tensor.dequantize() gives them; these fields
    // describe the quantization. Per channel, the scale and zero point ranges over the channels.
    std::string qscheme;     // "per_tensor_affine", "per_channel_affine", ...; empty otherwise
    std::int64_t qaxis = -1; // per channel: the channels' axis
    double scaleMin = 0, scaleMax = 0;               // equal per tensor
    std::int64_t zeroPointMin = 0, zeroPointMax = 0; // equal per tensor
    std::int64_t intMin = 0, intMax = 0;             // the int representation's range
    std::vector<ValueSummary> items;                 // tuple and list items
    std::string value;                               // scalars and strings as Python prints them
};

// "[3, 2]" as torch.Size prints, or "(…)" for tuples, or the value of a scalar.
std::string shortDescription(const ValueSummary& value);
std::string formatShape(const std::vector<std::int64_t>& shape);
// A quantized tensor's quantization in one line: "per_tensor_affine, scale 0.0516, zero point 61,
// ints 0 to 255"; per channel the ranges over the channels and the axis. "" when not quantized.
std::string quantizationDescription(const ValueSummary& value);

enum class NodeState {
    Pending,     // not run yet
    Done,        // ran
    Failed,      // raised: the run stopped here
    NotExecuted, // in a branch or loop body that this input never reached
};

struct NodeRecord {
    NodeState state = NodeState::Pending;
    ValueSummary value;
    double timeUs = 0;          // wall time of the last run of the node
    int runs = 0;               // more than one inside a loop body
    std::vector<int> blockRuns; // control flow: times each branch ran, or loop iterations
    std::string error;
    std::string warning; // what an aten::warn node said (warnings.warn in the model's code)
    // What the node's run cost in memory and arithmetic (docs/cost.md), as both engines count it:
    // the bytes of the storages its outputs hold that none of its inputs held (0 for a view or
    // an in-place op; each storage once, however many outputs share it), what its outputs are
    // when they share an input's storage, the bytes of the distinct storages of every value a
    // later node still uses once this node has run (weights, buffers and constants apart), and
    // its floating-point operations from its operands' shapes, as torch.utils.flop_counter
    // counts them (0 where no count is known).
    std::int64_t newBytes = 0;
    std::string aliasKind; // "", "view" or "in-place"
    std::int64_t liveBytes = 0;
    std::int64_t flops = 0;
};

// What is alive where the live set peaks (docs/cost.md): the top-level node after which the
// live set is largest (the first of equals) and every value a later node still reads there, each
// with the bytes of the storages it holds that no value made before it holds (a view of an
// earlier value's storage: 0), the largest first; their sum is the peak. Empty until the live
// set holds more than 0 bytes.
struct LiveValue {
    std::string node;
    std::int64_t bytes = 0;
};
struct PeakLive {
    std::string node;
    std::int64_t bytes = 0;
    std::vector<LiveValue> values;
};

// What a control-flow node did: "took true" / "took false" for an if (known once it is entered),
// "3 iterations" for a loop that ran, "iteration 2" for one still running; "" for other nodes.
std::string controlFlowNote(const NodeRecord& record);

} // namespace fxview
