// The window, offscreen, stepping models on another machine over SSH (issue 50): a real OpenSSH
// server (tests/remote/sshd-in-root: Debian's sshd in sid's root, on 127.0.0.1 at a free port,
// keys and config of its own) whose python3 is sid's PyTorch. The models are written on the
// server, by its PyTorch, in a folder this machine does not have: the window opens
// ssh://127.0.0.1:PORT/..., draws the program the engine sent, steps, Continues to "outputs equal
// to ep.module()", Compares two files there; a login shell that prints a banner, a server that
// cannot be reached and a connection killed mid-run are sentences, and Reset reconnects; nothing
// is left running on the server when the connection or the window goes.

#include <QApplication>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <csignal>
#include <unistd.h>

#include "WindowSupport.h"
#include "Wire.h"
#include "engineclient/EngineClient.h"
#include "engineclient/PythonEngine.h"
#include "engineclient/RemoteEngine.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"
#include "window/OpenRemoteDialog.h"

using namespace fxview;

class TestWindowRemote : public QObject {
    Q_OBJECT

    QTemporaryDir dir_{"/tmp/fxview-sshd-XXXXXX"};
    QProcess server_;
    int port_ = 0;
    QJsonObject models_; // what on_server.py write printed

    QString sshCommand() const { return "ssh -F " + dir_.path() + "/ssh_config"; }
    QString remote(const QString& path, int port = 0) const {
        return QString("ssh://127.0.0.1:%1%2").arg(port ? port : port_).arg(path);
    }
    QString model(int seed) const {
        return remote(models_["folder"].toString() + QString("/two_layers_%1.pt2").arg(seed));
    }

    // tests/remote/on_server.py MODE started by the server's python3 over the test's own ssh
    // (the checkout is at the same path there), its script written.
    void startOnServer(QProcess& ssh, const QString& mode) {
        ssh.start("ssh",
                  {"-F", dir_.path() + "/ssh_config", "-p", QString::number(port_), "127.0.0.1",
                   "env PYTHONPATH=" FXVIEW_TESTS_DIR "/../python:" FXVIEW_TESTS_DIR " python3 - " +
                       mode});
        QFile script(QStringLiteral(FXVIEW_TESTS_DIR "/remote/on_server.py"));
        if (script.open(QIODevice::ReadOnly))
            ssh.write(script.readAll());
        ssh.closeWriteChannel();
    }

    // What on_server.py MODE printed.
    QByteArray onServer(const QString& mode) {
        QProcess ssh;
        startOnServer(ssh, mode);
        if (!ssh.waitForFinished(scaled(120000)) || ssh.exitCode() != 0)
            qWarning("on the server: %s", ssh.readAllStandardError().constData());
        return ssh.readAllStandardOutput();
    }

    int enginesOnServer() { return onServer("count").trimmed().toInt(); }

    // Waits until no bootstrapped engine runs on the server.
    bool serverQuiet() {
        for (int i = 0; i < 40; ++i) {
            if (enginesOnServer() == 0)
                return true;
            QTest::qWait(250);
        }
        return false;
    }

    // A window as `fxview ssh://...` makes it; `python`: --python names the Python there.
    std::unique_ptr<MainWindow> window(const QString& python = {}) {
        EngineSettings settings;
        settings.remote = remote("");
        if (!python.isEmpty()) {
            settings.engineCommand = pythonEngineCommand(python);
            settings.engineGiven = settings.commandGiven = true;
        }
        EngineClient::setSettings(settings);
        auto w = std::make_unique<MainWindow>();
        w->show();
        return w;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString start = qEnvironmentVariable("FXVIEW_TEST_SSHD");
        QVERIFY2(!start.isEmpty(), "FXVIEW_TEST_SSHD names tests/remote/sshd-in-root");
        server_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        server_.setChildProcessModifier([] { ::setsid(); }); // its group ends with it
        server_.start(start, {dir_.path()});
        QVERIFY2(server_.waitForReadyRead(scaled(120000)), "the server did not start");
        port_ = server_.readLine().trimmed().toInt();
        QVERIFY(port_ > 0);
        qputenv("FXVIEW_SSH", sshCommand().toUtf8());
        models_ = QJsonDocument::fromJson(onServer("write")).object();
        QVERIFY2(models_.contains("folder"), "the server's PyTorch wrote no models");
        qInfo("the server's PyTorch %s wrote %s", qPrintable(models_["torch"].toString()),
              qPrintable(models_["folder"].toString()));
        // The files are the server's alone: the window cannot have read them here.
        QVERIFY(!QFile::exists(models_["folder"].toString()));
    }

    void cleanupTestCase() {
        if (server_.processId() > 0) {
            ::kill(-static_cast<pid_t>(server_.processId()), SIGTERM);
            if (!server_.waitForFinished(5000))
                ::kill(-static_cast<pid_t>(server_.processId()), SIGKILL);
            server_.waitForFinished(5000);
        }
    }

    void cleanup() { qputenv("FXVIEW_SSH", sshCommand().toUtf8()); }

    // What a login shell prints before the engine's first frame is skipped, the marker found
    // across two reads; 64 KB of it without the marker is no engine.
    void skipsWhatALoginShellPrintsFirst() {
        const std::string frame = encodeFrame(100, "hello");
        const std::string stream =
            "Welcome to the GPU server\n" + std::string(kFramesFollow) + frame;
        for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
            std::string buffer = stream.substr(0, cut), printed;
            bool done = skipPreamble(buffer, printed);
            buffer += stream.substr(cut);
            done = done || skipPreamble(buffer, printed);
            QVERIFY2(done, qPrintable(QString("cut at %1").arg(cut)));
            QCOMPARE(printed, std::string("Welcome to the GPU server\n"));
            QCOMPARE(buffer, frame);
        }
        std::string endless(kLargestPreamble + 100, 'x'), printed;
        QVERIFY_THROWS_EXCEPTION(WireError, skipPreamble(endless, printed));
    }

    void readsRemoteSources() {
        QString error;
        auto where = parseRemoteSource("ssh://ana@gpu-box.lab:2222/home/ana/m.pt2", error);
        QVERIFY(where);
        QCOMPARE(where->user, QString("ana"));
        QCOMPARE(where->host, QString("gpu-box.lab"));
        QCOMPARE(where->port, 2222);
        QCOMPARE(where->path, QString("/home/ana/m.pt2"));
        QCOMPARE(where->machine(), QString("ssh://ana@gpu-box.lab:2222"));
        QCOMPARE(parseRemoteSource("ssh://gpu/~/runs/m.pt2", error)->path, QString("~/runs/m.pt2"));
        QCOMPARE(parseRemoteSource("ssh://[::1]/m.pt2", error)->host, QString("[::1]"));
        // Nothing ssh would read as an option, nor the shell as a word of its own.
        for (const char* bad : {"ssh://-oProxyCommand=touch%20x/m.pt2", "ssh://a;b/m.pt2",
                                "ssh://gpu:99999/m.pt2", "ssh://-l/m.pt2", "ssh:///m.pt2"}) {
            error.clear();
            QVERIFY2(!parseRemoteSource(bad, error), bad);
            QVERIFY2(!error.isEmpty(), bad);
        }
        QCOMPARE(shellQuoted("it's"), QString("'it'\\''s'"));
    }

    // The whole path: the server's PyTorch loads the file where it lies and sends its program;
    // the window draws it as that PyTorch prints it, steps, Continues to ep.module()'s outputs,
    // and Compares with the other file on the server.
    void opensStepsContinuesAndComparesOnTheServer() {
        {
            auto w = window();
            QSignalSpy failed(w->engine(), &EngineClient::loadFailed);
            QVERIFY2(open(*w, model(0).toStdString()),
                     failed.isEmpty() ? "no sentence"
                                      : qPrintable(failed.front().value(0).toString()));
            QCOMPARE(QString::fromStdString(w->session()->model().graphText).trimmed(),
                     models_["text"].toString().trimmed());
            press(*w, QKeySequence(Qt::Key_F10));
            QVERIFY(settle(*w));
            QVERIFY2(!w->currentNode().isEmpty(), "no node ran");
            press(*w, QKeySequence(Qt::Key_F5));
            QVERIFY(settle(*w));
            QVERIFY2(w->statusText().contains("finished, outputs equal to ep.module()"),
                     qPrintable(w->statusText()));

            QSignalSpy compared(w->session(), &DebugSession::comparisonReady);
            QSignalSpy refused(w->session(), &DebugSession::comparisonFailed);
            CompareRequest request;
            request.modelB = model(1).toStdString();
            w->session()->compare(request);
            QTRY_VERIFY_WITH_TIMEOUT(!compared.isEmpty() || !refused.isEmpty(), scaled(60000));
            QVERIFY2(refused.isEmpty(), qPrintable(refused.value(0).value(0).toString()));
            auto report =
                compared.front().value(0).value<std::shared_ptr<const ComparisonReport>>();
            double outputMaxAbs = -1;
            for (const NodeDifference& d : report->nodes)
                if (d.node == "linear_1")
                    outputMaxAbs = d.maxAbs;
            QCOMPARE(outputMaxAbs, models_["max_abs"].toDouble());
            const int first = report->firstDivergence(Metric::RelL2, 1e-3);
            QVERIFY(first >= 0);
            QCOMPARE(QString::fromStdString(report->nodes[static_cast<std::size_t>(first)].node),
                     models_["first"].toString());
            const int engines = enginesOnServer();
            QVERIFY2(engines == 1, qPrintable(QString("%1 engines on the server").arg(engines)));
        }
        // The window gone, its ssh gone: the engine on the server ends with its stdin.
        QVERIFY2(serverQuiet(), "an engine was left running on the server");
    }

    // ssh://host/~/file is in the home folder there, whichever engine opens it.
    void opensAPathInTheRemoteHome() {
        auto w = window();
        QSignalSpy failed(w->engine(), &EngineClient::loadFailed);
        QVERIFY2(open(*w, remote("/~/two_layers_0.pt2").toStdString()),
                 failed.isEmpty() ? "no sentence" : qPrintable(failed.front().value(0).toString()));
        QCOMPARE(QString::fromStdString(w->session()->model().graphText).trimmed(),
                 models_["text"].toString().trimmed());
    }

    // bash runs $BASH_ENV first: a login shell that prints on stdout before the engine starts.
    // The engine is the Python --python names there (the bootstrap runs it as given).
    void aBannerOnStdoutIsSkipped() {
        QFile banner(dir_.path() + "/banner.sh");
        QVERIFY(banner.open(QIODevice::WriteOnly));
        banner.write("echo 'Welcome to the GPU server'\necho 'Last login: today'\n");
        banner.close();
        qputenv("FXVIEW_SSH", (sshCommand() + " -o SetEnv=BASH_ENV=" + banner.fileName()).toUtf8());
        auto w = window("/usr/bin/python3");
        QSignalSpy failed(w->engine(), &EngineClient::loadFailed);
        QVERIFY2(open(*w, model(1).toStdString()),
                 failed.isEmpty() ? "no sentence" : qPrintable(failed.front().value(0).toString()));
        press(*w, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*w));
        QVERIFY2(w->statusText().contains("outputs equal to ep.module()"),
                 qPrintable(w->statusText()));
    }

    // fxview.serve in a Python on the server, with no window and no display there: it prints the
    // command that attaches, the window attaches through ssh (a relay to the private socket),
    // steps and Continues the live model, detaches; serve() then returns and the script goes on.
    void attachesToAModelServedOnTheServer_data() {
        QTest::addColumn<QString>("call");
        QTest::newRow("fxview.serve") << "serve";
        QTest::newRow("fxview.show, no display") << "show";
        QTest::newRow("fxview.backend(serve=True)") << "backend";
    }

    void attachesToAModelServedOnTheServer() {
        QFETCH(QString, call);
        QProcess script;
        script.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        startOnServer(script, call);
        QString command, modes;
        while (command.isEmpty() || (call == "serve" && modes.isEmpty())) {
            QVERIFY2(script.canReadLine() || script.waitForReadyRead(scaled(120000)),
                     "the served script printed no command");
            while (script.canReadLine()) {
                const QString line = QString::fromUtf8(script.readLine()).trimmed();
                if (line.startsWith("fxview ssh://"))
                    command = line;
                if (line.startsWith("modes "))
                    modes = line;
            }
        }
        QVERIFY2(command.startsWith("fxview ssh://fxview-remote@") &&
                     command.contains(" --attach /"),
                 qPrintable(command));
        if (call == "serve")
            QCOMPARE(modes, QString("modes 700 600")); // the socket is its owner's alone
        const QString socket = command.section(" --attach ", 1);

        EngineSettings settings;
        settings.remote = remote("");
        settings.attachRemote = socket;
        EngineClient::setSettings(settings);
        {
            MainWindow w;
            w.show();
            QVERIFY2(open(w, "python:live"), qPrintable(w.bannerText()));
            QVERIFY(w.engine()->live());
            press(w, QKeySequence(Qt::Key_F10));
            QVERIFY(settle(w));
            QVERIFY2(!w.currentNode().isEmpty(), "no node ran");
            press(w, QKeySequence(Qt::Key_F5));
            QVERIFY(settle(w));
            QVERIFY2(w.statusText().contains("finished"), qPrintable(w.statusText()));
            QSignalSpy ended(w.engine(), &EngineClient::liveEnded);
            w.engine()->detach();
            QVERIFY(ended.wait(scaled(20000)));
        }
        QVERIFY(script.waitForFinished(scaled(60000)));
        const QString rest = QString::fromUtf8(script.readAllStandardOutput());
        QVERIFY2(rest.contains("serve returned False"), qPrintable(rest));
        QCOMPARE(script.exitCode(), 0);
    }

    // File ▸ Open Remote…: the folder on the server listed by its shell (a banner before it
    // skipped), a subfolder entered and left, a model chosen; a folder that is not there is a
    // sentence; the machine and folder are offered next time.
    void openRemoteListsTheFolderOnTheServer() {
        QTemporaryDir settingsDir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
        QFile banner(dir_.path() + "/banner.sh");
        QVERIFY(banner.open(QIODevice::WriteOnly));
        banner.write("echo 'Welcome to the GPU server'\n");
        banner.close();
        qputenv("FXVIEW_SSH", (sshCommand() + " -o SetEnv=BASH_ENV=" + banner.fileName()).toUtf8());
        const QString folder = models_["folder"].toString();
        onServer("subfolder"); // folder/runs/, to walk into
        OpenRemoteDialog dialog;
        QSignalSpy listed(&dialog, &OpenRemoteDialog::listed);
        dialog.hostBox()->setEditText(QString("127.0.0.1:%1").arg(port_));
        dialog.folderEdit()->setText(folder + "/nowhere");
        dialog.list();
        QVERIFY(listed.wait(scaled(30000)));
        QVERIFY2(dialog.statusLabel()->text().startsWith("There is no folder"),
                 qPrintable(dialog.statusLabel()->text()));
        dialog.folderEdit()->setText(folder);
        dialog.list();
        QVERIFY(listed.wait(scaled(30000)));
        auto names = [&dialog] {
            QStringList shown;
            for (int i = 0; i < dialog.entries()->count(); ++i)
                shown << dialog.entries()->item(i)->text();
            return shown;
        };
        QCOMPARE(names(), QStringList({"..", "runs/", "two_layers_0.pt2", "two_layers_1.pt2"}));
        emit dialog.entries()->itemActivated(dialog.entries()->item(1)); // into runs/
        QVERIFY(listed.wait(scaled(30000)));
        QCOMPARE(dialog.folderEdit()->text(), folder + "/runs");
        QCOMPARE(names(), QStringList({".."}));
        emit dialog.entries()->itemActivated(dialog.entries()->item(0)); // back up
        QVERIFY(listed.wait(scaled(30000)));
        QCOMPARE(dialog.folderEdit()->text(), folder);
        emit dialog.entries()->itemActivated(dialog.entries()->item(2));
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.source(), model(0));
        OpenRemoteDialog again;
        QCOMPARE(again.hostBox()->currentText(), QString("127.0.0.1:%1").arg(port_));
        QCOMPARE(again.folderEdit()->text(), folder);
    }

    // A TorchScript archive on the host opens in the host's fxview-engine --stdio (sid's build,
    // seen by the server at the same path): its LibTorch traces the graph and runs it, confined
    // there; the window checks its outputs against the forward, as with a local file.
    void aTorchScriptArchiveRunsInTheHostsFxviewEngine() {
        const QString build = qEnvironmentVariable("FXVIEW_BUILD_DIR");
        EngineSettings settings;
        settings.engineCommand = QStringList{build + "/app/fxview-engine", "--stdio"};
        settings.engineGiven = settings.commandGiven = true;
        settings.remote = remote(""); // as fxview ssh://... sets it: no spare started here
        EngineClient::setSettings(settings);
        MainWindow w;
        w.show();
        QSignalSpy failed(w.engine(), &EngineClient::loadFailed);
        QVERIFY2(open(w, remote(build + "/fixtures/resnet18_traced.pt").toStdString()),
                 failed.isEmpty() ? "no sentence" : qPrintable(failed.front().value(0).toString()));
        QVERIFY(w.session()->model().graph.nodeCount(true) > 50);
        press(w, QKeySequence(Qt::Key_F10));
        QVERIFY(settle(w));
        QVERIFY2(!w.currentNode().isEmpty(), "no node ran");
        press(w, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(w, scaled(120000)));
        QVERIFY2(w.statusText().contains("output equal to forward"), qPrintable(w.statusText()));
    }

    void aServerThatCannotBeReachedIsASentence() {
        auto w = window();
        QSignalSpy failed(w->engine(), &EngineClient::loadFailed);
        // Port 1 on loopback: nothing listens there.
        w->openModel(remote("/var/tmp/m.pt2", 1));
        QVERIFY(failed.wait(scaled(30000)));
        const QString sentence = failed.front().value(0).toString();
        QVERIFY2(sentence.contains("The engine on 127.0.0.1:1") &&
                     sentence.contains("Connection refused"),
                 qPrintable(sentence));
    }

    // The connection killed after two steps: a sentence naming the machine, the picture kept,
    // nothing left on the server; Reset connects again and the model runs from its start.
    void aKilledConnectionIsASentenceAndResetReconnects() {
        auto w = window();
        QVERIFY(open(*w, model(0).toStdString()));
        press(*w, QKeySequence(Qt::Key_F10));
        press(*w, QKeySequence(Qt::Key_F10));
        QVERIFY(settle(*w));
        const QString at = w->currentNode();
        QVERIFY(!at.isEmpty());
        const qint64 ssh = w->engine()->enginePid();
        QVERIFY(ssh > 0);
        ::kill(static_cast<pid_t>(ssh), SIGKILL);
        QTRY_VERIFY_WITH_TIMEOUT(
            w->bannerText().contains("The engine on 127.0.0.1:" + QString::number(port_)),
            scaled(20000));
        QVERIFY2(w->bannerText().contains("Reset"), qPrintable(w->bannerText()));
        QVERIFY(w->session()->model().graph.nodeCount(true) > 0); // the picture stays
        QVERIFY2(serverQuiet(), "the engine outlived its connection on the server");
        press(*w, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
        QVERIFY(settle(*w));
        press(*w, QKeySequence(Qt::Key_F5));
        QVERIFY(settle(*w));
        QVERIFY2(w->statusText().contains("outputs equal to ep.module()"),
                 qPrintable(w->statusText()));
        QVERIFY(w->engine()->enginePid() != ssh);
    }
};

QTEST_MAIN(TestWindowRemote)
#include "tst_window_remote.moc"
