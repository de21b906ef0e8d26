#pragma once
// When a run stops after a node because of what the node produced: a breakpoint's condition
// (NaN/Inf present, max |x| above a value) or Run > Break on NaN/Inf. A plain breakpoint stops
// before its node; a condition can only be tested on the node's output, so it stops after it,
// as a debugger's data breakpoint stops after the write.

#include <cstdint>
#include <string>
#include <utility>

#include "RunRecord.h"

namespace fxview {

struct BreakCondition {
    enum class Kind : std::uint8_t {
        Always,    // a plain breakpoint: before the node
        NonFinite, // after the node, when its output holds a NaN or an infinity
        AbsAbove,  // after the node, when the largest |x| of its output is above `threshold`
    };
    Kind kind = Kind::Always;
    double threshold = 0;
};

// NaN and Inf counts of a value, its items' too (a tuple of tensors).
std::pair<std::int64_t, std::int64_t> nonFiniteCounts(const ValueSummary& value);
// "4 NaN values", "1 NaN and 2 Inf values".
std::string nonFiniteText(std::pair<std::int64_t, std::int64_t> counts);
// The largest |x| of a value (its items' too); infinite when it holds an Inf or a NaN.
double largestMagnitude(const ValueSummary& value);
// Whether a node's output meets `condition` (Always never does: it stops before the node).
bool conditionMet(const BreakCondition& condition, const ValueSummary& value);
// "NaN/Inf", "|x| > 100", "" for Always: for the breakpoint's tooltip and the status bar.
std::string conditionText(const BreakCondition& condition);

} // namespace fxview
