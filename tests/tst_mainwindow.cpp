// The real main window, offscreen, driven with the debugger's keys.

#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QImage>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "GraphScene.h"
#include "MainWindow.h"
#include "NodeItem.h"
#include "OverviewView.h"
#include "TestSupport.h"

using namespace fxview;

namespace {

bool waitFor(QObject* sender, const char* signal, int times = 1) {
    QSignalSpy spy(sender, signal);
    while (spy.count() < times)
        if (!spy.wait(60000))
            return false;
    return true;
}

// Until the engine has answered everything asked so far (its replies arrive before it says so).
bool settle(MainWindow& window) {
    QElapsedTimer timer;
    timer.start();
    while (window.engine()->busy() && timer.elapsed() < 60000)
        QTest::qWait(5);
    return !window.engine()->busy();
}

void press(MainWindow& window, QKeySequence key) {
    QTest::keySequence(&window, key);
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
    }
    QCOMPARE(current, (QStringList{"x", "fc1", "relu", "fc2", "output"}));
    QCOMPARE(window_->scene()->nodeItem("fc2")->shapeText(), QString("[3, 2] float32"));
    QVERIFY(window_->statusText().contains("finished"));
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
    QVERIFY(window_->statusText().contains("finished"));
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
    QSignalSpy failed(window_->engine(), &Engine::loadFailed);
    window_->openModel(QString::fromStdString(fixture("state_dict.pt")));
    QVERIFY(failed.wait(60000));
    QCOMPARE(window_->modelSource(), QString("example:tinynet"));
    QCOMPARE(window_->scene()->nodeCount(), 5);
    QVERIFY(window_->bannerText().contains("this is a state_dict, not a TorchScript model"));
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
    QVERIFY(window_->statusText().contains("finished"));
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
    QVERIFY(window_->statusText().contains("finished"));
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
    window_->findChild<QDockWidget*>("graphText")->hide();
    window_->close(); // saves the layout
    {
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.findChild<QDockWidget*>("graphText")->isVisible());
        QVERIFY(again.findChild<QDockWidget*>("nodes")->isVisible());
        again.findChild<QDockWidget*>("graphText")->show();
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
    // The whole graph fits in the overview; the main view shows only part of this tall graph.
    QVERIFY(overview->mapToScene(overview->viewport()->rect())
                .boundingRect()
                .contains(scene.adjusted(2, 2, -2, -2)));
    QRectF before = overview->shownRect();
    QVERIFY(before.height() < scene.height());
    // A click near the bottom of the overview brings the bottom of the graph into the main view.
    QPoint bottom = overview->mapFromScene(QPointF(scene.center().x(), scene.bottom() - 20));
    QTest::mouseClick(overview->viewport(), Qt::LeftButton, {}, bottom);
    QVERIFY(overview->shownRect().center().y() > before.center().y());
    QVERIFY(overview->shownRect().contains(QPointF(scene.center().x(), scene.bottom() - 20)) ||
            overview->shownRect().bottom() >= scene.bottom() - 30);
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
