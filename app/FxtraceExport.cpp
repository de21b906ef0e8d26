#include <QApplication>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>

#include "ConfinedRun.h"
#include "EngineConnection.h"
#include "FxText.h"
#include "Fxtrace.h"
#include "GraphJson.h"
#include "RunRecords.h"
#include "ScopeView.h"
#include "export/SceneExport.h"
#include "scene/GraphScene.h"

namespace fxview::fxtrace {

bool writeFile(const std::string& path, const std::string& text) {
    std::ofstream file(path, std::ios::binary);
    file << text;
    if (!file)
        std::cerr << "Cannot write '" << path
                  << "': check that its folder exists and is writable.\n";
    return static_cast<bool>(file);
}

bool chooseInputs(Interpreter& run, const Options& options, std::vector<InputSpec>& specs) {
    specs = options.inputs;
    if (specs.empty()) {
        InputChoice guess = run.guessInputs();
        if (!guess.error.empty()) {
            std::cerr << guess.error << "\n";
            return false;
        }
        std::cerr << guess.explanation;
        specs = guess.specs;
    }
    std::string error = run.setInputs(specs, options.seed);
    if (!error.empty()) {
        std::cerr << error << "\n";
        return false;
    }
    return true;
}

namespace {

// What an export draws and writes, from a file's run or a live engine's.
struct ExportContent {
    Graph graph;
    std::string text; // the graph as text: torch.fx's print(graph)
    JsonModelInfo info;
    std::function<const NodeRecord*(const std::string&)> recordOf; // null before a run
    JsonRunInfo run;
    std::string current; // the node --step stopped after, highlighted; "" for none
};

// Draws `content` offscreen and writes it in the format asked for, through the same export code
// the app uses.
int drawAndWrite(const Options& options, const ExportContent& content) {
    // Export never needs a screen: without a platform chosen, draw offscreen.
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt's notes about the session (no XDG_RUNTIME_DIR under CI, say) are not the user's concern.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::cerr << message.toStdString() << "\n";
    });
    int argc = 1;
    char name[] = "fxtrace";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    ExportOptions exportOptions;
    QString formatName =
        options.format.isEmpty() ? QString::fromStdString(options.output) : options.format;
    if (!exportFormatFor(formatName, exportOptions.format)) {
        std::cerr << "fxtrace: cannot tell the format of '" << formatName.toStdString()
                  << "'; use a .png, .svg, .pdf, .dot, .json or .txt file name, or --format.\n";
        return kBadUsage;
    }
    exportOptions.scale = options.scale;
    exportOptions.transparent = options.transparent;
    Theme theme;
    Theme::byName(options.theme, theme);

    // The module scopes drawn open: all, or down to --depth with --expand's on top.
    const Graph& graph = content.graph;
    ScopeTree scopes(graph);
    std::set<std::string> open =
        options.depth >= 0 ? scopes.openToDepth(options.depth) : scopes.allOpen();
    for (const std::string& scope : options.expand) {
        if (!scopes.find(scope)) {
            std::string roots;
            for (const std::string& root : scopes.roots())
                roots += (roots.empty() ? "" : ", ") + root;
            std::cerr << "fxtrace: " << options.model << " has no module scope '" << scope << "'; "
                      << (roots.empty() ? std::string("it has no scopes at all")
                                        : "its top-level scopes are " + roots)
                      << ".\n";
            return kBadUsage;
        }
        for (const std::string& path : ScopeTree::chain(scope))
            open.insert(path);
    }
    auto view =
        std::make_shared<ScopeView>(collapseScopes(graph, scopes, open, options.showWeights));

    LayoutOptions layoutOptions;
    layoutOptions.showHidden = options.showHidden;
    GraphScene scene;
    scene.setTheme(theme);
    // A scene without a view draws no box and no − on its frames: exports of the whole graph stay
    // as they were before scopes could close.
    // Laid out in pieces through a cache, as the app lays out a model it opens: the picture is
    // the one the graph view shows.
    LayoutCache pieces;
    QString layoutError = scene.show(
        view->graph, GraphScene::layOut(view->graph, scene.font(), layoutOptions, &pieces),
        view->collapsed() ? view : nullptr);
    if (!layoutError.isEmpty()) {
        std::cerr << layoutError.toStdString() << "\n";
        return kModelFailed;
    }
    if (content.recordOf)
        scene.syncRun(content.recordOf, QString::fromStdString(content.current));
    // The text of what is drawn: a collapsed view prints its boxes as call_module lines.
    std::string text = view->collapsed() ? formatGraph(view->graph) : content.text;
    ExportSource source{
        &scene, graphToDot(view->graph, layoutOptions),
        withScopeTree(graphToJson(graph, content.info, content.recordOf ? &content.run : nullptr),
                      scopes, open),
        text};
    QString error = exportGraph(QString::fromStdString(options.output), exportOptions, source);
    if (!error.isEmpty()) {
        std::cerr << error.toStdString() << "\n";
        return kModelFailed;
    }
    return kOk;
}

} // namespace

int exportPicture(const Options& options, const std::shared_ptr<Model>& model, TraceResult traced) {
    ExportContent content;
    content.graph = traced.graph;
    content.text = formatGraph(traced.graph, {options.showHidden});
    content.info = {options.model, model->className()};
    std::unique_ptr<Interpreter> interpreter;
    if (options.run || options.steps >= 0) {
        interpreter = std::make_unique<Interpreter>(model, std::move(traced));
        std::vector<InputSpec> specs;
        if (!chooseInputs(*interpreter, options, specs))
            return kModelFailed;
        interpreter->setBeforeNode([](const std::string& next) {
            reportStage(next, true);
            return true;
        });
        if (options.run)
            interpreter->runToEnd();
        else
            for (int i = 0; i < options.steps && !interpreter->finished() && !interpreter->failed();
                 ++i)
                interpreter->step();
        if (interpreter->failed())
            std::cerr << interpreter->failure() << "\n";
        Interpreter* it = interpreter.get();
        content.recordOf = [it](const std::string& n) { return it->record(n); };
        content.run = {specs,
                       it->inputSummaries(),
                       options.seed,
                       content.recordOf,
                       it->finished() ? it->checkOutputs() : OutputCheck{},
                       it->peakLive()};
        content.current = options.run ? std::string() : it->lastNode();
    }
    return drawAndWrite(options, content);
}

namespace {

// The last message of `kind` among an answer's, decoded into `m`; false if there is none.
template <typename M> bool lastOf(const std::vector<Frame>& answers, EngineMessage kind, M& m) {
    for (auto it = answers.rbegin(); it != answers.rend(); ++it)
        if (it->kind == static_cast<std::uint16_t>(kind)) {
            decode(it->payload, m);
            return true;
        }
    return false;
}

// The first sentence an answer carries (OpenFailed, InputsRejected, Failed), or "".
std::string failureIn(const std::vector<Frame>& answers) {
    for (const Frame& f : answers)
        for (EngineMessage kind :
             {EngineMessage::OpenFailed, EngineMessage::InputsRejected, EngineMessage::Failed})
            if (f.kind == static_cast<std::uint16_t>(kind)) {
                std::string sentence;
                decode(f.payload, sentence);
                return sentence;
            }
    return {};
}

} // namespace

int exportLive(const Options& options) {
    EngineConnection engine(options.attachFd);
    EngineHello hello;
    std::vector<Frame> answers;
    OpenedModel opened;
    RunState state;
    RunRecords records; // a live engine sends the records that changed with each step
    try {
        std::string error = engine.greet(hello);
        if (error.empty())
            error = engine.ask(EngineMessage::Open,
                               encode(OpenRequest{options.model, {}, 0, {}, {}, {}, {}}), answers);
        if (error.empty())
            error = failureIn(answers);
        if (error.empty() && !lastOf(answers, EngineMessage::Opened, opened))
            error = "The engine answered Open without a model.";
        if (error.empty() && !options.inputs.empty()) {
            error = engine.ask(EngineMessage::SetInputs,
                               encode(InputsRequest{options.inputs, options.seed}), answers);
            if (error.empty())
                error = failureIn(answers);
        }
        // A step at a time for --step: each answer is the state after it.
        int commands = options.run ? 1 : std::max(options.steps, 0);
        CommandRequest command{options.run ? RunCommand::RunToEnd : RunCommand::Step, {}};
        for (int i = 0; error.empty() && i < commands; ++i) {
            error = engine.ask(EngineMessage::Command, encode(command), answers);
            if (error.empty())
                error = failureIn(answers);
            if (error.empty() && lastOf(answers, EngineMessage::State, state)) {
                records.take(state);
                if (state.finished || state.failed)
                    break;
            }
        }
        if (!error.empty()) {
            std::cerr << error << "\n";
            return kModelFailed;
        }
    } catch (const WireError& e) {
        std::cerr << "The engine sent a broken message (" << e.what() << ").\n";
        return kModelFailed;
    }
    if (state.failed)
        std::cerr << state.failure << "\n";
    ExportContent content;
    content.graph = std::move(opened.graph);
    content.text = std::move(opened.graphText);
    content.info = {options.model, opened.className};
    if (options.run || options.steps >= 0) {
        const auto& records = state.records;
        content.recordOf = [&records](const std::string& n) -> const NodeRecord* {
            auto it = records.find(n);
            return it == records.end() ? nullptr : &it->second;
        };
        content.run = {state.inputs,     state.inputValues, state.seed,
                       content.recordOf, state.outputCheck, state.peak};
        content.current = options.run ? std::string() : state.last;
    }
    return drawAndWrite(options, content);
}

} // namespace fxview::fxtrace
