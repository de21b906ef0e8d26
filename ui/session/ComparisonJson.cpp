#include "session/ComparisonJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <limits>

namespace fxview {

namespace {

// A metric: a number, or "inf", "-inf", "nan" (JSON has none of those).
bool readNumber(const QJsonValue& v, double& out) {
    if (v.isDouble()) {
        out = v.toDouble();
        return true;
    }
    const QString s = v.toString();
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (s == "inf" || s == "-inf" || s == "nan") {
        out = s == "nan" ? std::numeric_limits<double>::quiet_NaN() : s == "inf" ? inf : -inf;
        return true;
    }
    return false;
}

std::string text(const QJsonObject& o, const char* key) {
    return o.value(key).toString().toStdString();
}

bool readNames(const QJsonValue& v, std::vector<std::string>& out) {
    if (!v.isArray())
        return false;
    for (const QJsonValue& name : v.toArray()) {
        if (!name.isString())
            return false;
        out.push_back(name.toString().toStdString());
    }
    return true;
}

} // namespace

QString readComparison(const QByteArray& json, ComparisonReport& report, Metric& metric,
                       double& threshold) {
    QJsonParseError parsed;
    QJsonDocument doc = QJsonDocument::fromJson(json, &parsed);
    const QString broken = QStringLiteral("The comparison's result cannot be read (%1); run it "
                                          "again, or run fxtrace compare to see what it says.");
    if (parsed.error != QJsonParseError::NoError || !doc.isObject())
        return broken.arg(parsed.error != QJsonParseError::NoError ? parsed.errorString()
                                                                   : "not a JSON object");
    QJsonObject root = doc.object();
    if (root.value("format").toString() != "fxview.comparison" ||
        root.value("version").toInt() != 1)
        return broken.arg("not fxview.comparison version 1");
    ComparisonReport r;
    QJsonObject a = root.value("a").toObject(), b = root.value("b").toObject();
    r.modelA = text(a, "model");
    r.runA = text(a, "run");
    r.modelB = text(b, "model");
    r.runB = text(b, "run");
    r.local = root.value("local").toBool();
    r.failure = text(root, "failure");
    if (!metricFromName(text(root, "metric"), metric) ||
        !readNumber(root.value("threshold"), threshold))
        return broken.arg("no metric or threshold");
    if (!root.value("nodes").isArray() || !readNames(root.value("only_a"), r.onlyA) ||
        !readNames(root.value("only_b"), r.onlyB))
        return broken.arg("no list of nodes");
    for (const QJsonValue& v : root.value("nodes").toArray()) {
        QJsonObject o = v.toObject();
        NodeDifference n;
        n.node = text(o, "node");
        n.nodeB = text(o, "node_b");
        if (n.node.empty())
            return broken.arg("a node without a name");
        n.op = text(o, "op");
        n.target = text(o, "target");
        n.match = text(o, "match");
        n.compared = o.value("compared").toBool();
        n.mismatch = o.value("mismatch").toBool();
        n.note = text(o, "note");
        n.shapeA = text(o, "shape_a");
        n.shapeB = text(o, "shape_b");
        n.dtypeA = text(o, "dtype_a");
        n.dtypeB = text(o, "dtype_b");
        double elements = o.value("elements").toDouble();
        if (!(elements >= 0 && elements < 9e18)) // a cast of anything else is undefined
            return broken.arg(QString::fromStdString("node " + n.node + " has no element count"));
        n.elements = static_cast<std::int64_t>(elements);
        for (int m = 0; m < kMetricCount; ++m) {
            double value = 0;
            if (!readNumber(o.value(metricName(static_cast<Metric>(m))), value))
                return broken.arg(QString::fromStdString("node " + n.node + " has no " +
                                                         metricName(static_cast<Metric>(m))));
            n.setMetric(static_cast<Metric>(m), value);
        }
        r.nodes.push_back(std::move(n));
    }
    report = std::move(r);
    return {};
}

} // namespace fxview
