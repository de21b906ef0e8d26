#include "BreakCondition.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ValueSlice.h"

namespace fxview {

std::pair<std::int64_t, std::int64_t> nonFiniteCounts(const ValueSummary& v) {
    std::pair<std::int64_t, std::int64_t> counts{v.nanCount, v.infCount};
    for (const ValueSummary& item : v.items) {
        auto [nan, inf] = nonFiniteCounts(item);
        counts.first += nan;
        counts.second += inf;
    }
    return counts;
}

std::string nonFiniteText(std::pair<std::int64_t, std::int64_t> counts) {
    std::string text;
    if (counts.first > 0)
        text = std::to_string(counts.first) + " NaN";
    if (counts.second > 0)
        text += (text.empty() ? "" : " and ") + std::to_string(counts.second) + " Inf";
    return text + (counts.first + counts.second == 1 ? " value" : " values");
}

double largestMagnitude(const ValueSummary& v) {
    auto [nan, inf] = nonFiniteCounts(v);
    if (nan + inf > 0)
        return std::numeric_limits<double>::infinity();
    double largest = v.hasStats && v.numel > 0 ? std::max(std::fabs(v.min), std::fabs(v.max)) : 0;
    for (const ValueSummary& item : v.items)
        largest = std::max(largest, largestMagnitude(item));
    return largest;
}

bool conditionMet(const BreakCondition& condition, const ValueSummary& value) {
    switch (condition.kind) {
    case BreakCondition::Kind::Always:
        return false;
    case BreakCondition::Kind::NonFinite: {
        auto [nan, inf] = nonFiniteCounts(value);
        return nan + inf > 0;
    }
    case BreakCondition::Kind::AbsAbove:
        return largestMagnitude(value) > condition.threshold;
    }
    return false;
}

std::string conditionText(const BreakCondition& condition) {
    switch (condition.kind) {
    case BreakCondition::Kind::Always:
        return {};
    case BreakCondition::Kind::NonFinite:
        return "NaN/Inf";
    case BreakCondition::Kind::AbsAbove: {
        ValueSlice one;
        one.summary.dtype = "float64";
        one.reals = {condition.threshold};
        return "|x| > " + one.text(0, 0, 0);
    }
    }
    return {};
}

} // namespace fxview
