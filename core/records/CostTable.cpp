// The cost table (CostTable.h): rows from the graph and its records, and its CSV and text.

#include "CostTable.h"

#include <algorithm>
#include <cstdio>

#include "FxText.h"

namespace fxview {

namespace {

std::string fixed(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string scaled(double value, const char* const* units, int count, double step) {
    int unit = 0;
    while (value >= step && unit + 1 < count) {
        value /= step;
        ++unit;
    }
    return (unit == 0 ? fixed(value, 0) : fixed(value, 2)) + units[unit];
}

std::string formatMicroseconds(double us) {
    return us < 1000 ? fixed(us, 1) + " us" : fixed(us / 1000, 2) + " ms";
}

} // namespace

NodeTimes timesOf(std::vector<double> samples) {
    NodeTimes t;
    if (samples.empty())
        return t;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    t.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    t.min = samples.front();
    t.max = samples.back();
    t.runs = static_cast<int>(n);
    return t;
}

double CostTable::totalUs() const {
    double total = 0;
    for (const CostRow& r : rows)
        total += r.time.median;
    return total;
}

std::int64_t CostTable::totalFlops() const {
    std::int64_t total = 0;
    for (const CostRow& r : rows)
        total += r.flops;
    return total;
}

int CostTable::peak() const {
    int at = -1;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (at < 0 || rows[i].liveBytes > rows[static_cast<std::size_t>(at)].liveBytes)
            at = static_cast<int>(i);
    return at;
}

CostTable makeCostTable(const Graph& graph,
                        const std::function<const NodeRecord*(const std::string&)>& record,
                        const std::unordered_map<std::string, std::vector<double>>& times, int runs,
                        bool showHidden) {
    CostTable table;
    table.runs = runs;
    graph.forEachNode([&](const Node& n, int) {
        if (n.hidden && !showHidden)
            return;
        CostRow row;
        row.node = n.name;
        row.op = opName(n.op);
        row.target = n.target;
        row.scope = n.scope;
        row.weight = (n.op == Op::Placeholder && !n.isInput()) || n.op == Op::GetAttr;
        if (const NodeRecord* r = record(n.name); r && r->state == NodeState::Done) {
            row.ran = true;
            row.bytes = r->newBytes;
            row.aliasKind = r->aliasKind;
            row.liveBytes = r->liveBytes;
            row.flops = r->flops;
            auto it = times.find(n.name);
            row.time = it != times.end() ? timesOf(it->second) : timesOf({r->timeUs});
        }
        table.rows.push_back(std::move(row));
    });
    return table;
}

void addOperators(CostTable& table, const OperatorsByNode& operators) {
    for (CostRow& row : table.rows) {
        auto it = operators.find(row.node);
        row.operators = it == operators.end() ? std::vector<OperatorTime>{} : it->second;
        row.operatorUs = 0;
        for (const OperatorTime& o : row.operators)
            row.operatorUs += o.selfUs + o.deviceUs;
    }
}

bool hasOperators(const CostTable& table) {
    for (const CostRow& row : table.rows)
        if (!row.operators.empty())
            return true;
    return false;
}

std::string costCsv(const CostTable& table) {
    std::string csv = "node,op,target,scope,time_us,bytes,live_bytes,flops\n";
    for (const CostRow& r : table.rows)
        csv += csvField(r.node) + "," + csvField(r.op) + "," + csvField(r.target) + "," +
               csvField(r.scope) + "," + fixed(r.time.median, 3) + "," + std::to_string(r.bytes) +
               "," + std::to_string(r.liveBytes) + "," + std::to_string(r.flops) + "\n";
    return csv;
}

std::string costText(const CostTable& table) {
    std::vector<std::vector<std::string>> rows = {
        {"name", "op", "target", "scope", "time", "spread", "share", "bytes", "live", "flops"}};
    const double total = table.totalUs();
    for (const CostRow& r : table.rows) {
        if (!r.ran) {
            rows.push_back({r.node, r.op, r.target, r.scope, "not run", "", "", "", "", ""});
            continue;
        }
        std::string bytes = r.aliasKind.empty() ? formatBytes(r.bytes) : r.aliasKind;
        rows.push_back({r.node, r.op, r.target, r.scope, formatMicroseconds(r.time.median),
                        r.time.runs > 1 ? formatMicroseconds(r.time.min) + " - " +
                                              formatMicroseconds(r.time.max)
                                        : "",
                        total > 0 ? fixed(100 * r.time.median / total, 1) + "%" : "", bytes,
                        formatBytes(r.liveBytes), formatFlops(r.flops)});
    }
    std::string text = alignColumns(rows);
    text += "total: " + formatMicroseconds(total) + " (the sum of each node's median over " +
            std::to_string(table.runs) + (table.runs == 1 ? " run" : " runs") + "), " +
            formatFlops(table.totalFlops()) + " FLOPs\n";
    if (int at = table.peak(); at >= 0) {
        const CostRow& peak = table.rows[static_cast<std::size_t>(at)];
        text += "peak live set: " + formatBytes(peak.liveBytes) + " after " + peak.node + "\n";
    }
    const PeakLive& p = table.peakLive;
    if (p.values.empty() || p.bytes <= 0)
        return text;
    text += "alive there, the largest first:\n";
    std::vector<std::vector<std::string>> alive;
    std::int64_t rest = 0;
    for (std::size_t i = 0; i < p.values.size(); ++i) {
        const LiveValue& v = p.values[i];
        if (i < kPeakValuesPrinted)
            alive.push_back(
                {"  " + v.node, formatBytes(v.bytes),
                 fixed(100.0 * static_cast<double>(v.bytes) / static_cast<double>(p.bytes), 1) +
                     "%"});
        else
            rest += v.bytes;
    }
    text += alignColumns(alive);
    if (p.values.size() > kPeakValuesPrinted)
        text += "  and " + std::to_string(p.values.size() - kPeakValuesPrinted) + " more, " +
                formatBytes(rest) + "\n";
    return text;
}

std::string formatBytes(std::int64_t bytes) {
    static const char* const units[] = {" B", " KiB", " MiB", " GiB", " TiB"};
    return scaled(static_cast<double>(bytes), units, 5, 1024);
}

std::string formatFlops(std::int64_t flops) {
    static const char* const units[] = {"", " K", " M", " G", " T", " P"};
    return scaled(static_cast<double>(flops), units, 6, 1000);
}

} // namespace fxview
