// The window, offscreen, with an engine started from a command line (fxview --engine, --python):
// the root's own Python and PyTorch as the Python engine (python3 -m fxview.engine) opens, draws
// and Continues a .pt2 to "outputs equal to ep.module()"; children that are no engine (a banner
// on stdout, garbage, a stall, a death mid-frame) each end in one sentence and leave the window
// as it was (issue 49).

#include <QApplication>
#include <QSignalSpy>

#include "WindowSupport.h"
#include "engineclient/EngineClient.h"
#include "engineclient/EngineProcess.h"
#include "engineclient/PythonEngine.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

// A window whose engines are `command`.
std::unique_ptr<MainWindow> windowWith(const QStringList& command) {
    EngineSettings settings;
    settings.engineCommand = command;
    EngineClient::setSettings(settings);
    auto window = std::make_unique<MainWindow>();
    window->show();
    return window;
}

QString graphTextOf(const MainWindow& window) {
    return QString::fromStdString(window.session()->model().graphText);
}

} // namespace

class TestWindowPython : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { EngineClient::setSettings({}); }

    // By default this root's python3 on transformer_block.pt2; FXVIEW_TEST_ENGINE (a command
    // line), FXVIEW_TEST_PT2 and FXVIEW_TEST_PT2_TEXT (the print of the PyTorch that wrote it)
    // name another: the window-only build runs it so with each root's Python (tests/ui).
    void continuesToOutputsEqualToEpModule() {
        QString error;
        const QStringList command =
            qEnvironmentVariableIsSet("FXVIEW_TEST_ENGINE")
                ? engineCommandLine(qEnvironmentVariable("FXVIEW_TEST_ENGINE"), error)
                : pythonEngineCommand(FXVIEW_PYTHON_PATH);
        const std::string pt2 = qEnvironmentVariableIsSet("FXVIEW_TEST_PT2")
                                    ? qEnvironmentVariable("FXVIEW_TEST_PT2").toStdString()
                                    : fixture("transformer_block.pt2");
        const std::string text = qEnvironmentVariableIsSet("FXVIEW_TEST_PT2_TEXT")
                                     ? qEnvironmentVariable("FXVIEW_TEST_PT2_TEXT").toStdString()
                                     : fixture("transformer_block.pt2.txt");
        QVERIFY2(!command.isEmpty(), qPrintable(error));
        auto window = windowWith(command);
        QSignalSpy failed(window->engine(), &EngineClient::loadFailed);
        const bool opened = open(*window, pt2);
        QVERIFY2(opened,
                 failed.isEmpty() ? "no sentence" : qPrintable(failed.front().value(0).toString()));
        QVERIFY2(window->bannerText().isEmpty() ||
                     !window->bannerText().contains("differs from print(ep.graph)"),
                 qPrintable(window->bannerText()));
        // The window's walk of the program, with the schemas of the engine's PyTorch, prints as
        // that PyTorch printed it when it wrote the file.
        QCOMPARE(graphTextOf(*window).trimmed(), QString::fromUtf8(readFile(text)).trimmed());
        QSignalSpy shown(window.get(), SIGNAL(runShown()));
        press(*window, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*window) && !shown.isEmpty());
        QVERIFY2(window->statusText().contains("finished, outputs equal to ep.module()"),
                 qPrintable(window->statusText()));
        // Step from the start: the engine answers by the walked graph's node names.
        press(*window, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
        QVERIFY(settle(*window));
        press(*window, QKeySequence(Qt::Key_F10));
        QVERIFY(settle(*window));
        QVERIFY2(!window->currentNode().isEmpty(), "no node ran");
    }

    void childrenThatAreNoEngineGetASentence_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("said");
        QTest::newRow("banner") << "echo Welcome to the GPU server; sleep 30"
                                << "sent a broken message";
        QTest::newRow("garbage") << "head -c 4096 /dev/zero | tr '\\0' x; sleep 30"
                                 << "sent a broken message";
        QTest::newRow("death mid-frame") << "printf 'FXVE'; exit 3"
                                         << "exited (code 3)";
        QTest::newRow("crash") << "kill -SEGV $$"
                               << "crashed (SIGSEGV)";
    }

    void childrenThatAreNoEngineGetASentence() {
        QFETCH(QString, script);
        QFETCH(QString, said);
        auto window = windowWith({"/bin/sh", "-c", script});
        QSignalSpy failed(window->engine(), &EngineClient::loadFailed);
        window->openModel(QString::fromStdString(fixture("tinynet.pt2")));
        QVERIFY(failed.wait(scaled(20000)));
        const QString sentence = failed.front().value(0).toString();
        QVERIFY2(sentence.startsWith("The engine `/bin/sh -c ") && sentence.contains(said) &&
                     sentence.contains("the window is fine"),
                 qPrintable(sentence));
        QVERIFY(window->isVisible());
    }

    // An engine that never answers: the load waits (the file drawn ahead meanwhile), Cancel ends
    // it and its drawing, and the window is as it was.
    void aStalledEngineIsCancelled() {
        auto window = windowWith({"/bin/sh", "-c", "sleep 600"});
        QSignalSpy failed(window->engine(), &EngineClient::loadFailed);
        window->openModel(QString::fromStdString(fixture("tinynet.pt2")));
        QTest::qWait(500);
        QVERIFY(window->engine()->busy());
        QCOMPARE(window->session()->cancelOpen(), QString::fromStdString(fixture("tinynet.pt2")));
        QVERIFY(settle(*window, scaled(5000)));
        QVERIFY(failed.isEmpty());
        QVERIFY(!window->session()->canRun());
        QVERIFY(window->session()->model().graph.nodes.empty());
    }
};

QTEST_MAIN(TestWindowPython)
#include "tst_window_python.moc"
