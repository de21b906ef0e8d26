// The real main window, offscreen, driven with the debugger's keys.

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFont>
#include <QGraphicsView>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolTip>
#include <QTreeView>

#include <functional>
#include <set>

#include "Importer.h"
#include "Interpreter.h"
#include "WindowSupport.h"
#include "panels/InputBar.h"
#include "panels/Inspector.h"
#include "panels/LoadProgress.h"
#include "panels/NodeListPanel.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"
#include "scene/OverviewView.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

using namespace fxview;

namespace {

// The status bar once the engine is idle: a run's update arrives before the engine says it is no
// longer busy, and until then the status reads "working…".
QString settledStatus(MainWindow& window) {
    settle(window);
    return window.statusText();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void stepWithF10();
    void continueStopsAtBreakpoint();
    void resetClearsStates();
    void badFileKeepsTheModel();
    void exportsEveryFormat();
    void windowAnswersWhileTheEngineWorks();
    void findSelectsNodes();
    void arrowKeysWalkTheGraph();
    void playStepsOnItsOwn();
    void inputBarAppliesAndRemembers();
    void recentModelsAndDrop();
    void dockLayoutIsRestored();
    void copyImageAndVisiblePart();
    void overviewMovesTheView();
    void overviewFollowsTheRun();
    void executedPathShowsWhatRan();
    void gutterClickSetsBreakpoint();
    void openingShowsStagesAndCancelKeepsTheModel();
    void playNeverBlocksTheWindow();
    void inspectorShowsParametersAndHistogram();
    void inputBarComposesSpecsWithDtype();
    void inputsWithDefaultsMayBeLeftEmpty();
    void inputThatCannotBeMadeIsNotRemembered();
    void panelsFollowTheSelectionAndComeBack();
    void playStopsAtBreakpoints();
    void darkPaletteDarkensGraphAndMarks();
    void stepIntoShowsTheModulesGraph();
    void failingNodeTurnsRedAndTheSessionGoesOn();
    void stepsSkipHiddenGuards();
    void copyKeyCopiesTextInTextPanels();
    void openingAnotherModelStopsPlay();
    void controlFlowNodesSayWhatTheyDid();
    void failedGuardReddensTheNodeItGuards();
    void toolbarIconsAreDrawn();
    void outputThatDiffersFromForwardIsLoud();
    void modelWarningsReachTheStatusBar();
    void stepsThroughAnExportedProgram();
    void weightsAreDrawnInsideTheirReaders();

private:
    std::unique_ptr<MainWindow> window_;
};

void TestMainWindow::init() {
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->activateWindow();
    window_->openModel("example:tinynet", {InputSpec{{3, 4}, "float32", {}}});
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->modelSource(), QString("example:tinynet"));
}

void TestMainWindow::cleanup() {
    window_.reset();
}

void TestMainWindow::stepWithF10() {
    QStringList current;
    for (int i = 0; i < 5; ++i) {
        press(*window_, QKeySequence(Qt::Key_F10));
        QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
        current << window_->currentNode();
        if (current.last() == "relu") { // the node list marks the current row too
            QAbstractItemModel* rows = window_->nodeList()->tree()->model();
            for (int row = 0; row < rows->rowCount(); ++row)
                QCOMPARE(rows->index(row, 1).data(Qt::FontRole).value<QFont>().bold(),
                         rows->index(row, 1).data().toString() == "relu");
        }
    }
    QCOMPARE(current, (QStringList{"x", "fc1", "relu", "fc2", "output"}));
    QCOMPARE(window_->scene()->nodeItem("fc2")->shapeText(), QString("[3, 2] float32"));
    QVERIFY(settledStatus(*window_).contains("finished"));
}

void TestMainWindow::continueStopsAtBreakpoint() {
    window_->selectNode("fc2");
    press(*window_, QKeySequence(Qt::Key_F9)); // breakpoint on the selected node
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->currentNode(), QString("relu")); // stopped before fc2
    QCOMPARE(window_->scene()->nodeItem("fc2")->runState(), NodeItem::State::Idle);
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QVERIFY(settledStatus(*window_).contains("finished"));
}

void TestMainWindow::resetClearsStates() {
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->scene()->nodeItem("x")->runState(), NodeItem::State::Done);
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    for (const char* n : {"x", "fc1", "relu", "fc2", "output"}) {
        QCOMPARE(window_->scene()->nodeItem(n)->runState(), NodeItem::State::Idle);
        QVERIFY(window_->scene()->nodeItem(n)->shapeText().isEmpty());
    }
}

void TestMainWindow::badFileKeepsTheModel() {
    QSignalSpy failed(window_->engine(), &EngineClient::loadFailed);
    window_->openModel(QString::fromStdString(fixture("state_dict.pt")));
    QVERIFY(failed.wait(60000));
    QCOMPARE(window_->modelSource(), QString("example:tinynet"));
    QCOMPARE(window_->scene()->nodeCount(), 5);
    QVERIFY(window_->bannerText().contains("this is a state_dict, the weights without the model"));
    auto* box = window_->findChild<QMessageBox*>();
    QVERIFY(box && box->text().contains("state_dict"));
    box->accept();
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    // The session goes on with the model it had.
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->currentNode(), QString("x"));
}

void TestMainWindow::exportsEveryFormat() {
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QTemporaryDir dir;
    for (const char* ext : {"png", "svg", "pdf", "dot", "json"}) {
        QString path = dir.filePath(QString("tinynet.") + ext);
        QCOMPARE(window_->exportTo(path), QString());
        QVERIFY2(QFileInfo(path).size() > 100, ext);
    }
    QVERIFY(readFile(dir.filePath("tinynet.json").toStdString()).contains("\"meta\""));
    QVERIFY(readFile(dir.filePath("tinynet.svg").toStdString()).contains("[3, 2] float32"));
}

void TestMainWindow::windowAnswersWhileTheEngineWorks() {
    // resnet18 at 224x224 takes tens of milliseconds per run: the event loop keeps turning.
    window_->openModel(QString::fromStdString(fixture("resnet18_scripted.pt")),
                       {InputSpec{{1, 3, 224, 224}, "float32", {}}});
    QVERIFY(settle(*window_));
    QCOMPARE(window_->modelSource(), QString::fromStdString(fixture("resnet18_scripted.pt")));
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(5);
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(window_->engine()->busy()); // the run is on the engine's thread, not this one
    QVERIFY(settle(*window_));
    QVERIFY2(ticks >= 3, std::to_string(ticks).c_str());
    QVERIFY(settledStatus(*window_).contains("finished"));
}

void TestMainWindow::findSelectsNodes() {
    QVERIFY(window_->findNode("relu"));
    QCOMPARE(window_->selectedNode(), QString("relu"));
    // By op: the call_modules in graph order, wrapping around; backwards too.
    QVERIFY(window_->findNode("call_module"));
    QCOMPARE(window_->selectedNode(), QString("fc1"));
    QVERIFY(window_->findNode("call_module"));
    QCOMPARE(window_->selectedNode(), QString("fc2"));
    QVERIFY(window_->findNode("call_module"));
    QCOMPARE(window_->selectedNode(), QString("fc1"));
    QVERIFY(window_->findNode("call_module", true));
    QCOMPARE(window_->selectedNode(), QString("fc2"));
    QVERIFY(window_->findNode("torch.relu")); // by target
    QCOMPARE(window_->selectedNode(), QString("relu"));
    QVERIFY(!window_->findNode("conv"));
    QCOMPARE(window_->selectedNode(), QString("relu")); // nothing found: selection stays
}

void TestMainWindow::arrowKeysWalkTheGraph() {
    window_->selectNode("fc1");
    QWidget* view = window_->centralWidget()->findChild<QGraphicsView*>();
    QVERIFY(view);
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(window_->selectedNode(), QString("relu")); // fc1's user
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(window_->selectedNode(), QString("fc2"));
    QTest::keyClick(view, Qt::Key_Up);
    QCOMPARE(window_->selectedNode(), QString("relu")); // relu's producer
    QTest::keyClick(view, Qt::Key_Left);
    QCOMPARE(window_->selectedNode(), QString("fc1")); // previous in graph order
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(window_->selectedNode(), QString("relu"));
}

void TestMainWindow::playStepsOnItsOwn() {
    window_->setPlayInterval(20);
    QSignalSpy shown(window_.get(), &MainWindow::runShown);
    window_->setPlaying(true);
    QVERIFY(window_->playing());
    QElapsedTimer timer;
    timer.start();
    while (window_->playing() && timer.elapsed() < 30000)
        QTest::qWait(10);
    QVERIFY(!window_->playing()); // it stopped by itself at the end
    QVERIFY(settledStatus(*window_).contains("finished"));
    QVERIFY(shown.count() >= 5); // one picture per node: x, fc1, relu, fc2, output
}

void TestMainWindow::inputBarAppliesAndRemembers() {
    QVERIFY(window_->applyInputs({"bad spec"}, 0).contains("is not a shape"));
    QVERIFY(window_->bannerText().contains("is not a shape"));
    QCOMPARE(window_->applyInputs({"5x4"}, 3), QString());
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->scene()->nodeItem("fc2")->shapeText(), QString("[5, 2] float32"));
    // Opened again without inputs, the model gets the ones applied last.
    window_->openModel("example:tinynet");
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->scene()->nodeItem("fc2")->shapeText(), QString("[5, 2] float32"));
}

void TestMainWindow::recentModelsAndDrop() {
    QString file = QString::fromStdString(fixture("tinynet_traced.pt"));
    // A file dropped on the window opens like File > Open (Qt delivers drops only from a real
    // drag, so the drop's action is called as dropEvent calls it).
    QVERIFY(window_->acceptDrops());
    QVERIFY(!window_->openDropped({QUrl("https://example.org/model.pt")}));
    QVERIFY(window_->openDropped({QUrl::fromLocalFile(file)}));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->modelSource(), file);
    QCOMPARE(window_->recentModels().value(0), file);
    QCOMPARE(window_->recentModels().value(1), QString("example:tinynet"));
    window_->openModel("example:tinynet");
    QVERIFY(settle(*window_));
    QCOMPARE(window_->recentModels().value(0), QString("example:tinynet"));
    QCOMPARE(window_->recentModels().count("example:tinynet"), 1);
}

void TestMainWindow::dockLayoutIsRestored() {
    window_->findChild<QDockWidget*>(ids::kGraphTextDock)->hide();
    window_->close(); // saves the layout
    {
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.findChild<QDockWidget*>(ids::kGraphTextDock)->isVisible());
        QVERIFY(again.findChild<QDockWidget*>(ids::kNodesDock)->isVisible());
        again.findChild<QDockWidget*>(ids::kGraphTextDock)->show();
        again.close();
    }
}

void TestMainWindow::copyImageAndVisiblePart() {
    window_->copyImage();
    QImage copied = QGuiApplication::clipboard()->image();
    QRectF scene = window_->scene()->sceneRect();
    QCOMPARE(copied.size(), (scene.size() * 2).toSize());
    QTemporaryDir dir;
    QString whole = dir.filePath("whole.png"), part = dir.filePath("part.png");
    window_->findChild<QGraphicsView*>()->scale(4, 4); // zoomed in: less than all of it shows
    QCOMPARE(window_->exportTo(whole), QString());
    QCOMPARE(window_->exportTo(part, true), QString());
    QImage a(whole), b(part);
    QVERIFY(!a.isNull() && !b.isNull());
    QVERIFY(b.width() * b.height() < a.width() * a.height());
}

void TestMainWindow::overviewMovesTheView() {
    window_->openModel(QString::fromStdString(fixture("resnet18_traced.pt")));
    QVERIFY(settle(*window_));
    OverviewView* overview = window_->overview();
    QRectF scene = window_->scene()->sceneRect();
    auto seen = [&] { return overview->mapToScene(overview->viewport()->rect()).boundingRect(); };
    // resnet18 is many times taller than wide: fitted whole it would be a sliver a few pixels
    // wide, so it is drawn wider (or as wide as the dock) and the overview scrolls instead.
    QVERIFY(scene.height() > 5 * scene.width());
    QVERIFY(overview->transform().m11() * scene.width() >=
            std::min(0.15 * scene.width(), overview->viewport()->width() - 2.0));
    QVERIFY(seen().contains(overview->shownRect().center())); // the main view's place in sight
    QRectF before = overview->shownRect();
    QVERIFY(before.height() < scene.height());
    // A click near the bottom of the overview moves the main view down, and the overview
    // follows it.
    QPoint bottom(overview->viewport()->width() / 2, overview->viewport()->height() - 4);
    QTest::mouseClick(overview->viewport(), Qt::LeftButton, {}, bottom);
    QVERIFY(overview->shownRect().center().y() > before.center().y());
    QVERIFY(seen().contains(overview->shownRect().center()));
    // Far down the graph: the overview has scrolled past its top.
    window_->selectNode("fc");
    QVERIFY(seen().top() > scene.top() + 10);
    QVERIFY(seen().contains(overview->shownRect().center()));
}

// The overview keeps a picture of the graph and draws it again after the scene changes: the
// nodes a run colours change colour there too.
void TestMainWindow::overviewFollowsTheRun() {
    QWidget* overview = window_->overview()->viewport();
    QVERIFY(overview->isVisible());
    QTest::qWait(250); // past the overview's 100 ms redraw delay
    QImage before = overview->grab().toImage();
    std::set<QRgb> colours;
    for (int y = 0; y < before.height(); ++y)
        for (int x = 0; x < before.width(); ++x)
            colours.insert(before.pixel(x, y));
    QVERIFY2(colours.size() > 4, "the overview shows the graph, not a blank");
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QTest::qWait(250);
    QImage after = overview->grab().toImage();
    QCOMPARE(after.size(), before.size());
    int changed = 0;
    for (int y = 0; y < after.height(); ++y)
        for (int x = 0; x < after.width(); ++x)
            changed += after.pixel(x, y) != before.pixel(x, y);
    QVERIFY2(changed > 50, qPrintable(QString("%1 pixels changed").arg(changed)));
}

void TestMainWindow::executedPathShowsWhatRan() {
    window_->openModel("example:branchy", {InputSpec{{1, 4}, "float32", {}}});
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    // What the core says this input executed.
    LoadResult loaded = loadModel("example:branchy");
    Interpreter run(loaded.model, importGraph(*loaded.model));
    run.setInputs({InputSpec{{1, 4}, "float32", {}}}, 0);
    run.runToEnd();
    Graph expected = run.executedPath();
    QStringList notTaken;
    run.graph().forEachNode([&](const Node& n, int) {
        const NodeRecord* r = run.record(n.name);
        if (!n.hidden && r && r->state == NodeState::NotExecuted)
            notTaken << QString::fromStdString(n.name);
    });
    QVERIFY(!notTaken.isEmpty()); // one branch of the if was not taken

    QSignalSpy ready(window_->engine(), &EngineClient::executedPathReady);
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    QVERIFY(ready.wait(60000));
    QVERIFY(window_->executedPathShown());
    QCOMPARE(window_->scene()->nodeCount(), expected.nodeCount());
    for (const Node& n : expected.nodes) {
        NodeItem* item = window_->scene()->nodeItem(QString::fromStdString(n.name));
        QVERIFY2(item, n.name.c_str());
        QCOMPARE(item->runState(), NodeItem::State::Done); // each with its own value
        QVERIFY(!item->shapeText().isEmpty());
    }
    for (const QString& name : notTaken)
        QVERIFY2(!window_->scene()->nodeItem(name), qPrintable(name));
    QVERIFY(window_->scene()->nodeItem("tanh_1")); // the loop unrolled: a tanh per iteration
    // Ctrl+Shift+E again: the whole graph, the branch not taken greyed.
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    QVERIFY(!window_->executedPathShown());
    QCOMPARE(window_->scene()->nodeItem(notTaken.first())->runState(),
             NodeItem::State::NotExecuted);
}

void TestMainWindow::gutterClickSetsBreakpoint() {
    auto* view = window_->centralWidget()->findChild<QGraphicsView*>();
    NodeItem* fc2 = window_->scene()->nodeItem("fc2");
    view->centerOn(fc2);
    QPoint gutter =
        view->mapFromScene(fc2->mapToScene(QPointF(-5, fc2->boundingRect().center().y())));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, gutter);
    QVERIFY(fc2->hasBreakpoint());
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->currentNode(), QString("relu")); // stopped before fc2
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, gutter);
    QVERIFY(!fc2->hasBreakpoint());
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QVERIFY(settledStatus(*window_).contains("finished"));
}

void TestMainWindow::openingShowsStagesAndCancelKeepsTheModel() {
    QString resnet = QString::fromStdString(fixture("resnet18_scripted.pt"));
    // A whole opening: the stages in order, the layout made on the engine's side.
    QSignalSpy stages(window_->engine(), &EngineClient::loadProgress);
    QSignalSpy loaded(window_->engine(), &EngineClient::loaded);
    window_->openModel(resnet);
    QVERIFY(!window_->loadProgress()->stage().isEmpty()); // shown at once
    QVERIFY(loaded.wait(60000));
    QStringList seen;
    for (const QList<QVariant>& s : stages)
        seen << s.at(1).toString();
    QVERIFY2(seen.size() >= 3 && seen[0].startsWith("Loading") && seen[1].startsWith("Tracing") &&
                 seen[2] == "Laying out 71 nodes",
             qPrintable(seen.join(" | ")));
    auto model = loaded.at(0).at(0).value<LoadedModel>();
    QCOMPARE(static_cast<int>(model.layout.nodes.size()), model.graph.nodeCount());
    QVERIFY(settle(*window_));
    QVERIFY(window_->loadProgress()->stage().isEmpty());

    // Opening densenet121, cancelled at once: resnet18 stays, and nothing arrives later. (A
    // model that takes a second to load: a built-in one could be loaded before the cancel.)
    QSignalSpy shown(window_.get(), &MainWindow::modelShown);
    window_->openModel(QString::fromStdString(fixture("densenet121_scripted.pt")));
    QVERIFY(window_->cancelOpen());
    QVERIFY(window_->loadProgress()->stage().isEmpty());
    QVERIFY(settle(*window_));
    QTest::qWait(50);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(window_->modelSource(), resnet);
    QCOMPARE(window_->scene()->nodeCount(), 71);
    QVERIFY(!window_->cancelOpen()); // nothing left to cancel
    // The engine kept resnet18 too: a step runs its first node.
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QCOMPARE(window_->currentNode(), QString("x"));
    QVERIFY(window_->scene()->nodeItem("conv1"));
}

void TestMainWindow::playNeverBlocksTheWindow() {
    // resnet18 on 4x3x448x448: its first convolutions take tens of milliseconds each, on a fast
    // day too (at 2x3x448x448 the slowest was 35-40 ms once the machine was quicker).
    window_->openModel(QString::fromStdString(fixture("resnet18_scripted.pt")),
                       {InputSpec{{4, 3, 448, 448}, "float32", {}}});
    QVERIFY(settle(*window_));
    qint64 longestGap = 0;
    QElapsedTimer sinceTick;
    sinceTick.start();
    QTimer timer;
    connect(&timer, &QTimer::timeout,
            [&] { longestGap = std::max(longestGap, sinceTick.restart()); });
    timer.start(5);
    window_->setPlayInterval(10);
    window_->setPlaying(true);
    QElapsedTimer elapsed;
    elapsed.start();
    while (window_->playing() && elapsed.elapsed() < 120000)
        QTest::qWait(20);
    timer.stop();
    QVERIFY(settledStatus(*window_).contains("finished")); // Play went through all 71 nodes
    double slowestMs = 0;
    for (const auto& [name, record] : window_->run().records)
        slowestMs = std::max(slowestMs, record.timeUs / 1000);
    // Had a node computed on this thread, the timer would have waited for it at least once: a
    // gap as long as the slowest node. (Other tests running beside this one on 2 cores starve
    // the thread for 100 ms at times, so the margin is not tighter: measured 118 of 229 ms.)
    qInfo("slowest node %.0f ms, longest gap between 5 ms ticks %lld ms", slowestMs, longestGap);
    QVERIFY2(slowestMs > 40, qPrintable(QString::number(slowestMs)));
    QVERIFY(static_cast<double>(longestGap) < slowestMs * 0.9);
}

void TestMainWindow::inspectorShowsParametersAndHistogram() {
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    window_->selectNode("fc1");
    auto* inspector = window_->findChild<Inspector*>();
    QVERIFY(inspector);
    QString text = inspector->toPlainText();
    QVERIFY2(text.contains("weight [8, 4] float32") && text.contains("bias [8] float32"),
             qPrintable(text));
    QVERIFY2(text.contains("[3, 8] float32") && text.contains("all 24 values"), qPrintable(text));
    // A link in the inspector selects the node it names.
    emit inspector->nodeLinkClicked("relu");
    QCOMPARE(window_->selectedNode(), QString("relu"));
    // Bars scale to the fullest bin: bin 2 fills the height, bin 1 half of it, bin 0 nothing.
    QImage bars = Inspector::histogramImage({0, 2, 4}, Qt::black, QSize(30, 40));
    auto filled = [&](int bin) {
        int rows = 0;
        for (int y = 0; y < bars.height(); ++y)
            rows += qAlpha(bars.pixel(bin * 10 + 4, y)) > 0;
        return rows;
    };
    QCOMPARE(filled(0), 0);
    QCOMPARE(filled(1), 20);
    QCOMPARE(filled(2), 40);
}

// The input bar's fields give fxtrace's spec syntax: the dtype box joins the shape, a spec typed
// in full hands its dtype to the box, a file keeps its own.
void TestMainWindow::inputBarComposesSpecsWithDtype() {
    InputBar* bar = window_->inputBar();
    auto* spec = bar->findChild<QLineEdit*>("inputSpec");
    auto* dtype = bar->findChild<QComboBox*>();
    QVERIFY(spec && dtype);
    QCOMPARE(bar->specs(), QStringList{"3x4"}); // the model was opened with 3x4, float32
    dtype->setCurrentText("int64");
    QCOMPARE(bar->specs(), QStringList{"3x4:int64"});
    spec->setText("2x8:int32");
    emit spec->editingFinished();
    QCOMPARE(spec->text(), QString("2x8"));
    QCOMPARE(dtype->currentText(), QString("int32"));
    QCOMPARE(bar->specs(), QStringList{"2x8:int32"});
    spec->setText("file:/tmp/x.pt");
    QVERIFY(!dtype->isEnabled());
    QCOMPARE(bar->specs(), QStringList{"file:/tmp/x.pt"});
}

// forward(x, bias=None, scale=2.0): the fields of bias and scale say their defaults and may stay
// empty; x alone given, the run goes through with the defaults.
void TestMainWindow::inputsWithDefaultsMayBeLeftEmpty() {
    window_->openModel(QString::fromStdString(fixture("interpreter_ops_scripted.pt")));
    QVERIFY(settle(*window_));
    QList<QLineEdit*> fields = window_->inputBar()->findChildren<QLineEdit*>("inputSpec");
    QCOMPARE(fields.size(), 3);
    QCOMPARE(fields[1]->placeholderText(), QString("default: None"));
    QCOMPARE(fields[2]->placeholderText(), QString("default: 2.0"));
    fields[0]->setText("4x3");
    QCOMPARE(window_->inputBar()->specs(), QStringList{"4x3"});
    QTest::keyClick(fields[0], Qt::Key_Return);
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QVERIFY2(settledStatus(*window_).contains("finished"), qPrintable(settledStatus(*window_)));
}

// An input too big to make is refused with a sentence and never remembered; one remembered from
// before (or edited in by hand) gives way to the guess instead of a model that cannot run.
void TestMainWindow::inputThatCannotBeMadeIsNotRemembered() {
    auto* spec = window_->inputBar()->findChild<QLineEdit*>("inputSpec");
    spec->setText("100000x100000x100");
    QTest::keyClick(spec, Qt::Key_Return); // Enter applies
    QVERIFY(settle(*window_));
    QVERIFY2(window_->bannerText().contains("choose a smaller shape"),
             qPrintable(window_->bannerText()));
    QVERIFY(
        !QSettings().value("inputs/example:tinynet").toStringList().contains("100000x100000x100"));
    press(*window_, QKeySequence(Qt::Key_F5)); // the 3x4 input it had still runs
    QVERIFY(settle(*window_));
    QCOMPARE(window_->scene()->nodeItem("fc2")->shapeText(), QString("[3, 2] float32"));

    QSettings().setValue("inputs/example:tinynet", QStringList{"100000x100000x100"});
    window_->openModel("example:tinynet");
    QVERIFY(settle(*window_));
    QVERIFY(window_->bannerText().contains("choose a smaller shape"));
    QVERIFY(window_->bannerText().contains("guessed"));
    QVERIFY(!QSettings().contains("inputs/example:tinynet"));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QVERIFY(settledStatus(*window_).contains("finished"));
}

// A node selected anywhere shows in the inspector and the graph text; a click on empty canvas
// leaves no panel showing it; a closed panel comes back from View > Panels.
void TestMainWindow::panelsFollowTheSelectionAndComeBack() {
    auto* inspector = window_->findChild<Inspector*>();
    auto* text = window_->findChild<QPlainTextEdit*>();
    QTreeView* list = window_->nodeList()->tree();
    window_->selectNode("fc2");
    QVERIFY(inspector->toPlainText().contains("fc2"));
    QVERIFY(text->textCursor().selectedText().startsWith("    %fc2 : "));
    QCOMPARE(list->currentIndex().siblingAtColumn(1).data().toString(), QString("fc2"));
    window_->scene()->clearSelection();
    QVERIFY(inspector->toPlainText().trimmed().isEmpty() ||
            !inspector->toPlainText().contains("fc2"));
    QVERIFY(!list->currentIndex().isValid());

    auto* dock = window_->findChild<QDockWidget*>(ids::kInspectorDock);
    dock->close();
    QVERIFY(!dock->isVisible());
    QMenu* panels = nullptr;
    for (QMenu* menu : window_->findChildren<QMenu*>())
        if (menu->title() == "&Panels")
            panels = menu;
    QVERIFY(panels);
    QAction* toggle = nullptr;
    for (QAction* a : panels->actions())
        if (a->text() == "Inspector")
            toggle = a;
    QVERIFY(toggle);
    toggle->trigger();
    QVERIFY(dock->isVisible());
}

// Play stops before a breakpoint's node as Continue does; Play again steps over it to the end,
// and Play on a finished run plays it again from the start.
void TestMainWindow::playStopsAtBreakpoints() {
    auto playToStop = [&] {
        window_->setPlaying(true);
        QElapsedTimer timer;
        timer.start();
        while (window_->playing() && timer.elapsed() < 30000)
            QTest::qWait(10);
        return settle(*window_) && !window_->playing();
    };
    window_->setPlayInterval(20);
    window_->toggleBreakpoint("fc2");
    QVERIFY(playToStop());
    QCOMPARE(window_->currentNode(), QString("relu")); // before fc2
    QVERIFY(playToStop());
    QVERIFY(settledStatus(*window_).contains("finished"));
    QSignalSpy shown(window_.get(), &MainWindow::runShown);
    QVERIFY(playToStop()); // from the start again, to the breakpoint
    QCOMPARE(window_->currentNode(), QString("relu"));
    QVERIFY(shown.count() >= 3);
}

// Switching the system palette to dark while the app runs turns the graph dark, and the current
// line of the graph text keeps a dark mark under the palette's light text.
void TestMainWindow::darkPaletteDarkensGraphAndMarks() {
    QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor("#202124"));
    dark.setColor(QPalette::Base, QColor("#15171a"));
    dark.setColor(QPalette::Text, QColor("#e8eaed"));
    dark.setColor(QPalette::WindowText, QColor("#e8eaed"));
    QApplication::setPalette(dark);
    QCoreApplication::processEvents();
    QCOMPARE(window_->scene()->theme().name, QString("dark"));
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    auto* text = window_->findChild<QPlainTextEdit*>();
    QCOMPARE(text->extraSelections().size(), 1);
    QColor mark = text->extraSelections().first().format.background().color();
    QApplication::setPalette(light);
    QCoreApplication::processEvents();
    QVERIFY2(mark.lightness() < 100, qPrintable(mark.name()));
    QCOMPARE(window_->scene()->theme().name, QString("light"));
}

// Step Into shows the module's own graph node by node, as a debugger shows the function it
// entered; Step Out brings the model's graph back with the module's value on its node.
void TestMainWindow::stepIntoShowsTheModulesGraph() {
    press(*window_, QKeySequence(Qt::Key_F10)); // x
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    press(*window_, QKeySequence(Qt::Key_F11)); // into fc1, its input placeholder
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QVERIFY(!window_->scene()->nodeItem("fc2"));
    QVERIFY(window_->run().inside);
    // Its weight and bias are lines in the box of the linear reading them.
    int weights = 0;
    for (const Node& n : window_->run().inside->graph.nodes)
        weights += n.drawnInside;
    QCOMPARE(weights, 2);
    QCOMPARE(window_->scene()->nodeCount(), window_->run().inside->graph.nodeCount() - weights);
    QVERIFY(settledStatus(*window_).contains("inside fc1"));
    QVERIFY(window_->bannerText().contains("torch.nn.Linear"));
    NodeItem* current = window_->scene()->nodeItem(window_->currentNode());
    QVERIFY(current);
    QCOMPARE(current->runState(), NodeItem::State::Current);
    // The Linear's own nodes: its weight and bias (get_attr) run with the computation reading
    // them, in whose box they are drawn.
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QVERIFY(window_->run().inside);
    QCOMPARE(window_->currentNode(), QString("linear"));
    QCOMPARE(window_->scene()->nodeItem("linear")->shapeText(), QString("[3, 8] float32"));
    QCOMPARE(window_->nodeList()->rowOf("weight").siblingAtColumn(3).data().toString(),
             QString("[8, 4]"));
    press(*window_, QKeySequence(Qt::SHIFT | Qt::Key_F11));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    QVERIFY(!window_->run().inside);
    QVERIFY(window_->scene()->nodeItem("fc2"));
    QCOMPARE(window_->currentNode(), QString("fc1"));
    QCOMPARE(window_->scene()->nodeItem("fc1")->shapeText(), QString("[3, 8] float32"));
    QVERIFY(!window_->bannerText().contains("Inside"));
}

// A wrong input: the failing node turns red and is selected, its inspector and a banner give
// LibTorch's message; stepping on says to Reset; Reset and a right input run to the end.
void TestMainWindow::failingNodeTurnsRedAndTheSessionGoesOn() {
    QCOMPARE(window_->applyInputs({"3x5"}, 0), QString());
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->scene()->nodeItem("fc1")->runState(), NodeItem::State::Failed);
    QCOMPARE(window_->selectedNode(), QString("fc1"));
    QVERIFY(window_->bannerText().contains("fc1"));
    QVERIFY(window_->findChild<Inspector*>()->toPlainText().contains("error"));
    QVERIFY(settledStatus(*window_).contains("failed at fc1"));
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(window_->statusBar()->currentMessage().contains("Reset"));
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->scene()->nodeItem("fc1")->runState(), NodeItem::State::Idle);
    QCOMPARE(window_->bannerText(), QString());
    QCOMPARE(window_->applyInputs({"3x4"}, 0), QString());
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settledStatus(*window_).contains("finished"));
}

// A scripted model's inlined guards (dim checks) are hidden: every F10 and F11 lands on a node
// the graph shows (or a module's own graph).
void TestMainWindow::stepsSkipHiddenGuards() {
    window_->openModel("example:branchy", {InputSpec{{1, 4}, "float32", {}}});
    QVERIFY(settle(*window_));
    int steps = 0;
    while (!window_->run().finished && steps++ < 60) {
        press(*window_,
              QKeySequence(steps % 2 ? Qt::Key_F10 : Qt::Key_F11)); // F10 on x, F11 on dim
        QVERIFY(settle(*window_));
        if (!window_->run().finished)
            QVERIFY2(window_->scene()->nodeItem(window_->drawnAs(window_->currentNode())),
                     qPrintable(window_->currentNode()));
    }
    QVERIFY(window_->run().finished);
}

// Ctrl+C copies the graph's picture when the graph has the focus, and selected text in the
// graph text panel.
void TestMainWindow::copyKeyCopiesTextInTextPanels() {
    auto* text = window_->findChild<QPlainTextEdit*>();
    text->setFocus();
    text->selectAll();
    QTest::keyClick(text, Qt::Key_C, Qt::ControlModifier);
    QVERIFY(QApplication::clipboard()->text().startsWith("graph():"));
    auto* view = window_->centralWidget()->findChild<QGraphicsView*>();
    view->setFocus();
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    QVERIFY(!QApplication::clipboard()->image().isNull());
}

void TestMainWindow::openingAnotherModelStopsPlay() {
    window_->setPlayInterval(5000);
    window_->setPlaying(true);
    window_->openModel("example:smallcnn");
    QVERIFY(waitFor(window_.get(), SIGNAL(modelShown())));
    QVERIFY(!window_->playing());
}

// The if shows the branch it took; the loop its iteration while it runs and how many when done.
void TestMainWindow::controlFlowNodesSayWhatTheyDid() {
    window_->openModel("example:branchy", {InputSpec{{1, 4}, "float32", {}}});
    QVERIFY(settle(*window_));
    QString loopWhileRunning, condInBranch;
    for (int steps = 0; steps < 40 && !window_->run().finished; ++steps) {
        press(*window_, QKeySequence(Qt::Key_F10));
        QVERIFY(settle(*window_));
        if (window_->currentNode() == "relu") // inside the branch: the if already says which
            condInBranch = window_->scene()->nodeItem("cond")->shapeText();
        if (window_->currentNode() == "mul")
            loopWhileRunning = window_->scene()->nodeItem("loop")->shapeText();
    }
    QVERIFY2(condInBranch.endsWith("took true"), qPrintable(condInBranch));
    QVERIFY2(loopWhileRunning.startsWith("iteration "), qPrintable(loopWhileRunning));
    QCOMPARE(window_->scene()->nodeItem("loop")->shapeText(),
             QString("[1, 4] float32 · 3 iterations"));
}

// branchy checks its input's rank in an inlined, hidden guard; a 3-d input fails there, and the
// node the guard stands before (fc) turns red and is selected.
void TestMainWindow::failedGuardReddensTheNodeItGuards() {
    window_->openModel("example:branchy", {InputSpec{{1, 4, 1}, "float32", {}}});
    QVERIFY(settle(*window_));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QVERIFY(window_->run().failed);
    QVERIFY(!window_->scene()->nodeItem(window_->currentNode())); // the guard is hidden
    QCOMPARE(window_->scene()->nodeItem("fc")->runState(), NodeItem::State::Failed);
    QCOMPARE(window_->selectedNode(), QString("fc"));
    QVERIFY(!window_->bannerText().isEmpty());
}

// The run actions' icons are SVGs: without Qt's SVG icon engine (qt6-svg-plugins on Debian 13)
// they are silently blank and the toolbar shows text only.
void TestMainWindow::toolbarIconsAreDrawn() {
    int drawn = 0;
    for (QAction* action : window_->findChildren<QAction*>()) {
        if (action->icon().isNull())
            continue;
        QImage image = action->icon().pixmap(24, 24).toImage();
        QVERIFY2(!image.isNull(), qPrintable(action->text()));
        bool painted = false;
        for (int y = 0; y < image.height() && !painted; ++y)
            for (int x = 0; x < image.width() && !painted; ++x)
                painted = qAlpha(image.pixel(x, y)) > 0;
        QVERIFY2(painted, qPrintable(action->text() + " has a blank icon"));
        ++drawn;
    }
    QVERIFY(drawn >= 6); // Step, Step Into, Step Out, Run to Cursor, Continue, Reset, Play...
}

// A run that ends with an output other than forward's says so in red, on the output node and in
// the status bar (the difference is injected: no model makes fxview wrong on purpose); an equal
// one says that too, and Reset clears the alarm.
void TestMainWindow::outputThatDiffersFromForwardIsLoud() {
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settledStatus(*window_).contains("finished, output equal to forward"));
    QVERIFY(!window_->bannerText().contains("differs"));
    // The engine process reads the injection from its environment: a window made with it set
    // starts its engines with it.
    qputenv("FXVIEW_TEST_OUTPUTS_DIFFER", "1");
    window_ = std::make_unique<MainWindow>();
    window_->show();
    window_->openModel("example:tinynet", {InputSpec{{3, 4}, "float32", {}}});
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
    qunsetenv("FXVIEW_TEST_OUTPUTS_DIFFER");
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settle(*window_));
    QVERIFY2(window_->bannerText().contains("differs from the model's own forward on the same "
                                            "input: fxview has a bug here"),
             qPrintable(window_->bannerText()));
    QCOMPARE(window_->scene()->nodeItem("output")->runState(), NodeItem::State::Failed);
    QVERIFY(settledStatus(*window_).contains("OUTPUT DIFFERS FROM FORWARD"));
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(settle(*window_));
    QVERIFY(!window_->bannerText().contains("differs"));
    QCOMPARE(window_->scene()->nodeItem("output")->runState(), NodeItem::State::Idle);
}

// warnings.warn in the model: the run goes on and the message reaches the status bar.
void TestMainWindow::modelWarningsReachTheStatusBar() {
    window_->openModel(QString::fromStdString(fixture("warn_scripted.pt")),
                       {InputSpec{{3}, "float32", {}}});
    QVERIFY(settle(*window_));
    QVERIFY(!window_->scene()->nodeItem("warn_1")); // hidden, as torch.fx has no such node
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(settledStatus(*window_).contains("finished, output equal to forward"));
    QVERIFY2(
        window_->statusBar()->currentMessage().contains("The model warned (warn_1): always here"),
        qPrintable(window_->statusBar()->currentMessage()));
}

// A .pt2 stepped with F10 and the toolbar's Step: its weight placeholders run along with the
// first step (which lands on x), then each step runs the next node in graph order, whose box
// and node-list row show its shape; the inspector shows the line of the model's code that made
// linear, the file's full path as its tooltip.
void TestMainWindow::stepsThroughAnExportedProgram() {
    QString model = QString::fromStdString(fixture("tinynet.pt2"));
    window_->openModel(model);
    QVERIFY(waitFor(window_.get(), SIGNAL(modelShown())));
    QVERIFY(settle(*window_));
    QCOMPARE(window_->modelSource(), model);
    auto* step = window_->findChild<QAction*>(ids::kStep);
    QVERIFY(step);
    QTreeView* list = window_->nodeList()->tree();
    // The list is the scope tree: its rows in order (depth first), scopes' rows among them.
    auto rows = [&] {
        QList<QModelIndex> all;
        std::function<void(const QModelIndex&)> under = [&](const QModelIndex& parent) {
            for (int row = 0; row < list->model()->rowCount(parent); ++row) {
                all << list->model()->index(row, 0, parent);
                under(all.last());
            }
        };
        under({});
        return all;
    };
    auto rowOf = [&](const QString& name) { return window_->nodeList()->rowOf(name); };
    auto cell = [](const QModelIndex& row, int column) {
        return row.siblingAtColumn(column).data().toString();
    };
    auto graphIndex = [&](const QString& name) {
        QList<QModelIndex> all = rows();
        for (int row = 0; row < all.size(); ++row)
            if (cell(all[row], 1) == name)
                return row;
        return -1;
    };
    QStringList current;
    for (int i = 0; i < 10 && !window_->run().finished; ++i) {
        if (i % 2)
            step->trigger();
        else
            press(*window_, QKeySequence(Qt::Key_F10));
        QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
        QVERIFY(settle(*window_));
        QString now = window_->currentNode();
        if (!current.isEmpty())
            QVERIFY2(graphIndex(now) > graphIndex(current.last()),
                     qPrintable(current.join(", ") + " then " + now));
        current << now;
        if (window_->run().finished) { // the output ran: nothing is current any more
            QCOMPARE(now, QString("output"));
            QCOMPARE(window_->scene()->nodeItem(now)->runState(), NodeItem::State::Done);
            continue;
        }
        QCOMPARE(window_->scene()->nodeItem(now)->runState(), NodeItem::State::Current);
        QVERIFY2(rowOf(now).siblingAtColumn(1).data(Qt::FontRole).value<QFont>().bold(),
                 qPrintable(now));
        // What ran shows its shape, on its box and in its row.
        QString shape = window_->scene()->nodeItem(now)->shapeText();
        QVERIFY2(shape.endsWith(" float32"), qPrintable(now + ": " + shape));
        QString row = cell(rowOf(now), 3); // the shape without its dtype
        QVERIFY2(row.startsWith("[") && shape.startsWith(row + " "), qPrintable(row));
    }
    QCOMPARE(current, (QStringList{"x", "linear", "relu", "linear_1", "output"}));
    QVERIFY(window_->run().finished);
    QVERIFY(settledStatus(*window_).contains("finished"));
    // The weights ran with the first step, without a step of their own; each is a line in the
    // box of the node reading it, and a row under the node list's "weights".
    QVERIFY(!window_->scene()->nodeItem("p_fc1_weight"));
    QCOMPARE(window_->drawnAs("p_fc1_weight"), QString("linear"));
    QCOMPARE(cell(rowOf("p_fc1_weight"), 3), QString("[8, 4]"));
    const QModelIndex weights = rowOf("p_fc1_weight").parent();
    QCOMPARE(cell(weights, 1), QString("weights"));
    QCOMPARE(list->model()->rowCount(weights), 4);
    QVERIFY(!list->isExpanded(weights));
    const Node* linear = window_->scene()->graph().find("linear");
    QCOMPARE(NodeItem::weightLines(*linear), (QStringList{"weight [8, 4]", "bias [8]"}));
    QCOMPARE(window_->scene()->nodeItem("x")->shapeText(), QString("[3, 4] float32"));
    QCOMPARE(window_->scene()->nodeItem("linear")->shapeText(), QString("[3, 8] float32"));
    QCOMPARE(window_->scene()->nodeItem("linear_1")->shapeText(), QString("[3, 2] float32"));

    window_->selectNode("linear");
    auto* inspector = window_->findChild<Inspector*>();
    QString text = inspector->toPlainText();
    QTextCursor file = inspector->document()->find("generate_fixtures.py:");
    QVERIFY(!file.isNull());
    QString path = file.charFormat().toolTip(); // the full path
    QVERIFY2(path.endsWith("/tests/fixtures/generate_fixtures.py"), qPrintable(path));
    int line = lineInClass(path.toStdString(), "TinyNet", "x = self.fc1(x)");
    QVERIFY(line > 0);
    QString place = QString("generate_fixtures.py:%1 in forward").arg(line);
    QVERIFY2(text.contains("source \n" + place + "\nx = self.fc1(x)\nargs"), qPrintable(text));
    QVERIFY(!file.charFormat().fontFixedPitch());
    // ...which the pointer resting on the file name shows.
    QTextCursor inName = file;
    inName.setPosition(file.selectionStart() + 3);
    QPoint over = inspector->cursorRect(inName).center();
    QHelpEvent help(QEvent::ToolTip, over, inspector->viewport()->mapToGlobal(over));
    QApplication::sendEvent(inspector->viewport(), &help);
    QCOMPARE(QToolTip::text(), path);
    QTextCursor code = inspector->document()->find("x = self.fc1(x)");
    QVERIFY(!code.isNull());
    QVERIFY(code.charFormat().fontFamilies().toStringList().contains("DejaVu Sans Mono"));
    // A placeholder was made by no line of the model: no source row.
    window_->selectNode("x");
    QVERIFY(!inspector->toPlainText().contains("source"));
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // remembered inputs go to a test-only place
    QApplication app(argc, argv);
    QSettings().clear();
    TestMainWindow test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_mainwindow.moc"

// A .pt2's 122 weights are lines in the boxes of the nodes reading them: resnet18.pt2 is drawn
// no wider than its TorchScript picture (whose call_modules hold their weights). View ▸ Weights
// as Nodes brings the boxes back; "Graph as text" stays PyTorch's print either way.
void TestMainWindow::weightsAreDrawnInsideTheirReaders() {
    window_->openModel(QString::fromStdString(fixture("resnet18_scripted.pt")));
    QVERIFY(waitFor(window_.get(), SIGNAL(modelShown())));
    QVERIFY(settle(*window_));
    const double scripted = window_->scene()->itemsBoundingRect().width();
    window_->openModel(QString::fromStdString(fixture("resnet18.pt2")));
    QVERIFY(waitFor(window_.get(), SIGNAL(modelShown())));
    QVERIFY(settle(*window_));
    const double exported = window_->scene()->itemsBoundingRect().width();
    QVERIFY2(exported <= scripted, qPrintable(QString("%1 > %2").arg(exported).arg(scripted)));
    QVERIFY(!window_->scene()->nodeItem("p_conv1_weight"));
    QCOMPARE(window_->drawnAs("p_conv1_weight"), QString("conv2d"));
    QCOMPARE(window_->drawnAs("b_bn1_running_var"), QString("batch_norm"));
    const Node* bn = window_->scene()->graph().find("batch_norm");
    QCOMPARE(NodeItem::weightLines(*bn),
             (QStringList{"weight [64]", "bias [64]", "running_mean [64]", "running_var [64]"}));
    auto* text = qobject_cast<QPlainTextEdit*>(
        window_->findChild<QDockWidget*>(ids::kGraphTextDock)->widget());
    QVERIFY(text);
    const QString printed = text->toPlainText();
    QVERIFY(
        printed.contains("%p_conv1_weight : [num_users=1] = placeholder[target=p_conv1_weight]"));

    auto* toggle = window_->findChild<QAction*>(ids::kWeightsAsNodes);
    QVERIFY(toggle);
    QVERIFY(!toggle->isChecked());
    toggle->trigger();
    QVERIFY(window_->scene()->nodeItem("p_conv1_weight"));
    QVERIFY(window_->scene()->graph().find("batch_norm")->weightsInside.empty());
    QVERIFY(window_->scene()->itemsBoundingRect().width() > 5 * scripted);
    QCOMPARE(text->toPlainText(), printed);
    toggle->trigger();
    QVERIFY(!window_->scene()->nodeItem("p_conv1_weight"));
}
