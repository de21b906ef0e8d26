// A torch.profiler trace a person gives the window (Cost ▸ Import Trace…) or fxtrace operators:
// read as a stream, laid onto a graph whose nodes call the operators the seeds' traces hold
// (make_seeds.py's profiler_traces), then summed up as the window says it.

#include <cstdint>
#include <sstream>
#include <string>

#include "ProfilerTrace.h"

namespace {

fxview::Graph seedGraph() {
    fxview::Graph graph;
    auto call = [&](const char* name, const char* schema) {
        fxview::Node n;
        n.name = name;
        n.schema = schema;
        n.target = std::string("torch.ops.") + schema;
        graph.nodes.push_back(n);
    };
    fxview::Node x;
    x.op = fxview::Op::Placeholder;
    x.name = "x";
    graph.nodes.push_back(x);
    call("linear", "aten::linear");
    call("relu", "aten::relu");
    call("add", "aten::add.Tensor");
    call("view", "aten::view");
    call("add_1", "aten::add.Tensor");
    return graph;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fxview::Graph graph = seedGraph();
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const fxview::LaidTrace laid = fxview::layProfilerTrace(graph, in);
    laid.summary("trace.json");
    return 0;
}
