// The window, offscreen, against a live Python session (python/fxview/live.py run by the root's
// python3 on tests/fixtures/live_models.py): the graph shown is the one torch.fx traced, its
// text equals print(traced.graph), and stepping runs in that Python process (issue 22).

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <csignal>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QTreeWidget>

#include "WindowSupport.h"
#include "Wire.h"
#include "panels/ComparisonPanel.h"
#include "panels/CompilePanel.h"
#include "panels/Inspector.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

// A Python process serving one of live_models.py's models on its end of a socket pair.
struct LivePython {
    pid_t pid = -1;
    int socket = -1;
    std::string expectedText; // what print(traced.graph) wrote there
};

LivePython startPython(const QString& model, const QTemporaryDir& dir) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
        return {};
    std::string text = dir.filePath(model + ".txt").toStdString();
    std::string script = FXVIEW_SOURCE_DIR "/tests/fixtures/live_models.py";
    std::string name = model.toStdString(), fd = std::to_string(pair[1]);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pair[0]);
        ::setenv("PYTHONPATH", FXVIEW_SOURCE_DIR "/python", 1);
        ::execl(FXVIEW_PYTHON_PATH, "python3", script.c_str(), name.c_str(), fd.c_str(),
                text.c_str(), nullptr);
        ::_exit(127);
    }
    ::close(pair[1]);
    return {pid, pair[0], text};
}

std::string readAll(const std::string& path) {
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

std::vector<std::int64_t> shapeOf(const MainWindow& window, const std::string& node) {
    auto it = window.run().records.find(node);
    return it == window.run().records.end() ? std::vector<std::int64_t>{} : it->second.value.shape;
}

} // namespace

class TestLive : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void showsTheTracedGraphAndStepsIt();
    void showsThePersonsPass();
    void untraceableModuleShowsExportsGraphAndSaysWhy();
    void stepsIntoAModuleAndOut();
    void raisingNodeNamesTheLine();
    void resetInterruptsARunBetweenNodes();
    void aNodeThatNeverReturnsCanBeDetached();
    void pythonGoingAwayKeepsThePicture();
    void aBrokenFrameEndsTheEngineNotTheWindow_data();
    void aBrokenFrameEndsTheEngineNotTheWindow();
    void aCompileSessionOpensEachOfItsGraphs();
    void aPassGraphIsComparedWithTheGraphItWasGiven();

private:
    // Starts `model` in Python and opens it in a new window; false if it did not show.
    bool openLive(const QString& model);
    QTemporaryDir dir_;
    LivePython python_;
    std::unique_ptr<MainWindow> window_;
};

void TestLive::init() {
    QVERIFY(dir_.isValid());
    // The window's settings (recent files, scopes) stay out of the user's.
    qputenv("XDG_CONFIG_HOME", dir_.filePath("config").toUtf8());
}

void TestLive::cleanup() {
    window_.reset();
    EngineClient::setSettings({});
    if (python_.pid > 0) {
        ::kill(python_.pid, SIGKILL);
        ::waitpid(python_.pid, nullptr, 0);
    }
    python_ = {};
}

bool TestLive::openLive(const QString& model) {
    python_ = startPython(model, dir_);
    if (python_.pid <= 0)
        return false;
    EngineSettings settings;
    settings.attachFd = python_.socket;
    EngineClient::setSettings(settings);
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QSignalSpy shown(window_.get(), SIGNAL(runShown()));
    window_->openModel("python:" + model);
    return shown.wait(60000) && settle(*window_);
}

void TestLive::showsTheTracedGraphAndStepsIt() {
    QVERIFY(openLive("tinynet"));
    // Five nodes, as torch.fx traced them, and the text print(traced.graph) wrote.
    const Graph& graph = window_->model().graph;
    QStringList names;
    for (const Node& n : graph.nodes)
        names << QString::fromStdString(n.name);
    QCOMPARE(names, QStringList({"x", "fc1", "relu", "fc2", "output"}));
    QCOMPARE(graph.nodes[2].target, std::string("torch.relu"));
    QCOMPARE(window_->model().graphText, readAll(python_.expectedText));
    QVERIFY(window_->model().live);
    QVERIFY2(window_->windowTitle().contains("live in Python"), qPrintable(window_->windowTitle()));

    // Each step lights the next node with the shape it produced in Python.
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>> steps = {
        {"x", {3, 4}}, {"fc1", {3, 8}}, {"relu", {3, 8}}, {"fc2", {3, 2}}};
    for (const auto& [node, shape] : steps) {
        QSignalSpy stepped(window_.get(), SIGNAL(runShown()));
        press(*window_, QKeySequence(Qt::Key_F10));
        QVERIFY(stepped.wait(60000) && settle(*window_));
        QCOMPARE(window_->currentNode().toStdString(), node);
        QCOMPARE(shapeOf(*window_, node), shape);
    }
    QSignalSpy finished(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(finished.wait(60000) && settle(*window_));
    QVERIFY(window_->run().finished);
    QCOMPARE(window_->run().outputCheck.verdict, OutputCheck::Verdict::Equal);
    QVERIFY2(window_->statusText().contains("output equal to forward"),
             qPrintable(window_->statusText()));
    // Each record came with min, max and mean only; the inspector asks for fc1's std and
    // histogram when it shows the node, and the record keeps them.
    const ValueSummary& cheap = window_->run().records.at("fc1").value;
    QVERIFY(cheap.hasStats && !cheap.hasDetail && cheap.histogram.empty());
    const double mean = cheap.mean;
    QSignalSpy detailed(window_->session(), SIGNAL(detailChanged(QString)));
    window_->selectNode("fc1");
    auto* inspector = window_->findChild<Inspector*>();
    QVERIFY2(inspector->toPlainText().contains("being made"), qPrintable(inspector->toPlainText()));
    QVERIFY(detailed.wait(60000));
    const ValueSummary& full = window_->run().records.at("fc1").value;
    QVERIFY(full.hasDetail && full.std > 0 && full.mean == mean);
    QCOMPARE(full.histogramSample, std::int64_t{24});
    QVERIFY2(inspector->toPlainText().contains("all 24 values"),
             qPrintable(inspector->toPlainText()));
    // Its exports: the text is print(traced.graph); the JSON has the run and its verdict.
    QString text = dir_.filePath("export.txt"), json = dir_.filePath("export.json");
    QCOMPARE(window_->exportTo(text), QString());
    QCOMPARE(readAll(text.toStdString()), readAll(python_.expectedText));
    QCOMPARE(window_->exportTo(json), QString());
    std::string document = readAll(json.toStdString());
    QVERIFY(document.find("\"output_check\": {\"verdict\": \"equal\"") != std::string::npos);
    QVERIFY(document.find("\"shape\": [3, 2]") != std::string::npos);
}

void TestLive::showsThePersonsPass() {
    QVERIFY(openLive("passed"));
    // The person's names and targets, not fxview's.
    const Node* renamed = window_->model().graph.find("activation");
    QVERIFY(renamed);
    QCOMPARE(renamed->target, std::string("torch._C._nn.gelu")); // as print(graph) names it
    QVERIFY(window_->model().graph.find("half_scale"));
    QCOMPARE(window_->model().graphText, readAll(python_.expectedText));
    QSignalSpy finished(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(finished.wait(60000) && settle(*window_));
    QCOMPARE(window_->run().outputCheck.verdict, OutputCheck::Verdict::Equal);
    QCOMPARE(shapeOf(*window_, "half_scale"), (std::vector<std::int64_t>{3, 8}));
}

void TestLive::untraceableModuleShowsExportsGraphAndSaysWhy() {
    QVERIFY(openLive("shape_branch"));
    QVERIFY2(window_->bannerText().startsWith(
                 "torch.fx.symbolic_trace cannot trace ShapeBranch (TraceError: ") &&
                 window_->bannerText().endsWith("showing torch.export's graph instead."),
             qPrintable(window_->bannerText()));
    QCOMPARE(window_->model().graphText, readAll(python_.expectedText));
    QSignalSpy finished(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(finished.wait(60000) && settle(*window_));
    QCOMPARE(window_->run().outputCheck.verdict, OutputCheck::Verdict::Equal);
}

void TestLive::stepsIntoAModuleAndOut() {
    QVERIFY(openLive("tinynet"));
    press(*window_, QKeySequence(Qt::Key_F10)); // x
    QVERIFY(settle(*window_));
    QSignalSpy into(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F11)); // into fc1: its own traced graph
    QVERIFY(into.wait(60000) && settle(*window_));
    QCOMPARE(window_->run().depth, 1);
    QVERIFY(window_->run().inside);
    QVERIFY(window_->run().inside->graph.find("linear"));
    QSignalSpy out(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::SHIFT | Qt::Key_F11));
    QVERIFY(out.wait(60000) && settle(*window_));
    QCOMPARE(window_->run().depth, 0);
    QCOMPARE(window_->currentNode(), QString("fc1"));
    QCOMPARE(shapeOf(*window_, "fc1"), (std::vector<std::int64_t>{3, 8}));
}

void TestLive::raisingNodeNamesTheLine() {
    QVERIFY(openLive("raises"));
    QSignalSpy failed(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(failed.wait(60000) && settle(*window_));
    QVERIFY(window_->run().failed);
    const QString failure = QString::fromStdString(window_->run().failure);
    QVERIFY2(failure.contains("ValueError: x has negative entries") &&
                 failure.contains("live_models.py:") &&
                 failure.contains("raise ValueError(\"x has negative entries\")"),
             qPrintable(failure));
}

void TestLive::resetInterruptsARunBetweenNodes() {
    QVERIFY(openLive("slow"));
    press(*window_, QKeySequence(Qt::Key_F5)); // five nodes of 0.3 s
    QTest::qWait(450);
    QVERIFY(window_->engine()->busy());
    QElapsedTimer timer;
    timer.start();
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(settle(*window_, 5000));
    // Stopped at the next node's start, then reset: never killed, the session goes on.
    QVERIFY2(timer.elapsed() < 1000 * timeScale(),
             qPrintable(QString("%1 ms").arg(timer.elapsed())));
    QVERIFY(window_->currentNode().isEmpty());
    QVERIFY(!window_->run().finished);
    QSignalSpy stepped(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(stepped.wait(60000) && settle(*window_));
    QCOMPARE(window_->currentNode(), QString("x"));
}

void TestLive::aNodeThatNeverReturnsCanBeDetached() {
    QVERIFY(openLive("stuck"));
    press(*window_, QKeySequence(Qt::Key_F5)); // `hang` sleeps 30 s in Python
    QTest::qWait(300);
    QSignalSpy said(window_->engine(), SIGNAL(liveWaiting(QString)));
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    // Half a second without an answer: the window says it cannot stop a node of the person's.
    QVERIFY(said.wait(3000));
    QVERIFY2(window_->bannerText().contains("Node `hang` has not returned") &&
                 window_->bannerText().contains("Detach from Python"),
             qPrintable(window_->bannerText()));
    QSignalSpy ended(window_->engine(), SIGNAL(liveEnded(QString)));
    window_->engine()->detach();
    QVERIFY(ended.wait(5000));
    QVERIFY2(window_->bannerText().contains("Detached from your Python session"),
             qPrintable(window_->bannerText()));
    QVERIFY(settle(*window_, 2000)); // what was asked of it is answered: nothing is pending
    QCOMPARE(window_->scene()->nodeCount(), 4);
}

void TestLive::pythonGoingAwayKeepsThePicture() {
    QVERIFY(openLive("tinynet"));
    const int nodes = window_->scene()->nodeCount();
    QSignalSpy ended(window_->engine(), SIGNAL(liveEnded(QString)));
    ::kill(python_.pid, SIGKILL);
    QVERIFY(ended.wait(10000));
    QVERIFY2(window_->bannerText().contains("Your Python session ended"),
             qPrintable(window_->bannerText()));
    QCOMPARE(window_->scene()->nodeCount(), nodes);
    press(*window_, QKeySequence(Qt::Key_F10)); // nothing to run: nothing happens
    QVERIFY(settle(*window_));
    QVERIFY(window_->currentNode().isEmpty());
}

namespace {

// A frame whose graph has an argument nested 10,000 deep (the window's decoder once recursed
// until its stack overflowed, at 100,000).
std::string deepFrame() {
    Argument deep; // built in place: ofList's initializer list would copy it each time
    for (int i = 0; i < 10000; ++i) {
        Argument outer;
        outer.kind = Argument::Kind::List;
        outer.items.push_back(std::move(deep));
        deep = std::move(outer);
    }
    OpenedModel model;
    model.graph.nodes.resize(1);
    model.graph.nodes[0].args.push_back(std::move(deep));
    return encodeFrame(static_cast<std::uint16_t>(EngineMessage::Opened), encode(model));
}

} // namespace

void TestLive::aBrokenFrameEndsTheEngineNotTheWindow_data() {
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<QString>("said");
    std::string deep = deepFrame();
    QTest::newRow("nested 10,000 deep")
        << QByteArray(deep.data(), static_cast<int>(deep.size()))
        << "sent a broken message (a value is nested deeper than the protocol allows)";
    // Every frame that ever broke a reader (tests/fuzz/regressions/fuzz_wire), as the answer.
    QDir regressions(FXVIEW_SOURCE_DIR "/tests/fuzz/regressions/fuzz_wire");
    for (const QString& name : regressions.entryList(QDir::Files)) {
        QFile file(regressions.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QTest::newRow(qPrintable(name)) << file.readAll() << "";
    }
}

void TestLive::aBrokenFrameEndsTheEngineNotTheWindow() {
    // A compromised engine answers Open with `answer`, then hangs up.
    QFETCH(QByteArray, answer);
    QFETCH(QString, said);
    int pair[2];
    QVERIFY(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    std::thread evil([fd = pair[1], answer] {
        EngineHello hello;
        hello.live = true;
        writeFrame(fd, static_cast<std::uint16_t>(EngineMessage::Hello), encode(hello));
        Frame open;
        if (readFrame(fd, open) && ::write(fd, answer.constData(), answer.size()) >= 0)
            ::shutdown(fd, SHUT_WR);
        char byte;
        while (::read(fd, &byte, 1) > 0) { // until the window cuts it off or closes
        }
        ::close(fd);
    });
    EngineSettings settings;
    settings.attachFd = pair[0];
    EngineClient::setSettings(settings);
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QSignalSpy failed(window_->engine(), SIGNAL(loadFailed(QString)));
    window_->openModel("python:evil");
    const bool sentence = failed.wait(30000);
    if (!sentence)
        window_.reset(); // closes the socket: the thread ends
    evil.join();
    QVERIFY(sentence);
    const QString text = failed.first().first().toString();
    QVERIFY2(text.startsWith("The live Python engine ") && text.contains(said) &&
                 text.contains("the window is fine"),
             qPrintable(text));
    // The window lives and opens the next model as ever.
    EngineClient::setSettings({});
    QVERIFY(open(*window_, "example:tinynet"));
    QCOMPARE(window_->scene()->nodeCount(), 5);
}

// A compile session served from Python (fxview.backend, python/fxview/dynamo_live.py): the
// Compile dock lists its graphs and the one break met twice; activating graph 2 there opens it
// from the same Python, as print(gm.graph) has it, and it runs to what the compiled code returned.
void TestLive::aCompileSessionOpensEachOfItsGraphs() {
    QVERIFY(openLive("compile"));
    QJsonArray texts =
        QJsonDocument::fromJson(QByteArray::fromStdString(readAll(python_.expectedText))).array();
    QCOMPARE(texts.size(), 3);
    QCOMPARE(window_->model().graphText, texts[0].toString().toStdString());
    CompilePanel* panel = window_->compilePanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasSession(), 10000);
    QTreeWidgetItem* graphs = panel->tree()->topLevelItem(0);
    QCOMPARE(graphs->text(0), QString("Graphs (3)"));
    QCOMPARE(panel->tree()->topLevelItem(1)->text(0), QString("Graph breaks (2)"));
    QCOMPARE(panel->tree()->topLevelItem(1)->child(0)->text(0).left(2), QString("×2"));

    QSignalSpy shown(window_.get(), SIGNAL(runShown()));
    emit panel->tree()->itemActivated(graphs->child(2), 0);
    QVERIFY(shown.wait(60000) && settle(*window_));
    QCOMPARE(window_->model().source, QString("python:compile:2"));
    QCOMPARE(window_->model().graphText, texts[2].toString().toStdString());
    QVERIFY(window_->model().live);
    QSignalSpy finished(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(finished.wait(60000) && settle(*window_));
    QVERIFY(window_->run().finished);
    QCOMPARE(window_->run().outputCheck.verdict, OutputCheck::Verdict::Equal);
    QVERIFY2(window_->statusText().contains("output equal to the compiled code's"),
             qPrintable(window_->statusText()));
    // The session came again with the graph open (the tree is rebuilt: items read afresh).
    QTRY_VERIFY_WITH_TIMEOUT(panel->tree()->topLevelItem(0)->child(2)->font(0).bold(), 10000);
    QVERIFY(!panel->tree()->topLevelItem(0)->child(0)->font(0).bold());
}

// A person's passes (fxview.backend(passes=...)): opening the graph after relu_to_gelu keeps
// what the pass retargeted coloured, and the Comparison dock says where its values first part
// from the graph the pass was given (the one after double_negation): at the relu it made a gelu.
void TestLive::aPassGraphIsComparedWithTheGraphItWasGiven() {
    QVERIFY(openLive("compile_passes"));
    QJsonArray texts =
        QJsonDocument::fromJson(QByteArray::fromStdString(readAll(python_.expectedText))).array();
    QCOMPARE(texts.size(), 3);
    CompilePanel* panel = window_->compilePanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasSession(), 10000);
    QTreeWidgetItem* graph = panel->tree()->topLevelItem(0)->child(0);
    QTreeWidgetItem* gelu = nullptr;
    for (int i = 0; i < graph->childCount(); ++i)
        if (graph->child(i)->text(0) == "after relu_to_gelu")
            gelu = graph->child(i);
    QVERIFY(gelu);
    QSignalSpy compared(window_.get(), SIGNAL(comparisonShown()));
    emit panel->tree()->itemActivated(gelu, 0);
    QVERIFY(compared.wait(60000) && settle(*window_));
    QCOMPARE(window_->model().source, QString("python:compile:0:pass:1"));
    QCOMPARE(window_->model().graphText, texts[2].toString().toStdString());
    ComparisonPanel* comparison = window_->comparisonPanel();
    QVERIFY(comparison->hasReport());
    QCOMPARE(comparison->report().modelB, std::string("python:compile:0:pass:0"));
    QVERIFY2(comparison->statusText().startsWith("First divergence: relu "),
             qPrintable(comparison->statusText()));
    QCOMPARE(window_->scene()->nodeItem("relu")->mark(), QColor(0xe0, 0x8a, 0x00));
}

QTEST_MAIN(TestLive)
#include "tst_live.moc"
