// fxtrace run's watch for where the numbers go wrong (--break-on nan): the run goes node by node
// and stops after the first whose output holds a NaN or an infinity, saying whether it was born
// there (every input finite) or came in with an input (the input itself, a weight).

#include <iostream>

#include "Fxtrace.h"

namespace fxview::fxtrace {

namespace {

// NaN and Inf counts of a value, its items' too (a tuple of tensors).
std::pair<std::int64_t, std::int64_t> nonFinite(const ValueSummary& v) {
    std::pair<std::int64_t, std::int64_t> counts{v.nanCount, v.infCount};
    for (const ValueSummary& item : v.items) {
        auto [nan, inf] = nonFinite(item);
        counts.first += nan;
        counts.second += inf;
    }
    return counts;
}

std::string countsText(std::pair<std::int64_t, std::int64_t> counts) {
    std::string text;
    if (counts.first > 0)
        text = std::to_string(counts.first) + " NaN";
    if (counts.second > 0)
        text += (text.empty() ? "" : " and ") + std::to_string(counts.second) + " Inf";
    return text + (counts.first + counts.second == 1 ? " value" : " values");
}

// The innermost frame of a node's Python traceback: where the model's code made it.
std::string sourceLineOf(const Node& node) {
    const std::string& trace = node.sourceTrace;
    std::size_t file = trace.rfind("File \"");
    return file == std::string::npos ? std::string() : trace.substr(file);
}

} // namespace

StopReason runWatchingValues(Interpreter& interpreter, std::string& stoppedAt) {
    StopReason stop = StopReason::Stepped;
    while (!interpreter.finished() && !interpreter.failed()) {
        stop = interpreter.step();
        const NodeRecord* r = interpreter.record(interpreter.lastNode());
        if (r && r->state == NodeState::Done) {
            auto counts = nonFinite(r->value);
            if (counts.first + counts.second > 0) {
                stoppedAt = interpreter.lastNode();
                return StopReason::Breakpoint;
            }
        }
        if (stop == StopReason::Failed)
            break;
    }
    return stop;
}

std::string nonFiniteReport(const Interpreter& interpreter, const std::string& name) {
    const Node* node = interpreter.graph().find(name);
    const NodeRecord* r = interpreter.record(name);
    if (!node || !r)
        return "Stopped at " + name + ".";
    std::string report =
        "Stopped at " + name + ": its output holds " + countsText(nonFinite(r->value));
    std::vector<std::string> bad;
    node->forEachInput([&](const std::string& input) {
        const NodeRecord* in = interpreter.record(input);
        if (in && in->state == NodeState::Done) {
            auto counts = nonFinite(in->value);
            if (counts.first + counts.second > 0)
                bad.push_back(input + " (" + countsText(counts) + ")");
        }
    });
    if (bad.empty()) {
        report += "; every input it took was finite, so they were born here.";
    } else {
        report += "; they came in with ";
        for (std::size_t i = 0; i < bad.size(); ++i)
            report += (i ? ", " : "") + bad[i];
        report += ", already not finite.";
    }
    if (std::string line = sourceLineOf(*node); !line.empty())
        report += "\n  " + line;
    return report;
}

} // namespace fxview::fxtrace
