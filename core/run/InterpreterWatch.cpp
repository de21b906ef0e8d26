// Where the numbers go wrong: after a node runs, whether its output meets its breakpoint's
// condition or Break on NaN/Inf, and the paragraph that says so: which node, what its output
// holds, and whether its inputs already held it (born here, or came in with an input).

#include "Interpreter.h"
#include "InterpreterPrivate.h"

namespace fxview {

namespace {

// The innermost frame of a node's Python traceback: where the model's code made it.
std::string sourceLineOf(const Node& node) {
    const std::string& trace = node.sourceTrace;
    std::size_t file = trace.rfind("File \"");
    return file == std::string::npos ? std::string() : trace.substr(file);
}

// The interpreter whose own node ran last: the module Step Into is in, or this one.
const Interpreter& innermostRan(const Interpreter& at) {
    const Interpreter* inner = at.steppedInto();
    return inner && !inner->lastNode().empty() ? innermostRan(*inner) : at;
}

// Which of `node`'s inputs already held NaN or Inf, "" when none did.
std::string badInputs(const Interpreter& at, const Node& node) {
    std::string bad;
    node.forEachInput([&](const std::string& input) {
        const NodeRecord* in = at.record(input);
        if (in && in->state == NodeState::Done) {
            auto counts = nonFiniteCounts(in->value);
            if (counts.first + counts.second > 0)
                bad += (bad.empty() ? "" : ", ") + input + " (" + nonFiniteText(counts) + ")";
        }
    });
    return bad;
}

} // namespace

void Interpreter::setBreakOnNonFinite(bool on) {
    d->breakOnNonFinite = on;
}

const std::string& Interpreter::stopNote() const {
    return d->stopNote;
}

bool Interpreter::checkWatch() {
    d->stopNote.clear();
    const std::string name = lastNode();
    const Interpreter& at = innermostRan(*this);
    const std::string local = at.lastNode();
    const NodeRecord* r = at.record(local);
    const Node* node = at.graph().find(local);
    if (name.empty() || !r || !node || r->state != NodeState::Done)
        return false;
    auto breakpoint = d->breakpoints.find(name);
    const bool conditionHit =
        breakpoint != d->breakpoints.end() && conditionMet(breakpoint->second, r->value);
    auto counts = nonFiniteCounts(r->value);
    const bool nonFinite = counts.first + counts.second > 0;
    if (!conditionHit && !(d->breakOnNonFinite && nonFinite))
        return false;

    std::string note = "Stopped at " + name + ": ";
    if (conditionHit && breakpoint->second.kind == BreakCondition::Kind::AbsAbove && !nonFinite) {
        ValueSlice largest; // formats |x| as the Values view does
        largest.summary.dtype = "float64";
        largest.reals = {largestMagnitude(r->value)};
        note += "its output reaches |x| = " + largest.text(0, 0, 0) + ", above the breakpoint's " +
                conditionText(breakpoint->second) + ".";
    } else {
        note += "its output holds " + nonFiniteText(counts);
        std::string bad = badInputs(at, *node);
        note += bad.empty() ? "; every input it took was finite, so they were born here."
                            : "; they came in with " + bad + ", already not finite.";
    }
    if (std::string line = sourceLineOf(*node); !line.empty())
        note += "\n  " + line;
    d->stopNote = note;
    return true;
}

} // namespace fxview
