#include "Engine.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QStringList>
#include <future>

#include "FxText.h"
#include "GraphJson.h"
#include "GraphLayout.h"
#include "GraphScene.h"
#include "Interpreter.h"
#include "Model.h"
#include "Tracer.h"

namespace fxview {

// Lives on the engine thread; every member is touched only there.
class EngineWorker : public QObject {
public:
    explicit EngineWorker(Engine* engine) : engine_(engine) {}

    // Load, trace, then the layout on a thread of its own while this one makes the text, the
    // JSON, the interpreter and the input; the ticket is looked at between stages.
    void load(const QString& source, const std::vector<InputSpec>& inputs, quint64 seed,
              const QString& origin, const QFont& font, const std::shared_ptr<LoadTicket>& ticket) {
        // Anything thrown past the core's own sentences (the layout's future, an allocation)
        // fails this load like a bad file: the progress ends and the open model stays.
        try {
            open(source, inputs, seed, origin, font, ticket);
        } catch (const std::exception& e) {
            reportLoadFailure(*ticket, QString("Cannot open %1 (%2); the open model stays.")
                                           .arg(QFileInfo(source).fileName(),
                                                QString::fromUtf8(e.what()).section('\n', 0, 0)));
        }
    }

    void open(const QString& source, std::vector<InputSpec> inputs, quint64 seed,
              const QString& origin, const QFont& font, const std::shared_ptr<LoadTicket>& ticket) {
        progress(*ticket, "Loading " + QFileInfo(source).fileName(), 5);
        LoadResult loaded = loadModel(source.toStdString());
        if (ticket->cancelled())
            return;
        if (!loaded.ok())
            return reportLoadFailure(*ticket, QString::fromStdString(loaded.error));
        progress(*ticket, "Tracing " + QString::fromStdString(loaded.model->className()), 40);
        TraceResult traced = importGraph(*loaded.model);
        if (ticket->cancelled())
            return;
        if (!traced.ok())
            return reportLoadFailure(*ticket, QString::fromStdString(traced.error));
        progress(*ticket, QString("Laying out %1 nodes").arg(traced.graph.nodeCount()), 55);
        std::future<GraphLayout> layout =
            std::async(std::launch::async,
                       [graph = traced.graph, font] { return GraphScene::layOut(graph, font); });

        LoadedModel model;
        model.load = ticket->id;
        model.source = source;
        model.className = QString::fromStdString(loaded.model->className());
        model.graph = traced.graph;
        model.graphText = formatGraph(traced.graph);
        model.json = graphToJson(traced.graph, {source.toStdString(), loaded.model->className()});
        auto interpreter = std::make_unique<Interpreter>(loaded.model, std::move(traced));
        if (!inputs.empty()) {
            // Inputs given (or remembered) that cannot be made give way to the guess, so that a
            // bad spec never leaves a model that cannot run.
            std::string error = interpreter->setInputs(inputs, seed);
            if (error.empty()) {
                QStringList given;
                for (const InputSpec& spec : inputs)
                    given << QString::fromStdString(spec.text());
                model.inputNote = "input " + given.join(", ") + " " + origin;
            } else {
                model.inputError = QString::fromStdString(error);
                inputs.clear();
                seed = 0;
            }
        }
        if (inputs.empty()) {
            InputChoice guess = interpreter->guessInputs();
            inputs = guess.specs;
            model.inputNote =
                QString::fromStdString(guess.error.empty() ? guess.explanation : guess.error)
                    .trimmed();
            if (!guess.error.empty() && model.inputError.isEmpty())
                model.inputError = model.inputNote;
            if (!inputs.empty()) {
                std::string error = interpreter->setInputs(inputs, seed);
                if (!error.empty())
                    model.inputError = model.inputNote = QString::fromStdString(error);
            }
        }
        model.inputs = inputs;
        model.layout = layout.get();
        // Only now does the new model replace the old one: a bad file or a Cancel leaves it.
        if (!ticket->commit())
            return;
        model_ = loaded.model;
        interpreter_ = std::move(interpreter);
        font_ = font;
        moduleLayouts_.clear();
        specs_ = inputs;
        seed_ = seed;
        progress(*ticket, "Drawing", 95);
        emitDone([engine = engine_, model] { emit engine->loaded(model); });
        publish();
    }

    void executedPath(const QFont& font) {
        if (!interpreter_)
            return;
        ExecutedView view;
        std::unordered_map<std::string, ValueSummary> values;
        view.graph = interpreter_->executedPath(&values);
        for (auto& [name, value] : values) {
            NodeRecord& r = view.records[name];
            r.state = NodeState::Done;
            r.runs = 1;
            r.value = std::move(value);
        }
        view.layout = GraphScene::layOut(view.graph, font);
        emitDone([engine = engine_, view] { emit engine->executedPathReady(view); });
    }

    void setInputs(const std::vector<InputSpec>& inputs, quint64 seed) {
        if (!interpreter_)
            return;
        std::string error = interpreter_->setInputs(inputs, seed);
        if (!error.empty()) {
            QString sentence = QString::fromStdString(error);
            emitDone([engine = engine_, sentence] { emit engine->inputsRejected(sentence); });
            return;
        }
        specs_ = inputs;
        seed_ = seed;
        emitDone([engine = engine_, inputs, seed] { emit engine->inputsApplied(inputs, seed); });
        publish();
    }

    void command(RunCommand command, const QString& node) {
        if (!interpreter_)
            return;
        switch (command) {
        case RunCommand::Step:
            interpreter_->step();
            break;
        case RunCommand::StepInto:
            interpreter_->stepInto();
            break;
        case RunCommand::StepOut:
            interpreter_->stepOut();
            break;
        case RunCommand::RunTo:
            interpreter_->runTo(node.toStdString());
            break;
        case RunCommand::RunToEnd:
            interpreter_->runToEnd();
            break;
        case RunCommand::Reset:
            interpreter_->reset();
            break;
        }
        publish();
    }

    void setBreakpoint(const QString& node, bool on) {
        if (interpreter_)
            interpreter_->setBreakpoint(node.toStdString(), on);
    }

private:
    Engine* engine_;
    std::shared_ptr<Model> model_;
    std::unique_ptr<Interpreter> interpreter_;
    std::vector<InputSpec> specs_;
    quint64 seed_ = 0;
    QFont font_;                                                 // the scene's, for module graphs
    std::unordered_map<std::string, GraphLayout> moduleLayouts_; // by module path, this model's
    OutputCheck outputCheck_;                                    // this run's, once it has ended

    template <typename F> void emitDone(F&& f) {
        QMetaObject::invokeMethod(engine_, std::forward<F>(f), Qt::QueuedConnection);
    }

    void reportLoadFailure(LoadTicket& ticket, const QString& sentence) {
        if (ticket.fail()) // settled: a Cancel pressed from now on finds nothing to cancel
            emitDone([engine = engine_, sentence] { emit engine->loadFailed(sentence); });
    }

    void progress(const LoadTicket& ticket, const QString& stage, int percent) {
        emitDone([engine = engine_, id = ticket.id, stage, percent] {
            emit engine->loadProgress(id, stage, percent);
        });
    }

    // The innermost module Step Into is in, with its graph laid out once per module.
    std::shared_ptr<const ModuleFrame> insideFrame() {
        const Interpreter* at = interpreter_.get();
        std::string path, type;
        while (const Interpreter* inner = at->steppedInto()) {
            std::string node = at->steppedIntoNode();
            if (const Node* n = at->graph().find(node)) // a module's class, a function's target
                type = n->op == Op::CallModule ? n->moduleType : n->target;
            path += (path.empty() ? "" : ".") + node;
            at = inner;
        }
        if (at == interpreter_.get())
            return nullptr;
        auto frame = std::make_shared<ModuleFrame>();
        frame->node = path;
        frame->moduleType = type;
        frame->graph = at->graph();
        auto laid = moduleLayouts_.find(path);
        if (laid == moduleLayouts_.end())
            laid = moduleLayouts_.emplace(path, GraphScene::layOut(frame->graph, font_)).first;
        frame->layout = laid->second;
        frame->graphText = formatGraph(frame->graph);
        frame->graph.forEachNode([&](const Node& n, int) {
            if (const NodeRecord* r = at->record(n.name))
                frame->records.emplace(n.name, *r);
        });
        frame->last = at->lastNode();
        frame->next = at->nextNode();
        return frame;
    }

    void publish() {
        RunSnapshot s;
        interpreter_->graph().forEachNode([&](const Node& n, int) {
            if (const NodeRecord* r = interpreter_->record(n.name))
                s.records.emplace(n.name, *r);
        });
        s.order = interpreter_->executionOrder();
        s.last = interpreter_->lastNode();
        s.next = interpreter_->nextNode();
        s.finished = interpreter_->finished();
        s.failed = interpreter_->failed();
        s.failure = interpreter_->failure();
        // Checked once per run, when it ends: forward costs as much as the run itself.
        if (!s.finished)
            outputCheck_ = {};
        else if (outputCheck_.verdict == OutputCheck::Verdict::NotChecked)
            outputCheck_ = interpreter_->checkOutputs();
        s.outputCheck = outputCheck_;
        s.depth = interpreter_->depth();
        s.inside = insideFrame();
        Interpreter* it = interpreter_.get();
        JsonRunInfo info{specs_, it->inputSummaries(), seed_,
                         [it](const std::string& n) { return it->record(n); }};
        s.json = graphToJson(it->graph(), {model_->source(), model_->className()}, &info);
        emitDone([engine = engine_, s] { emit engine->runUpdated(s); });
    }
};

Engine::Engine(QObject* parent) : QObject(parent), worker_(new EngineWorker(this)) {
    qRegisterMetaType<fxview::LoadedModel>();
    qRegisterMetaType<fxview::RunSnapshot>();
    qRegisterMetaType<fxview::ExecutedView>();
    layoutFont_ = GraphScene::defaultFont();
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.setObjectName("fxview engine");
    thread_.start();
}

Engine::~Engine() {
    thread_.quit();
    thread_.wait();
}

void Engine::post(std::function<void(EngineWorker&)> job) {
    if (++pending_ == 1)
        emit busyChanged(true);
    QMetaObject::invokeMethod(
        worker_,
        [this, job = std::move(job)] {
            // The last net: a model or LibTorch throwing where nothing expected it must not end
            // the app. The open model stays; the sentence says so.
            try {
                job(*worker_);
            } catch (const std::exception& e) {
                QString sentence = QString("The engine stopped on an unexpected error (%1); the "
                                           "model stays open, Reset (Ctrl+Shift+F5) to run again.")
                                       .arg(QString::fromUtf8(e.what()).section('\n', 0, 0));
                QMetaObject::invokeMethod(
                    this, [this, sentence] { emit engineFailed(sentence); }, Qt::QueuedConnection);
            }
            QMetaObject::invokeMethod(
                this,
                [this] {
                    if (--pending_ == 0)
                        emit busyChanged(false);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

int Engine::load(const QString& source, const std::vector<InputSpec>& inputs, quint64 seed,
                 const QString& origin) {
    cancelLoad();
    loading_ = std::make_shared<LoadTicket>(++loads_);
    post([source, inputs, seed, origin, font = layoutFont_, ticket = loading_](EngineWorker& w) {
        w.load(source, inputs, seed, origin, font, ticket);
    });
    return loading_->id;
}

bool Engine::cancelLoad() {
    bool cancelled = loading_ && loading_->cancel();
    loading_.reset();
    return cancelled;
}

void Engine::requestExecutedPath() {
    post([font = layoutFont_](EngineWorker& w) { w.executedPath(font); });
}

void Engine::setInputs(const std::vector<InputSpec>& inputs, quint64 seed) {
    post([inputs, seed](EngineWorker& w) { w.setInputs(inputs, seed); });
}

void Engine::command(RunCommand command, const QString& node) {
    post([command, node](EngineWorker& w) { w.command(command, node); });
}

void Engine::setBreakpoint(const QString& node, bool on) {
    post([node, on](EngineWorker& w) { w.setBreakpoint(node, on); });
}

} // namespace fxview
