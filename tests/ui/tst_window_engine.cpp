// The main window, offscreen, with models that crash, loop, allocate or raise: each ends in one
// sentence, the window keeps its graph and goes on with the next model, and a stuck run is
// stopped by Reset within a second (issue 13).

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QMessageBox>
#include <QSignalSpy>
#include <csignal>
#include <unistd.h>

#include "ExportedArchive.h"
#include "Timing.h"
#include "WindowSupport.h"
#include "scene/GraphScene.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

// The window still works: TinyNet opens and steps.
bool usable(MainWindow& window) {
    if (!open(window, "example:tinynet"))
        return false;
    QSignalSpy shown(&window, SIGNAL(runShown()));
    press(window, QKeySequence(Qt::Key_F10));
    return shown.wait(scaled(60000)) && window.currentNode() == "x";
}

} // namespace

class TestWindowEngine : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void resetStopsAnEndlessLoopWithinASecond();
    void crashKeepsTheWindow();
    void engineMallocsOnHugePages();
    void readsAProgramWithoutLibTorch();
    void failingNodesGiveTheirSentence_data();
    void failingNodesGiveTheirSentence();
    void damagedWeightIsRefused();
    void setstateWritesNothing();
    void closingEndsABusyEngine();

private:
    std::unique_ptr<MainWindow> window_;
};

void TestWindowEngine::init() {
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->activateWindow();
}

void TestWindowEngine::cleanup() {
    window_.reset();
}

void TestWindowEngine::resetStopsAnEndlessLoopWithinASecond() {
    QVERIFY(open(*window_, "endless_loop.pt"));
    const int nodes = window_->scene()->nodeCount();
    double before = residentMb();
    press(*window_, QKeySequence(Qt::Key_F5)); // Continue: the loop never ends
    QTest::qWait(1500);
    QVERIFY(window_->engine()->busy());
    QSignalSpy shown(window_.get(), SIGNAL(runShown()));
    QElapsedTimer timer;
    timer.start();
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(settle(*window_, scaled(5000)));
    QVERIFY(shown.count() > 0 || shown.wait(scaled(1000)));
    qint64 stopped = timer.elapsed();
    QVERIFY2(stopped < 1000 * timeScale(), qPrintable(QString("Reset took %1 ms").arg(stopped)));
    qInfo("Reset stopped the endless loop in %lld ms", stopped);
    // The graph stayed; the run is at its start, in a fresh engine, and steps.
    QCOMPARE(window_->scene()->nodeCount(), nodes);
    QVERIFY(window_->currentNode().isEmpty());
    QSignalSpy stepped(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(stepped.wait(scaled(10000)));
    QCOMPARE(window_->currentNode(), QString("x"));
    // The loop ran in the engine: this process did not grow with it.
    QVERIFY2(residentMb() - before < 50, qPrintable(QString::number(residentMb() - before)));
}

// The engine's malloc backs its heap with huge pages (EngineProcess::engineEnvironment): what
// its process was started with, read back from /proc.
void TestWindowEngine::engineMallocsOnHugePages() {
    QVERIFY(open(*window_, "example:tinynet"));
    const qint64 pid = window_->engine()->enginePid();
    QVERIFY(pid > 0 && pid != getpid());
    QFile environ(QString("/proc/%1/environ").arg(pid));
    QVERIFY(environ.open(QIODevice::ReadOnly));
    QByteArray tunables;
    for (const QByteArray& variable : environ.readAll().split('\0'))
        if (variable.startsWith("GLIBC_TUNABLES="))
            tunables = variable;
    QVERIFY2(tunables.contains("glibc.malloc.hugetlb=1"), tunables.constData());
}

// A .pt2's program is read in this process, which does not link LibTorch (ExportedArchive is in
// the torch-free library the window links): its inputs are the placeholders of the graph the
// engine made of the same file, name for name.
void TestWindowEngine::readsAProgramWithoutLibTorch() {
    ZipArchive zip;
    std::string why;
    QVERIFY2(zip.open(fixture("resnet18.pt2"), why), why.c_str());
    const ExportedArchive archive = readExportedArchive(zip);
    QVERIFY(archive.pickledWeights || !archive.rawWeights.empty());
    QVERIFY(open(*window_, "resnet18.pt2"));
    std::vector<std::string> placeholders;
    for (const Node& n : window_->session()->shownGraph().nodes)
        if (n.op == Op::Placeholder)
            placeholders.push_back(n.name);
    std::vector<std::string> inputs;
    int userInputs = 0;
    for (const ExportedInput& in : archive.program.inputs) {
        inputs.push_back(in.name);
        userInputs += in.kind == ExportedInput::Kind::UserInput;
    }
    QCOMPARE(userInputs, 1); // x; the rest are weights and buffers
    QCOMPARE(inputs, placeholders);
}

void TestWindowEngine::crashKeepsTheWindow() {
    QVERIFY(open(*window_, "endless_loop.pt"));
    const int nodes = window_->scene()->nodeCount();
    press(*window_, QKeySequence(Qt::Key_F5));
    QTest::qWait(500);
    qint64 pid = window_->engine()->enginePid();
    QVERIFY(pid > 0 && pid != getpid());
    QSignalSpy failed(window_->engine(), &EngineClient::engineFailed);
    ::kill(static_cast<pid_t>(pid), SIGSEGV); // what LibTorch reading past a buffer does
    QVERIFY(failed.wait(scaled(5000)));
    QString banner = window_->bannerText();
    QVERIFY2(banner.startsWith("LibTorch crashed (SIGSEGV) while running node `"),
             qPrintable(banner));
    QVERIFY2(banner.contains("the window is fine"), qPrintable(banner));
    QCOMPARE(window_->scene()->nodeCount(), nodes);
    QVERIFY(settle(*window_, scaled(5000)));
    // Reset brings a fresh engine with the model at its start.
    QSignalSpy shown(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
    QVERIFY(shown.wait(scaled(10000)));
    QVERIFY(window_->engine()->enginePid() != pid);
    QVERIFY(usable(*window_));
}

void TestWindowEngine::failingNodesGiveTheirSentence_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("sentence");
    QTest::newRow("30 GB") << "alloc_30gb.pt"
                           << "DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                              "32212254720 bytes. Error code 12 (Cannot allocate memory). Change "
                              "the input or the model, then reset and run again. The engine may "
                              "use ";
    QTest::newRow("raises") << "raises.pt"
                            << "ValueError: this model raises on purpose";
}

void TestWindowEngine::failingNodesGiveTheirSentence() {
    QFETCH(QString, file);
    QFETCH(QString, sentence);
    QVERIFY(open(*window_, file.toStdString()));
    QSignalSpy shown(window_.get(), SIGNAL(runShown()));
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(shown.wait(scaled(30000)));
    QVERIFY(settle(*window_));
    QVERIFY2(window_->statusText().contains("failed"), qPrintable(window_->statusText()));
    QVERIFY2(window_->bannerText().contains(sentence), qPrintable(window_->bannerText()));
    QVERIFY(usable(*window_));
}

void TestWindowEngine::damagedWeightIsRefused() {
    QVERIFY(open(*window_, "example:tinynet"));
    QSignalSpy failed(window_->engine(), &EngineClient::loadFailed);
    window_->openModel(QString::fromStdString(fixture("resnet18_cut_weight.pt")));
    QVERIFY(failed.wait(scaled(30000)));
    QVERIFY2(window_->bannerText().contains("holds 64 bytes but its tensor needs 37632"),
             qPrintable(window_->bannerText()));
    if (auto* box = window_->findChild<QMessageBox*>())
        box->accept();
    window_->activateWindow(); // the keys go to the window again, not the closing box
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QCOMPARE(window_->modelSource(), QString("example:tinynet"));
    QVERIFY(usable(*window_));
}

void TestWindowEngine::setstateWritesNothing() {
    const QString pwned = QString::fromStdString(fixture("PWNED.pt"));
    QFile::remove(pwned);
    QVERIFY(open(*window_, "setstate_writes.pt"));
    QVERIFY2(!QFile::exists(pwned), "the engine let __setstate__ write outside its folder");
    QVERIFY(usable(*window_));
}

void TestWindowEngine::closingEndsABusyEngine() {
    QVERIFY(open(*window_, "endless_loop.pt"));
    press(*window_, QKeySequence(Qt::Key_F5));
    QTest::qWait(300);
    qint64 pid = window_->engine()->enginePid();
    QVERIFY(pid > 0);
    QElapsedTimer timer;
    timer.start();
    window_.reset();
    QVERIFY2(timer.elapsed() < 1000 * timeScale(), qPrintable(QString::number(timer.elapsed())));
    QVERIFY(::kill(static_cast<pid_t>(pid), 0) != 0); // gone, and reaped
}

QTEST_MAIN(TestWindowEngine)
#include "tst_window_engine.moc"
