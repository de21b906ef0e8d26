// The Comparison dock on its own, and the comparison run the window starts: the table of a
// report (graph order, sorting by how different, the first divergence), Go to First Divergence,
// the colours the graph takes (equal, a scale, not finite) for each metric and threshold, and the
// JSON an engine answers with read back (broken JSON refused). tst_debugsession runs a real
// comparison through an engine.

#include <QApplication>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>

#include "Comparison.h"
#include "panels/ComparisonPanel.h"
#include "session/ComparisonJson.h"

using namespace fxview;

namespace {

NodeDifference compared(const std::string& name, double relL2) {
    NodeDifference n;
    n.node = n.nodeB = name;
    n.op = "call_function";
    n.compared = true;
    n.elements = 4;
    n.relL2 = relL2;
    n.maxAbs = relL2 * 2;
    n.meanAbs = relL2;
    n.cosine = 1 - relL2 * relL2 / 2;
    n.sqnr = relL2 > 0 ? -20 * std::log10(relL2) : INFINITY;
    return n;
}

// x equal, a small difference, then one past the default threshold, a NaN, a larger one.
ComparisonReport sampleReport() {
    ComparisonReport r;
    r.modelA = "a.pt";
    r.modelB = "b.pt";
    r.runA = "weights as saved, input 3x4 (seed 0)";
    r.runB = "bfloat16 weights, input 3x4 (seed 0)";
    r.nodes = {compared("x", 0), compared("fc1", 1e-5), compared("relu", 2e-3),
               compared("log", NAN), compared("fc2", 0.5)};
    r.onlyB = {"quantize_per_tensor"};
    return r;
}

int rowOf(QTableWidget* table, const QString& node) {
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0)->text() == node)
            return row;
    return -1;
}

} // namespace

class TestComparisonPanel : public QObject {
    Q_OBJECT
private slots:
    void tableInGraphOrderWithFirstDivergence() {
        ComparisonPanel panel;
        panel.setReport(sampleReport(), Metric::RelL2, 1e-3);
        QTableWidget* t = panel.table();
        QCOMPARE(t->rowCount(), 5);
        QStringList order;
        for (int row = 0; row < 5; ++row)
            order << t->item(row, 0)->text();
        QCOMPARE(order, (QStringList{"x", "fc1", "relu", "log", "fc2"}));
        QVERIFY(t->item(rowOf(t, "relu"), 0)->font().bold());
        QVERIFY(panel.statusText().startsWith("First divergence: relu (rel_l2 0.002)"));
        QVERIFY(panel.statusText().contains("Only in B: quantize_per_tensor"));
        QVERIFY(t->item(rowOf(t, "log"), 2 + kMetricCount)->text().startsWith("diverges"));

        QSignalSpy chosen(&panel, &ComparisonPanel::nodeChosen);
        QVERIFY(panel.goToFirstDivergence());
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).toString(), QString("relu"));
        QCOMPARE(t->selectedItems().first()->row(), rowOf(t, "relu"));

        // A threshold past relu's: the NaN is next; past everything finite: still the NaN.
        panel.setThreshold(0.01);
        QVERIFY(panel.statusText().startsWith("First divergence: log (rel_l2 nan)"));
        panel.setThreshold(1);
        QVERIFY(panel.goToFirstDivergence());
        QCOMPARE(chosen.last().at(0).toString(), QString("log"));
    }

    void noDivergence() {
        ComparisonReport r = sampleReport();
        r.nodes.resize(2); // x and fc1
        ComparisonPanel panel;
        panel.setReport(r, Metric::RelL2, 1e-3);
        QVERIFY(!panel.goToFirstDivergence());
        QVERIFY(panel.statusText().startsWith("No divergence above 0.001 (rel_l2)"));
    }

    void sortsByHowDifferent() {
        ComparisonPanel panel;
        panel.setReport(sampleReport(), Metric::RelL2, 1e-3);
        QTableWidget* t = panel.table();
        // Cosine's column sorts by 1 - cosine: descending puts the NaN, then fc2, on top.
        int cosine = 2 + static_cast<int>(Metric::Cosine);
        t->sortByColumn(cosine, Qt::DescendingOrder);
        QCOMPARE(t->item(0, 0)->text(), QString("log"));
        QCOMPARE(t->item(1, 0)->text(), QString("fc2"));
        QCOMPARE(t->item(4, 0)->text(), QString("x"));
        int rel = 2 + static_cast<int>(Metric::RelL2);
        t->sortByColumn(rel, Qt::AscendingOrder);
        QCOMPARE(t->item(0, 0)->text(), QString("x"));
        QCOMPARE(t->item(3, 0)->text(), QString("fc2"));
        // A new threshold keeps the person's sort.
        panel.setThreshold(0.1);
        QCOMPARE(t->item(0, 0)->text(), QString("x"));
    }

    void coloursByMetric() {
        ComparisonPanel panel;
        ComparisonReport r = sampleReport();
        panel.setReport(r, Metric::RelL2, 1e-3);
        QColor equal = panel.colourOf(r.nodes[0]), small = panel.colourOf(r.nodes[1]);
        QColor nan = panel.colourOf(r.nodes[3]), large = panel.colourOf(r.nodes[4]);
        QVERIFY(equal.green() > equal.red());           // pale green
        QVERIFY(nan.red() > 200 && nan.blue() > 100);   // magenta
        QVERIFY(large.lightness() < small.lightness()); // the scale darkens
        QList<QPair<QString, QColor>> marks = panel.nodeMarks();
        QCOMPARE(marks.size(), 5);
        QCOMPARE(marks.first().first, QString("x"));
        QCOMPARE(marks.last().first, QString("log")); // the worst wins a shared box
        // SQNR: its own default threshold, and lower is worse (fc2's 6 dB is the darkest).
        QSignalSpy changed(&panel, &ComparisonPanel::marksChanged);
        panel.setMetric(Metric::Sqnr);
        QCOMPARE(panel.threshold(), 60.0);
        QCOMPARE(changed.count(), 1);
        QVERIFY(panel.colourOf(r.nodes[4]).lightness() < panel.colourOf(r.nodes[2]).lightness());
        QVERIFY(panel.statusText().startsWith("First divergence: relu (sqnr 53.98)"));
        // A mismatch (shapes that differ) is magenta whatever the metric.
        NodeDifference shapes;
        shapes.node = "cat";
        shapes.mismatch = true;
        QCOMPARE(panel.colourOf(shapes), nan);
    }

    void jsonReadBack() {
        ComparisonReport r = sampleReport();
        r.nodes[4].nodeB = "fc2_1";
        r.nodes[4].match = "scope order";
        r.local = true;
        std::string json = comparisonToJson(r, Metric::MeanAbs, 5e-4);
        ComparisonReport back;
        Metric metric = Metric::RelL2;
        double threshold = 0;
        QCOMPARE(readComparison(QByteArray::fromStdString(json), back, metric, threshold),
                 QString());
        QCOMPARE(metric, Metric::MeanAbs);
        QCOMPARE(threshold, 5e-4);
        QVERIFY(back.local);
        QCOMPARE(back.nodes.size(), r.nodes.size());
        QCOMPARE(back.onlyB, r.onlyB);
        QCOMPARE(back.nodes[4].nodeB, std::string("fc2_1"));
        QCOMPARE(back.nodes[4].match, std::string("scope order"));
        QVERIFY(std::isnan(back.nodes[3].relL2));
        QVERIFY(std::isinf(back.nodes[0].sqnr));
        for (std::size_t i = 0; i < r.nodes.size(); ++i)
            for (int m = 0; m < kMetricCount; ++m) {
                double a = r.nodes[i].metric(static_cast<Metric>(m));
                double b = back.nodes[i].metric(static_cast<Metric>(m));
                QVERIFY2((std::isnan(a) && std::isnan(b)) || a == b, metricName(Metric(m)));
            }
        for (const char* broken : {"", "[1, 2]", "{\"format\": \"fxview.graph\", \"version\": 1}",
                                   "{\"format\": \"fxview.comparison\", \"version\": 1, "
                                   "\"metric\": \"rel_l2\", \"threshold\": 0.001, \"nodes\": "
                                   "[{\"node\": \"x\"}], \"only_a\": [], \"only_b\": []}"}) {
            QString error = readComparison(broken, back, metric, threshold);
            QVERIFY2(error.startsWith("The comparison's result cannot be read ("), broken);
        }
    }
};

QTEST_MAIN(TestComparisonPanel)
#include "tst_comparisonpanel.moc"
