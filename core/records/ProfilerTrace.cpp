#include "ProfilerTrace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace fxview {

namespace {

constexpr std::string_view kRangePrefix = "fxview::"; // python/fxview/operators.py's PREFIX
// Kineto writes ts and dur in microseconds with three decimals: a child may end a rounding
// past its parent.
constexpr double kSlackUs = 0.002;

struct TraceEvent {
    int name = -1;   // into Trace::names
    int thread = -1; // into Trace::threads
    double ts = 0, dur = 0;
    bool range = false; // a user_annotation (record_function), else an operator (cpu_op)
};

struct Trace {
    std::vector<std::string> names, threads;
    std::unordered_map<std::string, int> nameIds, threadIds;
    std::vector<TraceEvent> events;
    bool hasEventList = false;
    std::string error;

    int intern(std::vector<std::string>& list, std::unordered_map<std::string, int>& ids,
               const std::string& s) {
        auto [it, added] = ids.emplace(s, static_cast<int>(list.size()));
        if (added)
            list.push_back(s);
        return it->second;
    }
};

// The trace's events, as nlohmann's SAX parser hands them over: the objects of the top-level
// "traceEvents" array (the JSON Object Format) or of a top-level array (the Array Format), each
// field kept only when it is a scalar of the event itself (its args are skipped whole).
class EventReader : public nlohmann::json_sax<nlohmann::json> {
public:
    explicit EventReader(Trace& trace) : trace_(trace) {}

    bool null() override { return scalar(Scalar{}); }
    bool boolean(bool) override { return scalar(Scalar{}); }
    bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
    bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
    bool number_float(number_float_t v, const string_t&) override { return number(v); }
    bool string(string_t& v) override { return scalar(Scalar{true, v, 0, false}); }
    bool binary(binary_t&) override { return scalar(Scalar{}); }

    bool start_object(std::size_t) override {
        if (!open())
            return false;
        if (eventsDepth_ > 0 && depth_ == eventsDepth_ + 1)
            event_ = Fields{};
        return true;
    }
    bool key(string_t& k) override {
        if (depth_ == 1 || (eventsDepth_ > 0 && depth_ == eventsDepth_ + 1))
            key_ = k;
        return true;
    }
    bool end_object() override {
        if (eventsDepth_ > 0 && depth_ == eventsDepth_ + 1 && !keep())
            return false;
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override {
        const bool events = (depth_ == 0) || (depth_ == 1 && key_ == "traceEvents");
        if (!open())
            return false;
        if (events && eventsDepth_ == 0) {
            eventsDepth_ = depth_;
            trace_.hasEventList = true;
        }
        return true;
    }
    bool end_array() override {
        --depth_;
        return true;
    }
    bool parse_error(std::size_t at, const std::string&,
                     const nlohmann::detail::exception&) override {
        if (trace_.error.empty())
            trace_.error = "The file is not a torch.profiler trace: its JSON breaks at byte " +
                           std::to_string(at) + ".";
        return false;
    }

private:
    struct Scalar {
        bool isString = false;
        std::string text;
        double number = 0;
        bool isNumber = false;
    };
    struct Fields {
        std::string name, cat, ph, pid, tid;
        double ts = -1, dur = -1;
    };

    bool open() {
        if (++depth_ > kMaxTraceDepth) {
            trace_.error = "The file nests JSON more than " + std::to_string(kMaxTraceDepth) +
                           " deep: it is not a torch.profiler trace.";
            return false;
        }
        return true;
    }
    bool number(double v) { return scalar(Scalar{false, {}, v, true}); }
    bool scalar(const Scalar& v) {
        if (eventsDepth_ == 0 || depth_ != eventsDepth_ + 1)
            return true;
        const auto text = [&] { return v.isString ? v.text : v.isNumber ? fixedId(v.number) : ""; };
        if (key_ == "name" && v.isString)
            event_.name = v.text;
        else if (key_ == "cat" && v.isString)
            event_.cat = v.text;
        else if (key_ == "ph" && v.isString)
            event_.ph = v.text;
        else if (key_ == "pid")
            event_.pid = text();
        else if (key_ == "tid")
            event_.tid = text();
        else if (key_ == "ts" && v.isNumber)
            event_.ts = v.number;
        else if (key_ == "dur" && v.isNumber)
            event_.dur = v.number;
        return true;
    }
    // A numeric pid or tid as text: whole numbers as integers (any double is a valid JSON
    // number; only those a long long holds exactly are cast).
    static std::string fixedId(double v) {
        char buf[32];
        if (std::fabs(v) < 9e15 && v == std::floor(v))
            std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
        else
            std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }
    // An event of a whole duration (ph X) that is an operator or a record_function range.
    bool keep() {
        const bool op = event_.cat == "cpu_op" || event_.cat == "Operator";
        const bool range = event_.cat == "user_annotation";
        if (event_.ph != "X" || (!op && !range) || event_.name.empty() || !(event_.dur >= 0) ||
            !(event_.ts >= 0))
            return true;
        if (trace_.events.size() >= kMaxTraceEvents) {
            trace_.error = "The trace holds more than " + std::to_string(kMaxTraceEvents) +
                           " operator events, more than fxview lays: profile one run of the "
                           "model.";
            return false;
        }
        TraceEvent e;
        e.name = trace_.intern(trace_.names, trace_.nameIds, event_.name);
        e.thread = trace_.intern(trace_.threads, trace_.threadIds, event_.pid + "/" + event_.tid);
        e.ts = event_.ts;
        e.dur = event_.dur;
        e.range = range;
        trace_.events.push_back(e);
        return true;
    }

    Trace& trace_;
    int depth_ = 0;
    int eventsDepth_ = 0; // the depth of the events' array once found
    std::string key_;
    Fields event_;
};

bool inside(const TraceEvent& inner, const TraceEvent& outer) {
    return inner.ts >= outer.ts - kSlackUs &&
           inner.ts + inner.dur <= outer.ts + outer.dur + kSlackUs;
}

// One thread's operators in the order they began (an enclosing one first), each with its own
// time (its duration less its direct children's) and whether an operator encloses it.
struct ThreadOperators {
    std::vector<const TraceEvent*> ops;
    std::vector<double> selfUs;
    std::vector<bool> topLevel;
};

ThreadOperators operatorsOf(const Trace& trace, int thread) {
    ThreadOperators t;
    for (const TraceEvent& e : trace.events)
        if (!e.range && e.thread == thread)
            t.ops.push_back(&e);
    std::stable_sort(t.ops.begin(), t.ops.end(), [](const TraceEvent* a, const TraceEvent* b) {
        return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;
    });
    t.selfUs.assign(t.ops.size(), 0);
    t.topLevel.assign(t.ops.size(), false);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
        while (!open.empty() && !inside(*t.ops[i], *t.ops[open.back()]))
            open.pop_back();
        t.selfUs[i] = t.ops[i]->dur;
        if (open.empty())
            t.topLevel[i] = true;
        else
            t.selfUs[open.back()] -= t.ops[i]->dur;
        open.push_back(i);
    }
    for (double& s : t.selfUs)
        s = std::max(0.0, s);
    return t;
}

// The operators [from, to) of `t`, summed by name, the most own time first.
void addOperators(const Trace& trace, const ThreadOperators& t, std::size_t from, std::size_t to,
                  std::vector<OperatorTime>& into) {
    for (std::size_t i = from; i < to; ++i) {
        const std::string& name = trace.names[static_cast<std::size_t>(t.ops[i]->name)];
        auto it = std::find_if(into.begin(), into.end(),
                               [&](const OperatorTime& o) { return o.name == name; });
        if (it == into.end())
            into.push_back(OperatorTime{name, t.selfUs[i], 0, 1});
        else {
            it->selfUs += t.selfUs[i];
            ++it->calls;
        }
    }
}

void sortOperators(OperatorsByNode& operators) {
    for (auto& [node, rows] : operators)
        std::stable_sort(rows.begin(), rows.end(),
                         [](const OperatorTime& a, const OperatorTime& b) {
                             return a.selfUs != b.selfUs ? a.selfUs > b.selfUs : a.name < b.name;
                         });
}

// The name torch.profiler gives the calls of the operator a node calls: its schema's
// "aten::split.Tensor" -> "aten::split", else a target "torch.ops.aten.split.Tensor" (a graph
// the Python engine sends without schemas) -> "aten::split"; "" for a Python function.
std::string operatorName(const Node& node) {
    if (const std::size_t ns = node.schema.find("::"); ns != std::string::npos)
        return node.schema.substr(0, node.schema.find('.', ns + 2));
    constexpr std::string_view ops = "torch.ops.";
    if (node.target.rfind(ops, 0) != 0)
        return {};
    const std::size_t dot = node.target.find('.', ops.size());
    if (dot == std::string::npos)
        return {};
    const std::size_t end = node.target.find('.', dot + 1);
    return node.target.substr(ops.size(), dot - ops.size()) +
           "::" + node.target.substr(dot + 1, end == std::string::npos ? end : end - dot - 1);
}

struct Caller {
    std::string node, op;
};

// The top-level nodes' names: what an fxview::NODE range may name.
std::unordered_set<std::string> topLevelNames(const Graph& graph) {
    std::unordered_set<std::string> names;
    graph.forEachNode([&](const Node& n, int depth) {
        if (depth == 0)
            names.insert(n.name);
    });
    return names;
}

// The node an fxview::NODE range names, or "" for any other range.
std::string rangeNode(const std::string& name, const std::unordered_set<std::string>& nodes) {
    if (name.rfind(kRangePrefix, 0) != 0)
        return {};
    std::string node = name.substr(kRangePrefix.size());
    return nodes.count(node) ? node : std::string{};
}

std::vector<Caller> callersOf(const Graph& graph) {
    std::vector<Caller> callers;
    graph.forEachNode([&](const Node& n, int depth) {
        if (depth == 0 && n.op == Op::CallFunction)
            if (std::string op = operatorName(n); !op.empty())
                callers.push_back({n.name, op});
    });
    return callers;
}

// fxview's own trace (Export Trace…): each node's operators are those inside its range.
void layByRanges(const Trace& trace, const std::unordered_set<std::string>& nodes,
                 const std::vector<Caller>& callers, LaidTrace& laid) {
    std::map<int, ThreadOperators> threads;
    for (const TraceEvent& r : trace.events) {
        const std::string node =
            r.range ? rangeNode(trace.names[static_cast<std::size_t>(r.name)], nodes) : "";
        if (node.empty())
            continue;
        auto it = threads.find(r.thread);
        if (it == threads.end())
            it = threads.emplace(r.thread, operatorsOf(trace, r.thread)).first;
        const ThreadOperators& t = it->second;
        auto first = std::lower_bound(t.ops.begin(), t.ops.end(), r.ts - kSlackUs,
                                      [](const TraceEvent* e, double ts) { return e->ts < ts; });
        std::size_t from = static_cast<std::size_t>(first - t.ops.begin()), to = from;
        while (to < t.ops.size() && inside(*t.ops[to], r))
            ++to;
        addOperators(trace, t, from, to, laid.operators[node]);
    }
    for (const Caller& c : callers) {
        auto it = laid.operators.find(c.node);
        const bool found = it != laid.operators.end() &&
                           std::any_of(it->second.begin(), it->second.end(),
                                       [&](const OperatorTime& o) { return o.name == c.op; });
        if (found)
            ++laid.laid;
        else if (laid.firstMissing.empty())
            laid.firstMissing = c.node + " (" + c.op + ")";
    }
}

// A person's own trace: the graph's operator calls matched in run order to the top-level
// operators of the thread that ran the most.
void layByOrder(const Trace& trace, const std::vector<Caller>& callers, LaidTrace& laid) {
    std::vector<std::size_t> perThread(trace.threads.size(), 0);
    for (const TraceEvent& e : trace.events)
        if (!e.range)
            ++perThread[static_cast<std::size_t>(e.thread)];
    const int busiest =
        static_cast<int>(std::max_element(perThread.begin(), perThread.end()) - perThread.begin());
    const ThreadOperators t = operatorsOf(trace, busiest);
    std::vector<std::size_t> top; // the top-level operators, each up to the next
    // Where each name stands among them, in run order: a node finds its operator by a binary
    // search, so a trace of another model (no node found) costs no node a walk to its end.
    std::unordered_map<std::string, std::vector<std::size_t>> at;
    for (std::size_t i = 0; i < t.ops.size(); ++i)
        if (t.topLevel[i]) {
            at[trace.names[static_cast<std::size_t>(t.ops[i]->name)]].push_back(top.size());
            top.push_back(i);
        }
    std::size_t next = 0;
    for (const Caller& c : callers) {
        std::optional<std::size_t> k; // the top-level operator this node takes
        if (auto named = at.find(c.op); named != at.end())
            if (auto it = std::lower_bound(named->second.begin(), named->second.end(), next);
                it != named->second.end())
                k = *it;
        if (!k) { // not called from here on: the next node may still be
            if (laid.firstMissing.empty())
                laid.firstMissing = c.node + " (" + c.op + ")";
            continue;
        }
        const std::size_t end = *k + 1 < top.size() ? top[*k + 1] : t.ops.size();
        addOperators(trace, t, top[*k], end, laid.operators[c.node]);
        ++laid.laid;
        next = *k + 1;
    }
}

} // namespace

std::string LaidTrace::summary(const std::string& traceName) const {
    if (!error.empty())
        return error;
    std::string s = "Laid " + traceName + " on " + std::to_string(laid) + " of " +
                    std::to_string(callers) + " nodes that call an operator (" +
                    (byRanges ? "by fxview's ranges in it" : "in their run order") + ")";
    if (!firstMissing.empty())
        s += "; the first without its operator there: " + firstMissing;
    return s + ".";
}

LaidTrace layProfilerTrace(const Graph& graph, std::istream& in) {
    Trace trace;
    LaidTrace laid;
    EventReader reader(trace);
    const bool read = nlohmann::json::sax_parse(in, &reader);
    if (!read || !trace.error.empty()) {
        laid.error = trace.error.empty() ? "The file is not a torch.profiler trace: it does not "
                                           "read as JSON."
                                         : trace.error;
        return laid;
    }
    if (!trace.hasEventList) {
        laid.error =
            "The file has no traceEvents: it is not a Chrome trace, which torch.profiler's "
            "export_chrome_trace writes.";
        return laid;
    }
    const bool anyOperator = std::any_of(trace.events.begin(), trace.events.end(),
                                         [](const TraceEvent& e) { return !e.range; });
    if (!anyOperator) {
        laid.error = "The trace holds no operator events (cpu_op): record the run with "
                     "torch.profiler.profile(activities=[ProfilerActivity.CPU]).";
        return laid;
    }
    const std::vector<Caller> callers = callersOf(graph);
    laid.callers = static_cast<int>(callers.size());
    const std::unordered_set<std::string> nodes = topLevelNames(graph);
    const bool ranges =
        std::any_of(trace.events.begin(), trace.events.end(), [&](const TraceEvent& e) {
            return e.range &&
                   !rangeNode(trace.names[static_cast<std::size_t>(e.name)], nodes).empty();
        });
    laid.byRanges = ranges;
    if (ranges)
        layByRanges(trace, nodes, callers, laid);
    else
        layByOrder(trace, callers, laid);
    sortOperators(laid.operators);
    if (laid.laid == 0 && laid.operators.empty())
        laid.error = "None of the graph's " + std::to_string(laid.callers) +
                     " operator calls is in the trace: is it a trace of this model's run?";
    return laid;
}

} // namespace fxview
