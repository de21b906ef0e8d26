// fxview: the desktop app. `fxview [MODEL] [--input SPEC]...` opens MODEL (default: the
// built-in TinyNet example) with the given sample input (default: guessed from the graph).

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "Confinement.h"
#include "EngineConnection.h"
#include "InputSpec.h"
#include "OpenTime.h"
#include "RunReport.h"
#include "Versions.h"
#include "engineclient/EngineProcess.h"
#include "engineclient/PythonEngine.h"
#include "engineclient/RemoteEngine.h"
#include "session/SessionSettings.h"
#include "window/MainWindow.h"
#ifdef FXVIEW_IN_PROCESS_BUILD
#include "EngineServer.h"
#endif

namespace {

void nameApplication() {
    QCoreApplication::setApplicationName("fxview");
    QCoreApplication::setOrganizationName("fxview");
    QCoreApplication::setApplicationVersion(QString::fromStdString(fxview::fxviewVersion()));
}

// The command line, shared by the GUI start and the display-less --help / --version.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption input{"input",
                             "sample input for a placeholder: 3x4, 1x3x224x224, 2x8:int64, "
                             "file:input.pt or example (a .pt2's own); once per placeholder",
                             "SPEC"};
    QCommandLineOption version{{"v", "version"},
                               "print fxview's version and LibTorch's, Qt's and Graphviz's"};
    QCommandLineOption inProcess{
        "in-process", "run the model inside the window's process, unconfined (for debugging "
                      "fxview: a model that crashes takes the window with it)"};
    QCommandLineOption memoryLimit{
        "memory-limit",
        "the most memory the model's engine may use, e.g. 8G or 512M (default: half the RAM); "
        "an allocation past it fails at its node",
        "SIZE"};
    QCommandLineOption attach{
        "attach",
        "take the model from the live engine on this socket (an inherited file descriptor or a "
        "Unix socket's path, as fxview.show passes: the model lives in that Python process)",
        "SOCKET"};
    QCommandLineOption ops{"ops",
                           "load a library of custom ops before the model, as "
                           "torch.ops.load_library (torchvision's and torchaudio's are loaded "
                           "when a model calls them); once per library, remembered with File > "
                           "Load Op Library",
                           "LIB.so"};
    QCommandLineOption engine{
        "engine",
        "start COMMAND as the engine that opens and runs files, speaking fxview's protocol on its "
        "stdin/stdout: \"~/venv/bin/python -m fxview.engine\" runs them on that Python's "
        "PyTorch",
        "COMMAND"};
    QCommandLineOption python{"python",
                              "run files on this Python's PyTorch: --engine \"PYTHON -m "
                              "fxview.engine\"",
                              "PYTHON"};
    QCommandLineOption importModule{
        "import",
        "a Python engine imports MODULE before it loads the file (operators "
        "registered with torch.library, pytree classes); once per module",
        "MODULE"};
    QCommandLineOption device{"device",
                              "a Python engine puts the weights and inputs on this torch device "
                              "(cuda, cuda:1, ...)",
                              "DEVICE"};
    QCommandLineOption reportOpenTime{
        "report-open-time", "print the time from process start to the graph painted, then quit"};
    QCommandLineOption reportFirstStep{
        "report-first-step-time",
        "as --report-open-time, then step once and print the time that step ended, then quit"};
    QCommandLineOption reportSteps{"report-steps",
                                   "with --report-run, first step N nodes one at a time (F10) and "
                                   "print their median time",
                                   "N"};
    QCommandLineOption reportRun{"report-run",
                                 "open the model offscreen, Continue to the end, print the run's "
                                 "time and the output check, then quit"};

    CommandLine() {
        parser.setApplicationDescription("See a PyTorch model's graph the way torch.fx sees it "
                                         "and step through it on sample input.");
        parser.addHelpOption();
        parser.addOption(version);
        parser.addPositionalArgument(
            "MODEL",
            "a TorchScript archive (.pt/.pth/.zip), a torch.export program (.pt2) "
            "or example:NAME "
            "(tinynet, branchy, smallcnn); default example:tinynet",
            "[MODEL]");
        parser.addOption(input);
        parser.addOption(inProcess);
        parser.addOption(memoryLimit);
        parser.addOption(attach);
        parser.addOption(ops);
        parser.addOption(engine);
        parser.addOption(python);
        parser.addOption(importModule);
        parser.addOption(device);
        parser.addOption(reportOpenTime);
        parser.addOption(reportFirstStep);
        parser.addOption(reportRun);
        parser.addOption(reportSteps);
    }
};

bool asksForHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" ||
            arg == "--version")
            return true;
    }
    return false;
}

bool asksFor(int argc, char** argv, const char* option) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], option))
            return true;
    return false;
}

// --engine, --python, --import and --device; without them, in a window built without LibTorch,
// the first Python on PATH that has PyTorch. "" or why the command line cannot be followed.
std::string chooseEngine(const CommandLine& commandLine, fxview::EngineSettings& engine) {
    const QCommandLineParser& parser = commandLine.parser;
    for (const QString& module : parser.values(commandLine.importModule))
        engine.imports.push_back(module.toStdString());
    engine.device = parser.value(commandLine.device).toStdString();
    // --in-process names the engine too: the one linked into this process.
    engine.engineGiven = parser.isSet(commandLine.engine) || parser.isSet(commandLine.python) ||
                         parser.isSet(commandLine.importModule) ||
                         parser.isSet(commandLine.device) || engine.inProcess;
    if (parser.isSet(commandLine.engine) && parser.isSet(commandLine.python))
        return "--engine and --python both name an engine: give one";
    engine.commandGiven = parser.isSet(commandLine.engine) || parser.isSet(commandLine.python);
    if (parser.isSet(commandLine.engine)) {
        QString error;
        engine.engineCommand = fxview::engineCommandLine(parser.value(commandLine.engine), error);
        return error.toStdString();
    }
    if (parser.isSet(commandLine.python)) {
        engine.engineCommand = fxview::pythonEngineCommand(parser.value(commandLine.python));
        return {};
    }
    if (!fxview::EngineProcess::enginePath().isEmpty() || engine.attachFd >= 0 ||
        !engine.attachRemote.isEmpty())
        return {};
    QString why;
    const QString found = fxview::findPythonWithTorch(why);
    if (found.isEmpty())
        engine.noEngine = "This fxview was built without LibTorch, so files run on a Python "
                          "engine, your own PyTorch, and " +
                          why + ": start fxview with --python PATH naming a Python that has it.";
    else
        engine.engineCommand = fxview::pythonEngineCommand(found);
    return {};
}

} // namespace

int main(int argc, char** argv) {
#ifdef FXVIEW_IN_PROCESS_BUILD
    fxview::EngineProcess::setInProcessServer({fxview::serveEngine});
#else
    // fxview never loads LibTorch (its engine processes do); --in-process is the same app with the
    // engine linked in, which replaces this process.
    if (asksFor(argc, argv, "--in-process")) {
        char self[PATH_MAX] = {};
        if (readlink("/proc/self/exe", self, sizeof self - 1) > 0) {
            std::string path(self);
            path = path.substr(0, path.rfind('/') + 1) + "fxview-in-process";
            execv(path.c_str(), argv);
            std::fprintf(stderr, "fxview: --in-process needs %s beside fxview (%s).\n",
                         path.c_str(), std::strerror(errno));
        }
        return 2;
    }
#endif
    // --help and --version print and exit without opening a display (over ssh, in scripts).
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication core(argc, argv);
        nameApplication();
        CommandLine commandLine;
        commandLine.parser.process(core);
        if (commandLine.parser.isSet(commandLine.version))
            std::printf("%s\n", fxview::versionText("fxview", qVersion()).c_str());
        return 0;
    }
    // --report-run measures the window where no display is (a benchmark, an SSH session).
    if (asksFor(argc, argv, "--report-run") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    nameApplication();
    CommandLine commandLine;
    QCommandLineParser& parser = commandLine.parser;
    const QCommandLineOption& input = commandLine.input;
    const QCommandLineOption& reportOpenTime = commandLine.reportOpenTime;
    parser.process(app);
    // A measurement is of the file as given: the window's remembered settings (a file's inputs,
    // scopes and engine, recent files) are neither read nor changed by it.
    QTemporaryDir ownSettings;
    if (parser.isSet(reportOpenTime) || parser.isSet(commandLine.reportFirstStep) ||
        parser.isSet(commandLine.reportRun))
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, ownSettings.path());

    std::vector<fxview::InputSpec> inputs;
    for (const QString& text : parser.values(input)) {
        fxview::InputSpec spec;
        std::string error;
        if (!fxview::parseInputSpec(text.toStdString(), spec, error)) {
            std::fprintf(stderr, "fxview: %s\n", error.c_str());
            return 2;
        }
        inputs.push_back(spec);
    }
    QString model = parser.positionalArguments().value(0, "example:tinynet");
    fxview::EngineSettings engine;
    engine.inProcess = parser.isSet(commandLine.inProcess);
    if (parser.isSet(commandLine.memoryLimit)) {
        engine.memoryLimit =
            fxview::parseMemorySize(parser.value(commandLine.memoryLimit).toStdString());
        if (engine.memoryLimit <= 0) {
            std::fprintf(stderr, "fxview: --memory-limit takes a size such as 8G or 512M\n");
            return 2;
        }
    }
    if (parser.isSet(commandLine.attach) && fxview::isRemoteSource(model)) {
        // fxview ssh://host --attach SOCKET: the live model fxview.serve waits with there.
        QString error;
        const std::optional<fxview::RemoteLocation> where = fxview::parseRemoteSource(model, error);
        if (!where) {
            std::fprintf(stderr, "fxview: %s.\n", qPrintable(error));
            return 2;
        }
        engine.remote = where->machine();
        engine.attachRemote = parser.value(commandLine.attach);
        model = "python:live";
    } else if (parser.isSet(commandLine.attach)) {
        std::string error;
        engine.attachFd =
            fxview::connectLiveEngine(parser.value(commandLine.attach).toStdString(), error);
        if (engine.attachFd < 0) {
            std::fprintf(stderr, "fxview: %s.\n", error.c_str());
            return 2;
        }
        // The source only names the session: the live engine serves its own model.
        if (parser.positionalArguments().isEmpty())
            model = "python:live";
    }
    // The libraries File > Load Op Library remembered, then those given now.
    for (const QString& path : fxview::settings::opLibraries() + parser.values(commandLine.ops))
        if (std::find(engine.opLibraries.begin(), engine.opLibraries.end(), path.toStdString()) ==
            engine.opLibraries.end())
            engine.opLibraries.push_back(path.toStdString());
    // A model on another machine: no engine is started here ahead of it (a spare), and
    // --engine names a command there.
    if (QString ignored; fxview::isRemoteSource(model) && engine.remote.isEmpty())
        if (const auto where = fxview::parseRemoteSource(model, ignored))
            engine.remote = where->machine();
    if (std::string error = chooseEngine(commandLine, engine); !error.empty()) {
        std::fprintf(stderr, "fxview: %s\n", error.c_str());
        return 2;
    }
    fxview::EngineClient::setSettings(engine);

    fxview::MainWindow window;
    window.show();
    if (parser.isSet(reportOpenTime) || parser.isSet(commandLine.reportFirstStep))
        fxview::reportOpenTime(window, parser.isSet(commandLine.reportFirstStep));
    if (parser.isSet(commandLine.reportRun))
        fxview::reportRun(window, parser.value(commandLine.reportSteps).toInt());
    window.openModel(model, inputs);
    return QApplication::exec();
}
