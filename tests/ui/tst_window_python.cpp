// The window, offscreen, with an engine started from a command line (fxview --engine, --python):
// the root's own Python and PyTorch as the Python engine (python3 -m fxview.engine) opens, draws
// and Continues a .pt2 to "outputs equal to ep.module()"; children that are no engine (a banner
// on stdout, garbage, a stall, a death mid-frame) each end in one sentence and leave the window
// as it was; a module the file names is offered for import; a value saved comes over the wire and
// the window writes it; the window removes no folder an engine names (issue 49).

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cstring>
#include <unistd.h>

#include "EngineProtocol.h"
#include "WindowSupport.h"
#include "Wire.h"
#include "engineclient/EngineClient.h"
#include "engineclient/EngineProcess.h"
#include "engineclient/PythonEngine.h"
#include "scene/GraphScene.h"
#include "session/DebugSession.h"
#include "session/SessionSettings.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

// A window whose engines are `command`.
// A window whose engine is `command`, as --engine names it (empty: fxview-engine).
std::unique_ptr<MainWindow> windowWith(const QStringList& command, bool given = true) {
    EngineSettings settings;
    settings.engineCommand = command;
    settings.engineGiven = given;
    EngineClient::setSettings(settings);
    auto window = std::make_unique<MainWindow>();
    window->show();
    return window;
}

QString graphTextOf(const MainWindow& window) {
    return QString::fromStdString(window.session()->model().graphText);
}

// A value saved through the window: (destination, the sentence or "") once the window wrote it.
std::pair<QString, QString> saved(MainWindow& window, const SaveValueRequest& request,
                                  const QString& destination) {
    QSignalSpy done(window.engine(), &EngineClient::valueSaved);
    window.session()->saveValue(request, destination);
    if (!done.wait(scaled(30000)))
        return {QString(), "no answer"};
    return {done.front().value(0).toString(), done.front().value(1).toString()};
}

// A float32 .npy's shape and values (NumPy's format 1.0, little-endian, C order).
bool readNpy(const QByteArray& npy, std::vector<std::int64_t>& shape, std::vector<float>& data) {
    if (!npy.startsWith("\x93NUMPY") || npy.size() < 10)
        return false;
    const int headerSize = static_cast<unsigned char>(npy[8]) | static_cast<unsigned char>(npy[9])
                                                                    << 8;
    const QByteArray header = npy.mid(10, headerSize);
    if (!header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False"))
        return false;
    const int open = header.indexOf("'shape': (") + 10, close = header.indexOf(')', open);
    for (const QByteArray& n : header.mid(open, close - open).split(','))
        if (!n.trimmed().isEmpty())
            shape.push_back(n.trimmed().toLongLong());
    const QByteArray body = npy.mid(10 + headerSize);
    data.resize(static_cast<std::size_t>(body.size()) / sizeof(float));
    std::memcpy(data.data(), body.constData(), data.size() * sizeof(float));
    return true;
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

    // Step Into a while_loop on the Python engine: the frame shows its cond_fn and its body_fn by
    // turns, the banner names the block and its iteration, and Step at the loop's end returns to
    // the program, whose Continue is still equal to ep.module(). The program is written by the
    // engine's own PyTorch (a .pt2 of another version may not load in it), which also says
    // whether its own ep.module() runs it (2.6's load hands while_loop lists where its
    // while_loop wants tuples: that PyTorch cannot run the file, and the window says so).
    void stepsIntoALoopBlockByBlock() {
        QTemporaryDir folder;
        const QString pt2 = folder.filePath("while_loop.pt2");
        QProcess writer;
        writer.start(FXVIEW_PYTHON_PATH,
                     {"-c",
                      "import sys, torch; sys.path.insert(0, sys.argv[1]); "
                      "from pt2_hop_models import WhileLoop; torch.manual_seed(0); "
                      "args = (torch.randn(2, 4), torch.tensor(3)); "
                      "torch.export.save(torch.export.export(WhileLoop().eval(), args), "
                      "sys.argv[2])\n"
                      "try: torch.export.load(sys.argv[2]).module()(*args); print('runs')\n"
                      "except Exception: print('fails')",
                      FXVIEW_TESTS_DIR "/fixtures", pt2});
        QVERIFY2(writer.waitForFinished(120000) && writer.exitCode() == 0,
                 writer.readAllStandardError().constData());
        const bool pyTorchRunsIt = writer.readAllStandardOutput().trimmed() == "runs";
        auto window = windowWith(pythonEngineCommand(FXVIEW_PYTHON_PATH));
        QVERIFY(open(*window, pt2.toStdString()));
        const RunSnapshot& run = window->session()->run();
        for (int i = 0; i < 20 && !run.inside; ++i) {
            press(*window, QKeySequence(Qt::Key_F11));
            QVERIFY(settle(*window));
        }
        QVERIFY2(run.inside && run.inside->node == "while_loop", qPrintable(window->statusText()));
        QStringList blocks;
        for (int i = 0; i < 200 && run.inside; ++i) {
            const QString block = QString::fromStdString(run.inside->moduleType);
            if (blocks.isEmpty() || blocks.back() != block) {
                blocks << block;
                QVERIFY2(window->bannerText().contains(block), qPrintable(window->bannerText()));
                for (const Node& n : run.inside->graph.nodes)
                    QVERIFY2(window->scene()->nodeItem(QString::fromStdString(n.name)),
                             qPrintable(block + " is not drawn: no " + n.name.c_str()));
            }
            press(*window, QKeySequence(Qt::Key_F10));
            QVERIFY(settle(*window));
        }
        QCOMPARE(blocks,
                 QStringList(
                     {"while_loop: cond_fn after 0 iterations", "while_loop: body_fn, iteration 1",
                      "while_loop: cond_fn after 1 iteration", "while_loop: body_fn, iteration 2",
                      "while_loop: cond_fn after 2 iterations", "while_loop: body_fn, iteration 3",
                      "while_loop: cond_fn after 3 iterations"}));
        QCOMPARE(window->currentNode(), QString("while_loop"));
        QVERIFY(window->scene()->nodeItem("getitem")); // the program's graph again
        press(*window, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*window));
        QVERIFY2(window->statusText().contains(pyTorchRunsIt
                                                   ? "finished, outputs equal to ep.module()"
                                                   : "finished, output not checked (forward "
                                                     "failed)"),
                 qPrintable(window->statusText()));
    }

    // A program calling an operator registered in Python by a module of the person's own: the
    // engine refuses it naming the module, the window's box offers to import it, and taking the
    // offer opens the file with it imported (and remembers the import with the file's engine).
    void offersToImportTheModuleAFileNames() {
        QTemporaryDir folder;
        QFile module(folder.filePath("my_ops.py"));
        QVERIFY(module.open(QIODevice::WriteOnly));
        module.write("import torch\n"
                     "@torch.library.custom_op('fxview_test::scaled_tanh', mutates_args=())\n"
                     "def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:\n"
                     "    return torch.tanh(x) * scale\n"
                     "@scaled_tanh.register_fake\n"
                     "def _(x, scale):\n"
                     "    return torch.empty_like(x)\n"
                     "class UsesOp(torch.nn.Module):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.fc = torch.nn.Linear(4, 4)\n"
                     "    def forward(self, x):\n"
                     "        return torch.ops.fxview_test.scaled_tanh(self.fc(x), 0.5) + 1\n");
        module.close();
        const QString pt2 = folder.filePath("uses_op.pt2");
        QProcess writer;
        writer.start(FXVIEW_PYTHON_PATH,
                     {"-c",
                      "import sys, torch; sys.path.insert(0, sys.argv[1]); import my_ops; "
                      "torch.manual_seed(0); torch.export.save(torch.export.export("
                      "my_ops.UsesOp(), (torch.randn(2, 4),)), sys.argv[2])",
                      folder.path(), pt2});
        QVERIFY2(writer.waitForFinished(120000) && writer.exitCode() == 0,
                 writer.readAllStandardError().constData());
        // The engine finds the person's module where their Python would (its path).
        const QByteArray path = qgetenv("PYTHONPATH");
        qputenv("PYTHONPATH", folder.path().toUtf8());
        auto window = windowWith(pythonEngineCommand(FXVIEW_PYTHON_PATH), false);
        QSignalSpy failed(window->engine(), &EngineClient::loadFailed);
        window->openModel(pt2);
        QVERIFY(failed.wait(scaled(60000)));
        QVERIFY2(failed.front().value(0).toString().contains("--import my_ops"),
                 qPrintable(failed.front().value(0).toString()));
        QCOMPARE(failed.front().value(2).toStringList(), QStringList{"my_ops"});
        QTRY_VERIFY(window->failureBox());
        QAbstractButton* offer = nullptr;
        for (QAbstractButton* button : window->failureBox()->buttons())
            if (button->text() == "Import my_ops and Open Again")
                offer = button;
        QVERIFY2(offer, "the box offers no import");
        QSignalSpy shown(window.get(), SIGNAL(runShown()));
        offer->click();
        const bool opened = shown.wait(scaled(60000)) && settle(*window);
        qputenv("PYTHONPATH", path);
        QVERIFY2(opened, qPrintable(window->bannerText()));
        QCOMPARE(window->session()->source(), pt2);
        QCOMPARE(window->session()->model().engine.imports, std::vector<std::string>{"my_ops"});
        QTRY_VERIFY(!window->failureBox()); // the box went with its button
        window->activateWindow(); // the box had taken the keyboard
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        press(*window, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*window));
        QVERIFY2(window->statusText().contains("finished, outputs equal to ep.module()"),
                 qPrintable(window->statusText()));
        const auto remembered = settings::engineFor(pt2);
        QVERIFY(remembered && remembered->imports == std::vector<std::string>{"my_ops"});
    }

    // A file opens in the engine it was last opened with when the command line names none
    // (File ▸ Open, Open Recent), its --import and --device too; one the command line names wins,
    // and fxview-engine with nothing asked of it is not remembered.
    void aFileOpensInTheEngineItWasLastOpenedWith() {
        const QString pt2 = QString::fromStdString(fixture("tinynet.pt2"));
        const QStringList python = pythonEngineCommand(FXVIEW_PYTHON_PATH);
        {
            auto window = windowWith(python);
            QVERIFY(open(*window, pt2.toStdString()));
            QCOMPARE(window->session()->model().engine.command, python);
        }
        auto cmdline = [](MainWindow& window) {
            QFile file(QString("/proc/%1/cmdline").arg(window.engine()->enginePid()));
            return file.open(QIODevice::ReadOnly) ? file.readAll().replace('\0', ' ')
                                                  : QByteArray();
        };
        // The command lines of this process's children (an engine still loading has no pid
        // the client gives).
        auto children = [] {
            QByteArray all;
            for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
                QFile stat("/proc/" + pid + "/stat"), line("/proc/" + pid + "/cmdline");
                if (!stat.open(QIODevice::ReadOnly) || !line.open(QIODevice::ReadOnly))
                    continue;
                const QList<QByteArray> fields = stat.readAll().split(')').value(1).split(' ');
                if (fields.value(2).toLongLong() == getpid())
                    all += line.readAll().replace('\0', ' ') + "\n";
            }
            return all;
        };
        {
            // No engine named: the remembered one opens it, not the default.
            auto window = windowWith({"/bin/sh", "-c", "sleep 600"}, false);
            QVERIFY(open(*window, pt2.toStdString()));
            QCOMPARE(window->session()->model().engine.command, python);
            QVERIFY2(cmdline(*window).contains("fxview.engine"), cmdline(*window).constData());
            QVERIFY(window->statusText().isEmpty() || !window->statusText().contains("sleep"));
        }
        {
            // Named on the command line: that one, and it is remembered from now on.
            auto window = windowWith({"/bin/sh", "-c", "sleep 600"});
            window->openModel(pt2);
            QTRY_VERIFY_WITH_TIMEOUT(children().contains("sleep 600"), scaled(10000));
            QVERIFY(window->session()->cancelOpen() == pt2);
        }
        QVERIFY(settings::engineFor(pt2).has_value());
        QCOMPARE(settings::engineFor(pt2)->command, python); // the stalled one never opened it
        settings::rememberEngine(pt2, {});
        QVERIFY(!settings::engineFor(pt2).has_value());
    }

    // --engine "COMMAND" is split into words as sh splits them, so that a command copied from a
    // prompt starts the same program with the same arguments.
    void anEngineCommandIsSplitAsShSplitsIt_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("blanks") << "  python3  -m fxview.engine "
                                << QStringList{"python3", "-m", "fxview.engine"};
        QTest::newRow("single quotes")
            << "sh -c 'sleep 1; exit 3'" << QStringList{"sh", "-c", "sleep 1; exit 3"};
        QTest::newRow("double quotes") << "sh -c \"echo \\\"a b\\\" \\$HOME \\x\""
                                       << QStringList{"sh", "-c", "echo \"a b\" $HOME \\x"};
        QTest::newRow("escaped blank")
            << "/opt/my\\ venv/bin/python -m fxview.engine"
            << QStringList{"/opt/my venv/bin/python", "-m", "fxview.engine"};
        QTest::newRow("quotes inside a word")
            << "--import=a'b c'\"d e\"" << QStringList{"--import=ab cd e"};
        QTest::newRow("empty quotes") << "prog '' x" << QStringList{"prog", "", "x"};
        QTest::newRow("home") << "~/venv/bin/python -m fxview.engine"
                              << QStringList{QDir::homePath() + "/venv/bin/python", "-m",
                                             "fxview.engine"};
    }
    void anEngineCommandIsSplitAsShSplitsIt() {
        QFETCH(QString, command);
        QFETCH(QStringList, words);
        QString error;
        QCOMPARE(engineCommandLine(command, error), words);
        QVERIFY(error.isEmpty());
    }
    void anEngineCommandThatCannotBeSplitIsASentence() {
        for (const QString& command :
             {QString("sh -c 'exit 3"), QString("python3 \"-m"), QString("   ")}) {
            QString error;
            QVERIFY(engineCommandLine(command, error).isEmpty());
            QVERIFY2(error.startsWith("--engine"), qPrintable(command + ": " + error));
        }
    }

    // A value saved from the Values dock comes over the wire in pieces and the window writes it:
    // the .npy holds the node's shape and the values its summary describes; a folder that
    // cannot be written gets a sentence, and the engine is fine after it.
    void savesAValueWhereAsked() {
        auto window = windowWith(pythonEngineCommand(FXVIEW_PYTHON_PATH));
        QVERIFY(open(*window, fixture("tinynet.pt2")));
        press(*window, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*window));
        const NodeRecord* linear = window->session()->recordOf("linear");
        QVERIFY(linear && linear->value.hasStats);
        QTemporaryDir folder;
        SaveValueRequest request;
        request.value.node = "linear";
        request.format = ValueFileFormat::Npy;
        auto [npyPath, npyError] = saved(*window, request, folder.filePath("linear.npy"));
        QVERIFY2(npyError.isEmpty(), qPrintable(npyError));
        QFile npy(npyPath);
        QVERIFY(npy.open(QIODevice::ReadOnly));
        std::vector<std::int64_t> shape;
        std::vector<float> data;
        QVERIFY(readNpy(npy.readAll(), shape, data));
        QCOMPARE(shape, linear->value.shape);
        QCOMPARE(static_cast<std::int64_t>(data.size()), linear->value.numel);
        QCOMPARE(double(*std::min_element(data.begin(), data.end())), linear->value.min);
        QCOMPARE(double(*std::max_element(data.begin(), data.end())), linear->value.max);
        request.format = ValueFileFormat::TorchSave;
        auto [ptPath, ptError] = saved(*window, request, folder.filePath("linear.pt"));
        QVERIFY2(ptError.isEmpty(), qPrintable(ptError));
        QFile pt(ptPath);
        QVERIFY(pt.open(QIODevice::ReadOnly) && pt.read(2) == "PK"); // torch.save's zip
        auto [nowhere, error] = saved(*window, request, folder.filePath("no/such/linear.pt"));
        QVERIFY2(error.startsWith("Cannot write") && !QFile::exists(nowhere), qPrintable(error));
        QCOMPARE(QDir(folder.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);
        press(*window, QKeySequence(Qt::Key_F10)); // the engine goes on
        QVERIFY(settle(*window));
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

    // fxview-engine's Hello names the folder it writes in: the window removes none it is named,
    // only the TMPDIR it made for that engine (here a Hello naming another engine's folder,
    // then the engine's end).
    void aFolderAnEngineNamesIsNotRemoved() {
        QTemporaryDir folder;
        QVERIFY(QDir(folder.path()).mkpath("fxview-engine-AbCdEf"));
        const QString precious = folder.filePath("fxview-engine-AbCdEf");
        EngineHello hello;
        hello.pid = 1;
        hello.tempDir = precious.toStdString();
        QFile frames(folder.filePath("hello.bin"));
        QVERIFY(frames.open(QIODevice::WriteOnly));
        const std::string bytes =
            encodeFrame(static_cast<std::uint16_t>(EngineMessage::Hello), encode(hello));
        frames.write(bytes.data(), static_cast<qint64>(bytes.size()));
        frames.close();
        QFile engine(folder.filePath("engine"));
        QVERIFY(engine.open(QIODevice::WriteOnly));
        engine.write(QString("#!/bin/sh\ncat '%1'\nexit 0\n").arg(frames.fileName()).toUtf8());
        engine.close();
        engine.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QByteArray before = qgetenv("FXVIEW_ENGINE"), tmp = qgetenv("TMPDIR");
        qputenv("FXVIEW_ENGINE", QFile::encodeName(engine.fileName()));
        qputenv("TMPDIR", QFile::encodeName(folder.path()));
        auto window = windowWith({});
        QSignalSpy failed(window->engine(), &EngineClient::loadFailed);
        window->openModel(QString::fromStdString(fixture("tinynet_scripted.pt")));
        const bool said = failed.wait(scaled(20000));
        qputenv("FXVIEW_ENGINE", before);
        qputenv("TMPDIR", tmp);
        QVERIFY(said);
        window.reset();
        QVERIFY2(QFileInfo(precious).isDir(), "the folder the engine named was removed");
        // The one the window made for it is gone.
        QTRY_COMPARE_WITH_TIMEOUT(QDir(folder.path()).entryList({"fxview-engine-*"}, QDir::Dirs),
                                  QStringList{"fxview-engine-AbCdEf"}, scaled(5000));
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

int main(int argc, char** argv) {
    QStandardPaths::setTestModeEnabled(true); // remembered files and engines go to a test place
    QApplication app(argc, argv);
    app.setOrganizationName("fxview-tests");
    app.setApplicationName("tst_window_python");
    QSettings().clear();
    TestWindowPython test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_window_python.moc"
