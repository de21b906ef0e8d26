// The window's Cost dock with real engines (issue 51): Run ▸ Profile… in fxview-engine and in the
// root's Python engine times every node over the runs; the table the dock exports holds the
// figures fxtrace writes for the same model and input; Colour by FLOPs gives a closed scope's box
// the sum of its nodes, and File ▸ Export writes those colours and figures; a click on the
// strip's peak selects that node, and the list of what is alive there is fxtrace's; Pause stops a
// long profile with a sentence and the window runs on; Import Trace… lays a person's own
// torch.profiler trace onto the nodes.

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>

#include "CostTable.h"
#include "WindowSupport.h"
#include "engineclient/EngineClient.h"
#include "engineclient/PythonEngine.h"
#include "panels/CostPanel.h"
#include "panels/MemoryStrip.h"
#include "panels/PeakList.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

std::unique_ptr<MainWindow> windowWith(const QStringList& command) {
    EngineSettings settings;
    settings.engineCommand = command;
    settings.engineGiven = !command.isEmpty();
    EngineClient::setSettings(settings);
    auto window = std::make_unique<MainWindow>();
    window->show();
    return window;
}

// Profiles and waits for the answer and the last run: the sentence ("" when every run ended).
QString profiled(MainWindow& window, int runs, bool operators = false) {
    QSignalSpy answered(window.session(), &DebugSession::profiled);
    window.profile(runs, operators);
    if (!answered.wait(scaled(300000)) || !settle(window))
        return "no answer";
    return answered.front().value(0).toString();
}

// The CSV's rows by node, each without its time (which no two runs share).
QMap<QString, QString> untimed(const QByteArray& csv) {
    QMap<QString, QString> rows;
    for (const QByteArray& line : csv.split('\n').mid(1)) {
        QList<QByteArray> cells = line.split(',');
        if (cells.size() != 8)
            continue;
        cells.removeAt(4);
        rows.insert(QString::fromUtf8(cells[0]), QString::fromUtf8(cells.join(',')));
    }
    return rows;
}

} // namespace

class TestWindowCost : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // remembered settings stay the test's
        QSettings().clear();
    }
    void cleanup() { EngineClient::setSettings({}); }

    void profilesInTheCppEngine() {
        auto window = windowWith({});
        QVERIFY(open(*window, "example:smallcnn"));
        QCOMPARE(profiled(*window, 3), QString());
        QCOMPARE(window->session()->profileRuns(), 3);
        CostPanel* cost = window->costPanel();
        QVERIFY(cost->isVisible() && window->memoryStrip()->isVisible());
        QCOMPARE(cost->table().runs, 3);
        int timed = 0;
        for (const CostRow& row : cost->table().rows)
            if (row.ran) {
                QCOMPARE(row.time.runs, 3);
                QVERIFY(row.time.min <= row.time.median && row.time.median <= row.time.max);
                ++timed;
            }
        QVERIFY(timed > 10);
        QCOMPARE(cost->measure(), CostMeasure::Time); // a profile colours the graph by time
        QVERIFY(window->statusText().contains("finished"));

        // The dock's export: fxtrace's figures for the same model and input.
        QTemporaryDir dir;
        QCOMPARE(cost->exportCsv(dir.filePath("window.csv")), QString());
        const std::vector<std::int64_t>& shape = window->run().inputs.at(0).shape;
        QStringList sizes;
        for (std::int64_t s : shape)
            sizes << QString::number(s);
        FxtraceRun run =
            fxtrace({"run", "example:smallcnn", "--input", sizes.join('x'), "--csv",
                     dir.filePath("fxtrace.csv"), "--json", dir.filePath("fxtrace.json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(untimed(readFile(dir.filePath("window.csv").toStdString())),
                 untimed(readFile(dir.filePath("fxtrace.csv").toStdString())));

        // A click on the strip's peak selects the node the live set peaks after.
        MemoryStrip* strip = window->memoryStrip();
        const QString peak = strip->nodes().at(strip->peakIndex());
        int x = 0;
        while (x < strip->width() && strip->nodeAt(x) != peak)
            ++x;
        QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(x, strip->height() / 2));
        QCOMPARE(window->selectedNode(), window->scene()->drawnAs(peak));

        // What is alive there, the largest first: fxtrace's peak_live for the same run.
        const QJsonObject written =
            QJsonDocument::fromJson(readFile(dir.filePath("fxtrace.json").toStdString()))
                .object()["peak_live"]
                .toObject();
        QCOMPARE(written["node"].toString(), peak);
        QTableWidget* alive = cost->peakList()->tableWidget();
        const QJsonArray values = written["values"].toArray();
        QVERIFY(values.size() > 1);
        QCOMPARE(alive->rowCount(), values.size());
        for (int i = 0; i < values.size(); ++i) {
            QCOMPARE(alive->item(i, 0)->text(), values[i].toObject()["node"].toString());
            QCOMPARE(alive->item(i, 1)->text(), QString::fromStdString(formatBytes(
                                                    values[i].toObject()["bytes"].toInteger())));
        }
        alive->selectRow(1);
        QCOMPARE(window->selectedNode(), window->scene()->drawnAs(alive->item(1, 0)->text()));

        // Colour by FLOPs with every scope closed: the block's box is the sum of its convolutions.
        cost->setMeasure(CostMeasure::Flops);
        window->collapseToDepth(0);
        QTRY_VERIFY(window->scene()->drawnAs("block_conv1") != "block_conv1");
        std::int64_t block = 0;
        for (const CostRow& row : cost->table().rows)
            if (row.scope == "block")
                block += row.flops;
        QVERIFY(block > 0);
        NodeItem* box = window->scene()->nodeItem(window->scene()->drawnAs("block_conv1"));
        QVERIFY(box && box->mark().isValid());
        QCOMPARE(box->markNote(), QString::fromStdString(formatFlops(block)) + " FLOPs");
        // File ▸ Export writes the coloured picture, each box's figure with it.
        QCOMPARE(window->exportTo(dir.filePath("cost.svg")), QString());
        const QByteArray svg = readFile(dir.filePath("cost.svg").toStdString());
        QVERIFY(svg.contains(box->markNote().toUtf8()));
        QVERIFY(svg.contains(box->mark().name().toUtf8()));
        cost->setMeasure(CostMeasure::None);
        QVERIFY(!box->mark().isValid() && box->markNote().isEmpty());

        // fxview-engine has no torch.profiler: it says so, and times the runs all the same.
        QCOMPARE(profiled(*window, 1, true), QString());
        QVERIFY(window->session()->profileOperatorsNote().contains("no torch.profiler"));
        QVERIFY(window->session()->profileOperators().empty());
        QCOMPARE(window->session()->profileRuns(), 1);
        QVERIFY(!window->exportTrace(dir.filePath("none.json")).isEmpty());
        QVERIFY(!QFileInfo::exists(dir.filePath("none.json")));
    }

    // Import Trace…: a trace the person made of ep.module() with torch.profiler, laid onto the
    // nodes in fxview-engine (no torch.profiler of its own): every node that calls an ATen
    // operator shows it in the Operators column, and linear its addmm; a file that is no trace
    // gets a sentence and the column stays as it was.
    void importsAPersonsTrace() {
        QTemporaryDir dir;
        const QString trace = dir.filePath("theirs.json");
        QProcess writer;
        writer.start(FXVIEW_PYTHON_PATH,
                     {"-c",
                      "import sys, torch; ep = torch.export.load(sys.argv[1]); m = ep.module(); "
                      "a, k = ep.example_inputs; m(*a, **k)\n"
                      "with torch.profiler.profile() as prof: m(*a, **k)\n"
                      "prof.export_chrome_trace(sys.argv[2])",
                      QString::fromStdString(fixture("transformer_block.pt2")), trace});
        QVERIFY2(writer.waitForFinished(120000) && writer.exitCode() == 0,
                 writer.readAllStandardError().constData());
        auto window = windowWith({});
        QVERIFY(open(*window, "transformer_block.pt2"));
        const QString bad = dir.filePath("bad.json");
        {
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("{\"traceEvents\": [{\"ph\": \"X\"");
        }
        bool laid = true;
        QVERIFY2(window->importTrace(bad, &laid).contains("its JSON breaks at byte"),
                 qPrintable(window->importTrace(bad)));
        QVERIFY(!laid);
        QVERIFY(window->costPanel()->tableWidget()->isColumnHidden(6)); // no operators shown
        const QString said = window->importTrace(trace, &laid);
        QVERIFY(laid);
        int callers = 0;
        window->session()->model().graph.forEachNode([&](const Node& n, int depth) {
            callers +=
                depth == 0 && n.op == Op::CallFunction && n.schema.find("::") != std::string::npos;
        });
        QVERIFY(callers >= 19); // transformer_block.pt2: its aten calls, getitems apart
        QVERIFY2(said.startsWith(QString("Laid theirs.json on %1 of %1 nodes").arg(callers)),
                 qPrintable(said));
        const CostTable& table = window->costPanel()->table();
        for (const CostRow& r : table.rows) {
            const Node* n = window->session()->model().graph.find(r.node);
            if (!n || n->op != Op::CallFunction || n->schema.find("::") == std::string::npos)
                continue;
            const std::string op = n->schema.substr(0, n->schema.find('.'));
            QVERIFY2(std::any_of(r.operators.begin(), r.operators.end(),
                                 [&](const OperatorTime& o) { return o.name == op; }),
                     r.node.c_str());
        }
        auto linear = std::find_if(table.rows.begin(), table.rows.end(),
                                   [](const CostRow& r) { return r.node == "linear"; });
        QVERIFY(linear != table.rows.end() && linear->operatorUs > 0);
        QVERIFY(std::any_of(linear->operators.begin(), linear->operators.end(),
                            [](const OperatorTime& o) { return o.name == "aten::addmm"; }));
        QVERIFY(!window->costPanel()->tableWidget()->isColumnHidden(6)); // Operators
        QCOMPARE(window->costPanel()->measure(), CostMeasure::Operators);
    }

    void profilesInThePythonEngineAndPauseStopsIt() {
        auto window = windowWith(pythonEngineCommand(FXVIEW_PYTHON_PATH));
        QVERIFY(open(*window, "transformer_block.pt2"));
        QCOMPARE(profiled(*window, 2), QString());
        QCOMPARE(window->session()->profileRuns(), 2);
        const CostTable& table = window->costPanel()->table();
        auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                [](const CostRow& r) { return r.node == "linear"; });
        QVERIFY(row != table.rows.end());
        QCOMPARE(row->time.runs, 2);
        // qkv: x [2, 8, 32] by a [96, 32] weight: 2 * 16 * 32 * 96.
        QCOMPARE(row->flops, std::int64_t{2 * 16 * 32 * 96});

        // With one run under torch.profiler first: each node's operators in the Operators
        // column, the ones its fxview:: range holds in the trace Export Trace… writes.
        QCOMPARE(profiled(*window, 2, true), QString());
        QCOMPARE(window->session()->profileRuns(), 2);
        QVERIFY(window->session()->profileOperatorsNote().isEmpty());
        QTemporaryDir dir;
        QCOMPARE(window->exportTrace(dir.filePath("trace.json")), QString());
        const QJsonArray events =
            QJsonDocument::fromJson(readFile(dir.filePath("trace.json").toStdString()))
                .object()["traceEvents"]
                .toArray();
        QJsonObject range;
        for (const QJsonValue& e : events)
            if (e.toObject()["name"].toString() == "fxview::linear")
                range = e.toObject();
        QVERIFY(!range.isEmpty());
        const double start = range["ts"].toDouble(), end = start + range["dur"].toDouble();
        QStringList inside;
        for (const QJsonValue& e : events) {
            const QJsonObject o = e.toObject();
            if (o["cat"].toString() == "cpu_op" && o["ts"].toDouble() >= start &&
                o["ts"].toDouble() + o["dur"].toDouble() <= end)
                inside << o["name"].toString();
        }
        QVERIFY2(inside.contains("aten::linear"), qPrintable(inside.join(' ')));
        const CostTable& profiledTable = window->costPanel()->table();
        auto linear = std::find_if(profiledTable.rows.begin(), profiledTable.rows.end(),
                                   [](const CostRow& r) { return r.node == "linear"; });
        QVERIFY(linear != profiledTable.rows.end() && !linear->operators.empty());
        for (const OperatorTime& o : linear->operators)
            QVERIFY2(inside.contains(QString::fromStdString(o.name)), o.name.c_str());
        QVERIFY(linear->operatorUs > 0);
        QVERIFY(!window->costPanel()->tableWidget()->isColumnHidden(6)); // Operators

        // Pause during a long profile: a sentence, the times of the runs that ended; a step
        // after it starts the run again and goes on.
        QSignalSpy answered(window->session(), &DebugSession::profiled);
        window->profile(10000);
        QTest::qWait(scaled(1500));
        window->engine()->interrupt();
        QVERIFY(answered.wait(scaled(60000)) && settle(*window));
        const QString sentence = answered.front().value(0).toString();
        QVERIFY2(sentence.contains("The profile was stopped after") &&
                     sentence.contains("of 10000 timed runs"),
                 qPrintable(sentence));
        QVERIFY(window->session()->profileRuns() < 10000);
        press(*window, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*window));
        QVERIFY2(window->statusText().contains("finished, outputs equal to ep.module()"),
                 qPrintable(window->statusText()));
        QCOMPARE(window->session()->profileRuns(), 0); // the times went with their run
    }
};

QTEST_MAIN(TestWindowCost)
#include "tst_window_cost.moc"
