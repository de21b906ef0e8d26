// The Cost dock and the live set's strip alone (docs/cost.md), on a run's records made here: the
// table's rows, order and figures, the colours and notes of boxes that stand for several nodes
// (sums, the live set's largest), the CSV it writes, the strip's peak and clicks; and the cost
// table's own arithmetic (medians, CSV quoting, units).

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "CostTable.h"
#include "panels/CostPanel.h"
#include "panels/MemoryStrip.h"
#include "panels/PeakList.h"
#include "panels/TableParts.h"

using namespace fxview;

namespace {

Node node(Op op, const std::string& name, const std::string& scope = "",
          PlaceholderKind kind = PlaceholderKind::Input) {
    Node n;
    n.op = op;
    n.name = name;
    n.target = name;
    n.scope = scope;
    n.placeholderKind = kind;
    return n;
}

NodeRecord ran(double us, std::int64_t bytes, std::int64_t live, std::int64_t flops,
               const std::string& alias = "") {
    NodeRecord r;
    r.state = NodeState::Done;
    r.runs = 1;
    r.timeUs = us;
    r.newBytes = bytes;
    r.aliasKind = alias;
    r.liveBytes = live;
    r.flops = flops;
    return r;
}

struct Run {
    Graph graph;
    std::unordered_map<std::string, NodeRecord> records;
    CostPanel::RecordLookup lookup() const {
        return [this](const std::string& n) {
            auto it = records.find(n);
            return it == records.end() ? nullptr : &it->second;
        };
    }
};

// w (a weight), x, conv and relu inside `block`, a view, add, output; `late` never ran.
Run sampleRun() {
    Run run;
    run.graph.nodes = {node(Op::Placeholder, "w", "", PlaceholderKind::Parameter),
                       node(Op::Placeholder, "x"),
                       node(Op::CallFunction, "conv", "block"),
                       node(Op::CallFunction, "relu", "block"),
                       node(Op::CallFunction, "flat"),
                       node(Op::CallFunction, "add"),
                       node(Op::CallFunction, "late"),
                       node(Op::Output, "output")};
    run.records = {{"w", ran(1, 4096, 0, 0)},
                   {"x", ran(2, 1000, 1000, 0)},
                   {"conv", ran(400, 2000, 3000, 9000)},
                   {"relu", ran(100, 0, 2000, 0, "in-place")},
                   {"flat", ran(5, 0, 2000, 0, "view")},
                   {"add", ran(50, 2000, 2000, 0)},
                   {"output", ran(1, 0, 0, 0)}};
    return run;
}

QString drawnAs(const QString& node) {
    return node == "conv" || node == "relu" ? QString("block") : node;
}

} // namespace

class TestCostPanel : public QObject {
    Q_OBJECT
private slots:
    void tableHasARowPerNodeThatRanSlowestFirst() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        QTableWidget* t = panel.tableWidget();
        QCOMPARE(t->rowCount(), 7); // every node but `late`
        QCOMPARE(t->item(0, 0)->text(), QString("conv"));
        QCOMPARE(t->item(0, 3)->text(), QString("400.0 µs"));
        // Its share of the whole: 400 of 559 µs.
        QCOMPARE(t->item(0, 5)->text(), QString("71.6%"));
        QList<QTableWidgetItem*> relu = t->findItems("relu", Qt::MatchExactly);
        QCOMPARE(relu.size(), 1);
        QCOMPARE(t->item(relu.front()->row(), 7)->text(), QString("in-place")); // Memory
        QVERIFY(panel.statusText().contains("Peak live set 2.93 KiB after conv"));
        // Sorting by Memory, largest first, puts the weight on top.
        t->sortItems(7, Qt::DescendingOrder);
        QCOMPARE(t->item(0, 0)->text(), QString("w"));
    }

    void profiledTimesAreMediansWithTheirSpread() {
        Run run = sampleRun();
        CostPanel panel;
        CostPanel::NodeTimesByName times = {{"conv", {30, 10, 20, 1000}}, {"add", {5, 7, 6}}};
        panel.showRun(run.graph, run.lookup(), times, 4);
        QCOMPARE(panel.table().runs, 4);
        const CostRow& conv = panel.table().rows[2];
        QCOMPARE(conv.node, std::string("conv"));
        QCOMPARE(conv.time.median, 25.0);
        QCOMPARE(conv.time.min, 10.0);
        QCOMPARE(conv.time.max, 1000.0);
        QList<QTableWidgetItem*> item = panel.tableWidget()->findItems("conv", Qt::MatchExactly);
        QCOMPARE(panel.tableWidget()->item(item.front()->row(), 4)->text(),
                 QString("0.01 – 1.00 ms"));
        QVERIFY(panel.statusText().contains("medians over 4 runs"));
    }

    void aBoxForSeveralNodesTakesTheirSumOrLargestLiveSet() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        QSignalSpy changed(&panel, &CostPanel::measureChanged);
        panel.setMeasure(CostMeasure::Time);
        QCOMPARE(changed.count(), 1);
        QHash<QString, double> figures;
        for (const auto& [box, f] : panel.boxFigures(drawnAs))
            figures.insert(box, f);
        QCOMPARE(figures.value("block"), 500.0);
        QVERIFY(!figures.contains("conv") && !figures.contains("late"));
        panel.setMeasure(CostMeasure::LiveSet);
        figures.clear();
        for (const auto& [box, f] : panel.boxFigures(drawnAs))
            figures.insert(box, f);
        QCOMPARE(figures.value("block"), 3000.0);
        // Colours: the largest red, 0 grey; a note says each box's figure.
        panel.setMeasure(CostMeasure::Flops);
        QHash<QString, QColor> marks;
        for (const auto& [box, colour] : panel.boxMarks(drawnAs))
            marks.insert(box, colour);
        QCOMPARE(marks.value("block"), heatColour(1));
        QCOMPARE(marks.value("add"), QColor(0xe4, 0xe4, 0xe4));
        QCOMPARE(panel.boxNotes(drawnAs).value("block"), QString("9.00 K FLOPs"));
        QVERIFY(!panel.boxNotes(drawnAs).contains("add")); // its grey says 0
        panel.setMeasure(CostMeasure::None);
        QVERIFY(panel.boxMarks(drawnAs).isEmpty());
    }

    void aRowSaysWhichNodeAndTheExportIsTheTable() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        QSignalSpy chosen(&panel, &CostPanel::nodeChosen);
        panel.tableWidget()->selectRow(0);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.front().value(0).toString(), QString("conv"));
        panel.showNode("add"); // the graph's selection: no echo back
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(panel.tableWidget()->item(panel.tableWidget()->currentRow(), 0)->text(),
                 QString("add"));
        QTemporaryDir dir;
        const QString path = dir.filePath("cost.csv");
        QCOMPARE(panel.exportCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray csv = file.readAll();
        QCOMPARE(csv, QByteArray::fromStdString(costCsv(panel.table())));
        QVERIFY(csv.startsWith("node,op,target,scope,time_us,bytes,live_bytes,flops\n"));
        QVERIFY(csv.contains("\nconv,call_function,conv,block,400.000,2000,3000,9000\n"));
        QVERIFY(csv.contains("\nlate,call_function,late,,0.000,0,0,0\n"));
        QVERIFY(!panel.exportCsv(dir.filePath("no/such/folder/cost.csv")).isEmpty());
    }

    void theStripShowsTheLiveSetAndItsPeak() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        MemoryStrip strip;
        strip.resize(400, 80);
        strip.setTable(panel.table());
        // The weight and the node that did not run have no point.
        QCOMPARE(strip.nodes(), QStringList({"x", "conv", "relu", "flat", "add", "output"}));
        QCOMPARE(strip.peakIndex(), 1);
        QSignalSpy chosen(&strip, &MemoryStrip::nodeChosen);
        QTest::mouseClick(&strip, Qt::LeftButton, {}, QPoint(2, 40));
        QTest::mouseClick(&strip, Qt::LeftButton, {}, QPoint(398, 40));
        QCOMPARE(chosen.count(), 2);
        QCOMPARE(chosen[0].value(0).toString(), QString("x"));
        QCOMPARE(chosen[1].value(0).toString(), QString("output"));
        QImage picture(strip.size(), QImage::Format_ARGB32);
        strip.render(&picture); // paints without a model too
    }

    void theLargestValuesAliveAtThePeakComeFirst() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        PeakLive peak{"conv", 3000, {{"conv", 2000}, {"x", 1000}, {"flat", 0}}};
        panel.showPeak(peak, true);
        QTableWidget* list = panel.peakList()->tableWidget();
        QCOMPARE(list->rowCount(), 3);
        QCOMPARE(list->item(0, 0)->text(), QString("conv"));
        QCOMPARE(list->item(0, 1)->text(), QString("1.95 KiB"));
        QCOMPARE(list->item(0, 2)->text(), QString("66.7%"));
        QCOMPARE(list->item(2, 0)->text(), QString("flat"));
        QVERIFY(panel.peakList()->heading().contains("2.93 KiB after conv: 3 values"));
        QSignalSpy chosen(&panel, &CostPanel::nodeChosen);
        list->selectRow(1);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.front().value(0).toString(), QString("x"));
        // The text table lists them under the peak, the largest first, at most ten.
        CostTable table = panel.table();
        for (int i = 0; i < 12; ++i)
            table.peakLive.values.push_back({"v" + std::to_string(i), 0});
        const std::string text = costText(table);
        QVERIFY(text.find("alive there, the largest first:\n  conv  1.95 KiB  66.7%\n") !=
                std::string::npos);
        QVERIFY(text.find("  and 5 more, 0 B\n") != std::string::npos);
        panel.showPeak({}, true); // a new run: nothing yet
        QCOMPARE(list->rowCount(), 0);
        panel.showPeak(peak, false);
        QVERIFY(panel.peakList()->heading().contains("module stepped into"));
    }

    void theProfilersOperatorsHaveTheirColumn() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(run.graph, run.lookup(), {}, 1);
        QTableWidget* table = panel.tableWidget();
        const int column = 6;
        QCOMPARE(table->horizontalHeaderItem(column)->text(), QString("Operators"));
        QVERIFY(table->isColumnHidden(column)); // no profiler run: no column
        panel.showOperators({{"conv", {{"aten::convolution", 30, 0, 1}, {"aten::empty", 2, 0, 3}}},
                             {"add", {{"aten::add", 5, 1.5, 1}}}},
                            true);
        QVERIFY(!table->isColumnHidden(column));
        QList<QTableWidgetItem*> conv = table->findItems("conv", Qt::MatchExactly);
        QVERIFY(!conv.isEmpty());
        QTableWidgetItem* cell = table->item(conv.front()->row(), column);
        QCOMPARE(cell->text(), QString("32.0 µs"));
        QCOMPARE(cell->toolTip(), QString("aten::convolution  30.0 µs\naten::empty  2.0 µs (3 "
                                          "calls)"));
        panel.setMeasure(CostMeasure::Operators);
        QCOMPARE(CostPanel::figure(panel.table().rows[3], CostMeasure::Operators), 0.0);
        auto byName = [](const QString& n) { return n; };
        QHash<QString, QString> notes = panel.boxNotes(byName);
        QCOMPARE(notes.value("conv"), QString("32.0 µs"));
        QCOMPARE(notes.value("add"), QString("6.5 µs"));
        QVERIFY(!notes.contains("relu"));
        panel.showOperators({}, false); // a new run: gone
        QVERIFY(table->isColumnHidden(column));
    }

    // Import Trace… before any run: the rows with operators show them, the title says whose
    // they are, and the graph takes their colours; the other figures wait for a run.
    void anImportedTracesOperatorsNeedNoRun() {
        Run run = sampleRun();
        CostPanel panel;
        panel.showRun(
            run.graph, [](const std::string&) { return nullptr; }, {}, 1);
        QTableWidget* table = panel.tableWidget();
        QCOMPARE(table->rowCount(), 0);
        panel.showOperators(
            {{"conv", {{"aten::convolution", 30, 0, 1}}}, {"late", {{"aten::add", 4, 0, 1}}}},
            false);
        QCOMPARE(table->rowCount(), 2);
        QVERIFY(!table->isColumnHidden(6));
        QVERIFY2(panel.findChild<QLabel*>() &&
                     panel.findChild<QLabel*>()->text().contains("the imported trace's"),
                 qPrintable(panel.findChild<QLabel*>()->text()));
        QList<QTableWidgetItem*> conv = table->findItems("conv", Qt::MatchExactly);
        QVERIFY(!conv.isEmpty());
        QCOMPARE(table->item(conv.front()->row(), 6)->text(), QString("30.0 µs"));
        QCOMPARE(table->item(conv.front()->row(), 3)->text(), QString()); // no time yet
        panel.setMeasure(CostMeasure::Operators);
        QList<QPair<QString, QColor>> marks = panel.boxMarks(drawnAs);
        QCOMPARE(marks.size(), 2); // block (conv) and late
        panel.setMeasure(CostMeasure::Time);
        QVERIFY(panel.boxMarks(drawnAs).isEmpty()); // nothing ran
    }

    void costTableArithmetic() {
        QCOMPARE(timesOf({3, 1, 2}).median, 2.0);
        QCOMPARE(timesOf({4, 1, 3, 2}).median, 2.5);
        QCOMPARE(timesOf({}).runs, 0);
        QCOMPARE(formatBytes(512), std::string("512 B"));
        QCOMPARE(formatBytes(1536), std::string("1.50 KiB"));
        QCOMPARE(formatBytes(std::int64_t{3} << 30), std::string("3.00 GiB"));
        QCOMPARE(formatFlops(950), std::string("950"));
        QCOMPARE(formatFlops(3600000000), std::string("3.60 G"));
        CostTable table;
        CostRow row;
        row.node = "a,b";
        row.op = "call_function";
        row.target = "say \"hi\"";
        table.rows.push_back(row);
        QCOMPARE(costCsv(table), std::string("node,op,target,scope,time_us,bytes,live_bytes,flops\n"
                                             "\"a,b\",call_function,\"say \"\"hi\"\"\",,0.000,0,"
                                             "0,0\n"));
    }
};

QTEST_MAIN(TestCostPanel)
#include "tst_costpanel.moc"
