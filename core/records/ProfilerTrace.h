#pragma once
// A torch.profiler trace a person made of their model's run (the Chrome-trace JSON that
// `prof.export_chrome_trace` writes), laid onto the model's graph (docs/cost.md): each node
// gets the operators it ran, with their own time and calls, as Profile…'s own torch.profiler
// run gives them. The file is untrusted bytes: read as a stream (SAX, never held whole), its
// nesting bounded, only what the laying needs kept (tests/fuzz/fuzz_profiler_trace.cpp).

#include <cstdint>
#include <istream>
#include <string>

#include "CostTable.h"
#include "Graph.h"

namespace fxview {

// Deeper than any trace torch.profiler writes (an event's args hold a list or two), shallow
// enough for anything; and at most this many operator events are kept (a forward of a large
// model records a few hundred thousand).
constexpr int kMaxTraceDepth = 64;
constexpr std::size_t kMaxTraceEvents = 4'000'000;

struct LaidTrace {
    OperatorsByNode operators; // by node: its operators, the most own time first
    int laid = 0;              // nodes given their operator from the trace
    int callers = 0; // top-level nodes that call an operator (a schema, or torch.ops.NS.OP)
    // The first of those the trace does not show calling its operator where it ran:
    // "view_3 (aten::view)"; "" when every one was laid.
    std::string firstMissing;
    // How the nodes were found: by the trace's fxview::NODE ranges (fxview's own trace, Export
    // Trace…), else by the top-level operators in run order.
    bool byRanges = false;
    std::string error; // one sentence when nothing could be laid; empty otherwise
    // "Laid trace.json on 31 of 31 nodes that call an operator …": what the window and fxtrace
    // say after laying it.
    std::string summary(const std::string& traceName) const;
};

// Reads the trace from `in` and lays it onto `graph`'s top-level nodes: by the fxview::NODE
// ranges when the trace has any for this graph's nodes, else by matching each node that calls
// an operator to the next top-level operator event of that name on the thread that ran the
// most operators (its first run, when the trace holds several), each node taking that event
// and every operator inside it.
LaidTrace layProfilerTrace(const Graph& graph, std::istream& in);

} // namespace fxview
