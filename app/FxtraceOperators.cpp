// fxtrace operators: a torch.profiler trace a person made of the model's run laid onto its graph
// (core/records/ProfilerTrace.h), each node printed with the operators it ran and their own time,
// as the window's Cost dock shows them after Import Trace….

#include <cstdio>
#include <fstream>
#include <iostream>

#include "FxText.h"
#include "Fxtrace.h"
#include "ProfilerTrace.h"

namespace fxview::fxtrace {

namespace {

std::string microseconds(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f us", us);
    return buf;
}

} // namespace

int layTrace(const Options& options, const Graph& graph) {
    std::ifstream in(options.traceFile, std::ios::binary);
    if (!in) {
        std::cerr << "Cannot read " << options.traceFile << ": no such file, or not readable.\n";
        return kModelFailed;
    }
    const LaidTrace laid = layProfilerTrace(graph, in);
    const std::string name = options.traceFile.substr(options.traceFile.find_last_of('/') + 1);
    if (!laid.error.empty()) {
        std::cerr << laid.error << "\n";
        return kModelFailed;
    }
    std::cout << laid.summary(name) << "\n";
    std::vector<std::vector<std::string>> rows = {{"node", "own time", "operators"}};
    graph.forEachNode([&](const Node& n, int) {
        auto it = laid.operators.find(n.name);
        if (it == laid.operators.end() || it->second.empty())
            return;
        double total = 0;
        std::string list;
        for (const OperatorTime& o : it->second) {
            total += o.selfUs + o.deviceUs;
            list += (list.empty() ? "" : ", ") + o.name + " " + microseconds(o.selfUs) +
                    (o.calls > 1 ? " (" + std::to_string(o.calls) + " calls)" : "");
        }
        rows.push_back({n.name, microseconds(total), list});
    });
    std::cout << alignColumns(rows);
    return kOk;
}

} // namespace fxview::fxtrace
