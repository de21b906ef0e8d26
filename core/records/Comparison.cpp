#include "Comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "FxText.h"
#include "JsonWriter.h"

namespace fxview {

namespace {

struct MetricInfo {
    Metric metric;
    const char* name;
    const char* title;
    double threshold;
};

constexpr MetricInfo kMetrics[kMetricCount] = {
    {Metric::MaxAbs, "max_abs", "max |a-b|", 1e-3},
    {Metric::MeanAbs, "mean_abs", "mean |a-b|", 1e-4},
    {Metric::RelL2, "rel_l2", "relative L2", 1e-3},
    {Metric::Cosine, "cosine", "cosine", 0.99999},
    {Metric::Sqnr, "sqnr", "SQNR (dB)", 60},
};

const MetricInfo& info(Metric metric) {
    return kMetrics[static_cast<int>(metric)];
}

// JSON has no inf or nan: those travel as strings Python's float() reads.
void writeMetric(JsonWriter& json, double value) {
    if (std::isfinite(value))
        json.value(value);
    else
        json.value(std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
}

} // namespace

std::string checkCompareDtype(const std::string& dtype) {
    if (dtype.empty() || dtype == "bfloat16" || dtype == "float16" || dtype == "float64" ||
        dtype == "float32")
        return {};
    return "Run B's dtype is bfloat16, float16, float64 or float32, not '" + dtype + "'.";
}

const char* metricName(Metric metric) {
    return info(metric).name;
}

const char* metricTitle(Metric metric) {
    return info(metric).title;
}

bool metricFromName(const std::string& name, Metric& metric) {
    for (const MetricInfo& m : kMetrics)
        if (name == m.name) {
            metric = m.metric;
            return true;
        }
    return false;
}

double defaultThreshold(Metric metric) {
    return info(metric).threshold;
}

bool lowerIsWorse(Metric metric) {
    return metric == Metric::Cosine || metric == Metric::Sqnr;
}

double NodeDifference::metric(Metric m) const {
    switch (m) {
    case Metric::MaxAbs:
        return maxAbs;
    case Metric::MeanAbs:
        return meanAbs;
    case Metric::RelL2:
        return relL2;
    case Metric::Cosine:
        return cosine;
    case Metric::Sqnr:
        return sqnr;
    }
    return 0;
}

void NodeDifference::setMetric(Metric m, double value) {
    switch (m) {
    case Metric::MaxAbs:
        maxAbs = value;
        break;
    case Metric::MeanAbs:
        meanAbs = value;
        break;
    case Metric::RelL2:
        relL2 = value;
        break;
    case Metric::Cosine:
        cosine = value;
        break;
    case Metric::Sqnr:
        sqnr = value;
        break;
    }
}

bool NodeDifference::diverges(Metric m, double threshold) const {
    if (mismatch)
        return true;
    if (!compared)
        return false;
    double v = metric(m);
    if (std::isnan(v))
        return true;
    if (m == Metric::Sqnr) // +inf is "no noise at all"
        return v < threshold;
    if (!std::isfinite(v))
        return true;
    return lowerIsWorse(m) ? v < threshold : v > threshold;
}

int ComparisonReport::firstDivergence(Metric metric, double threshold) const {
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].diverges(metric, threshold))
            return static_cast<int>(i);
    return -1;
}

std::string formatMetric(double value, Metric metric) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, metric == Metric::Cosine ? "%.7g" : "%.4g", value);
    return buf;
}

std::string formatComparison(const ComparisonReport& report, Metric metric, double threshold) {
    std::vector<std::vector<std::string>> rows = {
        {"node", "op", "max_abs", "mean_abs", "rel_l2", "cosine", "sqnr_db", "note"}};
    for (const NodeDifference& n : report.nodes) {
        std::string name = n.node == n.nodeB ? n.node : n.node + " ~ " + n.nodeB;
        std::string note = n.note;
        if (n.diverges(metric, threshold))
            note = note.empty() ? "diverges" : "diverges: " + note;
        if (!n.compared) {
            rows.push_back({name, n.op, "-", "-", "-", "-", "-", note});
            continue;
        }
        rows.push_back({name, n.op, formatMetric(n.maxAbs), formatMetric(n.meanAbs),
                        formatMetric(n.relL2), formatMetric(n.cosine, Metric::Cosine),
                        formatMetric(n.sqnr), note});
    }
    std::string out = alignColumns(rows);
    auto list = [&](const char* title, const std::vector<std::string>& names) {
        if (names.empty())
            return;
        out += title;
        for (std::size_t i = 0; i < names.size(); ++i)
            out += (i ? ", " : " ") + names[i];
        out += "\n";
    };
    list("Only in A:", report.onlyA);
    list("Only in B:", report.onlyB);
    return out + divergenceLine(report, metric, threshold) + "\n";
}

std::string divergenceLine(const ComparisonReport& report, Metric metric, double threshold) {
    int first = report.firstDivergence(metric, threshold);
    if (first < 0)
        return "No divergence above " + formatMetric(threshold, metric) + " (" +
               metricName(metric) + ")";
    const NodeDifference& n = report.nodes[static_cast<std::size_t>(first)];
    return "First divergence: " + n.node + " (" +
           (n.compared
                ? std::string(metricName(metric)) + " " + formatMetric(n.metric(metric), metric)
                : n.note) +
           ")";
}

std::string comparisonToJson(const ComparisonReport& report, Metric metric, double threshold) {
    JsonWriter json;
    json.beginObject().key("format").value("fxview.comparison").key("version").value(1);
    json.key("a").beginObject().key("model").value(report.modelA).key("run").value(report.runA);
    json.endObject();
    json.key("b").beginObject().key("model").value(report.modelB).key("run").value(report.runB);
    json.endObject();
    json.key("local").value(report.local);
    json.key("metric").value(metricName(metric)).key("threshold").value(threshold);
    json.key("first_divergence");
    if (int first = report.firstDivergence(metric, threshold); first >= 0)
        json.value(report.nodes[static_cast<std::size_t>(first)].node);
    else
        json.null();
    json.key("failure").value(report.failure);
    json.key("nodes").beginArray();
    for (const NodeDifference& n : report.nodes) {
        json.beginObject().key("node").value(n.node).key("node_b").value(n.nodeB);
        json.key("op").value(n.op).key("target").value(n.target).key("match").value(n.match);
        json.key("compared").value(n.compared).key("mismatch").value(n.mismatch);
        json.key("note").value(n.note);
        json.key("shape_a").value(n.shapeA).key("shape_b").value(n.shapeB);
        json.key("dtype_a").value(n.dtypeA).key("dtype_b").value(n.dtypeB);
        json.key("elements").value(n.elements);
        for (const MetricInfo& m : kMetrics) {
            json.key(m.name);
            writeMetric(json, n.metric(m.metric));
        }
        json.endObject();
    }
    json.endArray();
    for (const auto& [key, names] :
         {std::pair{"only_a", &report.onlyA}, std::pair{"only_b", &report.onlyB}}) {
        json.key(key).beginArray();
        for (const std::string& name : *names)
            json.value(name);
        json.endArray();
    }
    json.endObject();
    return json.text() + "\n";
}

} // namespace fxview
