#pragma once
// What each node of a run cost (docs/cost.md) as one table: `fxtrace run --profile N`, the
// window's Cost dock and its CSV export read it. Plain data: the engines fill NodeRecord's
// figures, the runs give each node's times.

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "Graph.h"
#include "OperatorTime.h"
#include "RunRecord.h"

namespace fxview {

// A node's wall time over repeated runs: the median, and the spread from the fastest to the
// slowest run.
struct NodeTimes {
    double median = 0, min = 0, max = 0;
    int runs = 0;
};
NodeTimes timesOf(std::vector<double> samples);

struct CostRow {
    std::string node, op, target, scope;
    NodeTimes time;
    std::int64_t bytes = 0;     // NodeRecord::newBytes
    std::string aliasKind;      // "", "view", "in-place"
    std::int64_t liveBytes = 0; // NodeRecord::liveBytes
    std::int64_t flops = 0;
    bool ran = false;
    bool weight = false; // a parameter, buffer or constant (a placeholder or get_attr)
    // torch.profiler's operators inside the node's range (the Python engine's Profile with
    // operators), the most time first, and their own times' sum (CPU and device).
    std::vector<OperatorTime> operators;
    double operatorUs = 0;
};

struct CostTable {
    std::vector<CostRow> rows; // in graph order
    int runs = 0;              // how many timed runs the times are of
    PeakLive peakLive;         // what the engine found alive at the live set's peak
    double totalUs() const;    // the sum of the medians
    std::int64_t totalFlops() const;
    // The row where the live set is largest (the first of equals), or -1 for an empty table.
    int peak() const;
};

// A row for every node of `graph` (hidden guards only with `showHidden`), its figures from
// `record` and its times from `times` (by node name; a node without samples takes its
// record's one time).
CostTable makeCostTable(const Graph& graph,
                        const std::function<const NodeRecord*(const std::string&)>& record,
                        const std::unordered_map<std::string, std::vector<double>>& times, int runs,
                        bool showHidden = false);

// Lays each node's operators (ProfileAnswer::operators) on its row.
using OperatorsByNode = std::unordered_map<std::string, std::vector<OperatorTime>>;
void addOperators(CostTable& table, const OperatorsByNode& operators);
bool hasOperators(const CostTable& table);

// The table as CSV (RFC 4180): node,op,target,scope,time_us,bytes,live_bytes,flops.
std::string costCsv(const CostTable& table);
// The table as text, a line per node (time, spread, share, bytes, live set, FLOPs), then the
// totals, the peak of the live set and the largest values alive there (kPeakValuesPrinted).
constexpr std::size_t kPeakValuesPrinted = 10;
std::string costText(const CostTable& table);

// "512 B", "1.50 KiB", "3.25 MiB", "1.02 GiB".
std::string formatBytes(std::int64_t bytes);
// "0", "950", "1.20 K", "3.60 G" (floating-point operations).
std::string formatFlops(std::int64_t flops);

} // namespace fxview
