#include "engineclient/Engine.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QTimer>
#include <algorithm>
#include <mutex>
#include <utility>

#include "Wire.h"
#include "scene/GraphScene.h"

namespace fxview {

namespace {

EngineSettings& sharedSettings() {
    static EngineSettings settings;
    return settings;
}

template <typename T> T decoded(const std::string& payload) {
    T m;
    decode(payload, m);
    return m;
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

// Lives on the engine thread; owns the engine processes. `lock` guards which process is current
// or loading, for the GUI thread's stop() and cancelLoad(), which kill without waiting.
class EngineWorker : public QObject {
public:
    EngineWorker(Engine* engine, const EngineSettings& settings)
        : engine_(engine), settings_(settings) {}

    std::mutex lock;

    // GUI thread: kills the engine doing the load, or the current one (and says whether there
    // was one to kill).
    bool killLoading() {
        std::lock_guard<std::mutex> guard(lock);
        if (!loading_)
            return false;
        loading_->kill();
        return true;
    }
    void killCurrent() {
        std::lock_guard<std::mutex> guard(lock);
        if (current_)
            current_->kill();
    }
    qint64 currentPid() {
        std::lock_guard<std::mutex> guard(lock);
        return current_ ? current_->pid() : 0;
    }
    void interruptCurrent() {
        std::lock_guard<std::mutex> guard(lock);
        if (current_)
            current_->interrupt();
    }
    // The open model lives in a live engine (the person's Python): it is interrupted, never
    // killed and reloaded.
    bool currentAttached() {
        std::lock_guard<std::mutex> guard(lock);
        return current_ && current_->attached();
    }
    std::string runningNode() {
        std::lock_guard<std::mutex> guard(lock);
        return running_;
    }

    void startSpare() {
        if (!spare_)
            spare_ = makeProcess();
    }

    void shutdown() {
        std::lock_guard<std::mutex> guard(lock);
        for (EngineProcess* p : {current_, loading_, spare_})
            if (p)
                p->kill();
        delete current_;
        delete loading_;
        delete spare_;
        current_ = loading_ = spare_ = nullptr;
    }

    void load(const OpenRequest& request, const QFont& font, const std::shared_ptr<LoadTicket>& t,
              const std::optional<std::set<std::string>>& openScopes) {
        font_ = font;
        openScopes_ = openScopes;
        // A load still going was cancelled by the newer request; its engine goes.
        retire(loading_);
        EngineProcess* engine = takeSpare();
        {
            std::lock_guard<std::mutex> guard(lock);
            loading_ = engine;
        }
        ticket_ = t;
        loadRequest_ = request;
        engine->send(EngineMessage::Open, encode(request), true);
        // An engine stuck in a run cannot answer for the model it has: it goes now.
        if (current_ && current_->outstanding() > 0)
            current_->kill();
    }

    void setWeightsAsNodes(bool on) {
        if (on != weightsAsNodes_)
            moduleLayouts_.clear(); // laid out the other way
        weightsAsNodes_ = on;
    }

    void executedPath(const QFont& font) {
        font_ = font;
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::ExecutedPath, {}, true);
        engine_->finishedLater(1);
    }

    void setInputs(const InputsRequest& request) {
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::SetInputs, encode(request), true);
        engine_->finishedLater(1);
    }

    void command(const CommandRequest& request) {
        bool fresh = current_ && (!current_->alive() || current_->killed());
        EngineProcess* engine = liveCurrent();
        if (!engine)
            return engine_->finishedLater(1);
        // A fresh engine's run is already at its start.
        if (fresh && request.command == RunCommand::Reset)
            return engine_->finishedLater(1);
        engine->send(EngineMessage::Command, encode(request), true);
    }

    void setBreakpoint(const BreakpointRequest& request) {
        breakpoints_[request.node] = request.on;
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::SetBreakpoint, encode(request), true);
        engine_->finishedLater(1);
    }

    // After stop(): the killed engine's successor reloads the model.
    void reload() {
        liveCurrent();
        engine_->finishedLater(1);
    }

private:
    Engine* engine_;
    EngineSettings settings_;
    EngineProcess* current_ =
        nullptr; // the open model's engine (dead until reloaded after a crash)
    EngineProcess* loading_ = nullptr; // opening a model that replaces it if it loads
    EngineProcess* spare_ = nullptr;   // started, LibTorch loaded, waiting for a model
    std::shared_ptr<LoadTicket> ticket_;
    OpenRequest loadRequest_;
    std::optional<std::set<std::string>> openScopes_; // the load's
    OpenRequest open_; // what current_ opened, with the inputs applied since: a reload's request
    std::unordered_map<std::string, bool> breakpoints_;
    bool reloading_ = false;
    bool saidUnconfined_ = false;
    QFont font_;
    bool weightsAsNodes_ = false; // the View menu's: weights as boxes, or inside their readers'
    std::unordered_map<std::string, GraphLayout> moduleLayouts_; // by module path, this model's
    std::string running_; // the node the current engine last said it was at

    EngineProcess* makeProcess() {
        auto* engine = new EngineProcess(settings_, this);
        // The live engine fxview was started on serves the first model; later ones (File ▸
        // Open) get engines of their own.
        const int attach = std::exchange(settings_.attachFd, -1);
        connect(engine, &EngineProcess::message, this,
                [this, engine](quint16 kind, const std::string& payload) {
                    received(engine, static_cast<EngineMessage>(kind), payload);
                });
        connect(engine, &EngineProcess::died, this,
                [this, engine](const QString& how) { died(engine, how); });
        if (attach >= 0)
            engine->attach(attach);
        else
            engine->start();
        return engine;
    }

    EngineProcess* takeSpare() {
        EngineProcess* engine = spare_ && spare_->alive() ? spare_ : makeProcess();
        if (engine != spare_)
            retire(spare_);
        spare_ = nullptr;
        return engine;
    }

    // Kills an engine and deletes it once it has been reaped; its jobs are finished.
    void retire(EngineProcess*& engine) {
        if (!engine)
            return;
        EngineProcess* gone = engine;
        {
            std::lock_guard<std::mutex> guard(lock);
            engine = nullptr;
        }
        gone->disconnect(this);
        engine_->finishedLater(gone->owedJobs());
        gone->kill();
        gone->deleteLater();
    }

    // The current engine, alive: after a crash or stop(), a fresh one reopens the model first
    // (with its inputs and breakpoints), so the next request finds it as it was at its start.
    EngineProcess* liveCurrent() {
        if (!current_ || (current_->alive() && !current_->killed()))
            return current_;
        if (open_.source.empty() || current_->attached())
            return nullptr; // a live model went with its Python process: nothing can reopen it
        EngineProcess* fresh = takeSpare();
        EngineProcess* dead = current_;
        {
            std::lock_guard<std::mutex> guard(lock);
            current_ = fresh;
        }
        retire(dead);
        reloading_ = true;
        {
            std::lock_guard<std::mutex> guard(lock);
            running_.clear();
        }
        fresh->send(EngineMessage::Open, encode(open_), false);
        for (const auto& [node, on] : breakpoints_)
            if (on)
                fresh->send(EngineMessage::SetBreakpoint, encode(BreakpointRequest{node, on}),
                            false);
        return fresh;
    }

    template <typename F> void emitDone(F&& f) {
        QMetaObject::invokeMethod(engine_, std::forward<F>(f), Qt::QueuedConnection);
    }

    void received(EngineProcess* engine, EngineMessage kind, const std::string& payload) {
        if (kind == EngineMessage::Hello) {
            const EngineHello& hello = engine->hello();
            // A live model runs in the person's own process, as their code does: nothing to say.
            if (!hello.confined && !hello.live && !saidUnconfined_) {
                saidUnconfined_ = true;
                QString sentence = "The model runs unconfined: " + qs(hello.confinement) + ".";
                emitDone([e = engine_, sentence] { emit e->unconfined(sentence); });
            }
        } else if (kind == EngineMessage::Done) {
            engine_->finishedLater(engine->doneOne() ? 1 : 0);
        } else if (engine == loading_) {
            fromLoading(kind, payload);
        } else if (engine == current_) {
            fromCurrent(kind, payload);
        }
    }

    void fromLoading(EngineMessage kind, const std::string& payload) {
        if (ticket_->cancelled()) {
            // Cancelled before its engine could be killed: the model it opened anyway goes with
            // it, not at the next load.
            if (kind == EngineMessage::Opened || kind == EngineMessage::OpenFailed) {
                retire(loading_);
                startSpare();
            }
            return;
        }
        switch (kind) {
        case EngineMessage::Progress: {
            auto note = decoded<ProgressNote>(payload);
            emitDone([e = engine_, id = ticket_->id, stage = qs(note.stage),
                      percent = static_cast<int>(note.percent)] {
                emit e->loadProgress(id, stage, percent);
            });
            break;
        }
        case EngineMessage::OpenFailed: {
            QString sentence = qs(decoded<std::string>(payload));
            if (ticket_->fail()) // settled: a Cancel pressed from now on finds nothing to cancel
                emitDone([e = engine_, sentence] { emit e->loadFailed(sentence); });
            retire(loading_);
            startSpare();
            break;
        }
        case EngineMessage::Opened:
            opened(decoded<OpenedModel>(payload));
            break;
        default:
            break;
        }
    }

    void opened(OpenedModel m) {
        // The layout happens here, on this thread, with the scene's font.
        LoadedModel model;
        model.load = ticket_->id;
        model.source = qs(loadRequest_.source);
        model.className = qs(m.className);
        model.scopes = ScopeTree(m.graph);
        model.openScopes = model.scopes.defaultOpen();
        if (openScopes_) {
            // Remembered for this file; scopes it no longer has are dropped. A state that
            // matches nothing (the file was rewritten with other modules) gives the default.
            std::set<std::string> kept;
            for (const std::string& scope : *openScopes_)
                if (model.scopes.find(scope))
                    kept.insert(scope);
            if (!kept.empty() || openScopes_->empty())
                model.openScopes = kept;
        }
        auto view = std::make_shared<ScopeView>(
            collapseScopes(m.graph, model.scopes, model.openScopes, weightsAsNodes_));
        model.layoutCache = std::make_shared<LayoutCache>();
        model.layout = GraphScene::layOut(view->graph, font_, {}, model.layoutCache.get());
        model.view = std::move(view);
        model.graph = std::move(m.graph);
        model.inputs = m.inputs;
        model.inputNote = qs(m.inputNote);
        model.inputError = qs(m.inputError);
        model.graphText = std::move(m.graphText);
        model.note = qs(m.note);
        model.live = loading_->hello().live;
        model.runtime = qs(loading_->hello().runtime);
        // Only now does the new model replace the old one: a bad file or a Cancel leaves it.
        if (!ticket_->commit())
            return retire(loading_);
        EngineProcess* old = current_;
        {
            std::lock_guard<std::mutex> guard(lock);
            current_ = loading_;
            loading_ = nullptr;
        }
        retire(old);
        open_ = loadRequest_;
        open_.inputs = m.inputs;
        open_.seed = m.seed;
        open_.origin = "as applied";
        breakpoints_.clear();
        moduleLayouts_.clear();
        reloading_ = false;
        emitDone([e = engine_, id = model.load] { emit e->loadProgress(id, "Drawing", 95); });
        emitDone([e = engine_, model] { emit e->loaded(model); });
        // A live session rarely opens a file after: its engine (LibTorch loaded) is made when
        // one is opened, not ahead.
        if (!model.live)
            startSpare();
    }

    void fromCurrent(EngineMessage kind, const std::string& payload) {
        switch (kind) {
        case EngineMessage::Running: {
            std::string node = decoded<std::string>(payload);
            std::lock_guard<std::mutex> guard(lock);
            running_ = std::move(node);
            break;
        }
        case EngineMessage::Opened: // a reload: the graph is the one shown
            reloading_ = false;
            startSpare();
            break;
        case EngineMessage::OpenFailed: {
            QString sentence =
                "A fresh engine could not reopen the model: " + qs(decoded<std::string>(payload));
            emitDone([e = engine_, sentence] { emit e->engineFailed(sentence); });
            break;
        }
        case EngineMessage::State:
            state(decoded<RunState>(payload));
            break;
        case EngineMessage::InputsApplied: {
            auto applied = decoded<InputsRequest>(payload);
            open_.inputs = applied.inputs;
            open_.seed = applied.seed;
            emitDone([e = engine_, applied] {
                emit e->inputsApplied(applied.inputs, static_cast<quint64>(applied.seed));
            });
            break;
        }
        case EngineMessage::InputsRejected: {
            QString sentence = qs(decoded<std::string>(payload));
            emitDone([e = engine_, sentence] { emit e->inputsRejected(sentence); });
            break;
        }
        case EngineMessage::Failed: {
            QString sentence = qs(decoded<std::string>(payload));
            emitDone([e = engine_, sentence] { emit e->engineFailed(sentence); });
            break;
        }
        case EngineMessage::Path: {
            ExecutedView view;
            static_cast<PathState&>(view) = decoded<PathState>(payload);
            if (!weightsAsNodes_)
                drawWeightsInside(view.graph);
            view.layout = GraphScene::layOut(view.graph, font_);
            emitDone([e = engine_, view] { emit e->executedPathReady(view); });
            break;
        }
        default:
            break;
        }
    }

    void state(RunState r) {
        {
            std::lock_guard<std::mutex> guard(lock);
            running_.clear();
        }
        RunSnapshot s;
        std::shared_ptr<FrameState> inside = std::move(r.steppedInto);
        static_cast<RunState&>(s) = std::move(r);
        if (inside) {
            // Each module's graph is laid out once per model.
            auto frame = std::make_shared<ModuleFrame>();
            static_cast<FrameState&>(*frame) = std::move(*inside);
            if (!weightsAsNodes_)
                drawWeightsInside(frame->graph);
            auto laid = moduleLayouts_.find(frame->node);
            if (laid == moduleLayouts_.end())
                laid = moduleLayouts_.emplace(frame->node, GraphScene::layOut(frame->graph, font_))
                           .first;
            frame->layout = laid->second;
            s.inside = frame;
        }
        emitDone([e = engine_, s] { emit e->runUpdated(s); });
    }

    void died(EngineProcess* engine, const QString& how) {
        engine_->finishedLater(engine->owedJobs());
        if (engine == spare_) {
            retire(spare_);
        } else if (engine == loading_) {
            if (!engine->killed() && ticket_->fail()) {
                QString sentence =
                    QString("%1 %2 while loading %3; the window is fine and the open model "
                            "stays; %3 may be damaged.")
                        .arg(engine->attached() ? "The live Python engine" : "LibTorch", how,
                             QFileInfo(qs(loadRequest_.source)).fileName());
                emitDone([e = engine_, sentence] { emit e->loadFailed(sentence); });
            }
            retire(loading_);
            startSpare();
        } else if (engine == current_ && engine->attached()) {
            QString sentence =
                engine->killed()
                    ? QString("Detached from your Python session: the window keeps the last "
                              "picture; call fxview.show again to step the model.")
                    : QString("Your Python session ended (its engine %1): the window keeps the "
                              "last picture; call fxview.show again to step the model.")
                          .arg(how);
            emitDone([e = engine_, sentence] { emit e->liveEnded(sentence); });
        } else if (engine == current_ && !engine->killed()) {
            QString where = running_.empty() ? QString("while running the model")
                                             : QString("while running node `%1`").arg(qs(running_));
            QString sentence = QString("LibTorch %1 %2; the window is fine; the model may be "
                                       "damaged. Reset (Ctrl+Shift+F5) runs it again in a fresh "
                                       "engine.")
                                   .arg(how, where);
            if (reloading_)
                sentence = QString("LibTorch %1 while reopening the model; the window is fine; "
                                   "the model may be damaged.")
                               .arg(how);
            emitDone([e = engine_, sentence] { emit e->engineFailed(sentence); });
            startSpare();
        }
    }
};

void Engine::setSettings(const EngineSettings& settings) {
    sharedSettings() = settings;
}

void Engine::addOpLibrary(const std::string& path) {
    std::vector<std::string>& libraries = sharedSettings().opLibraries;
    if (std::find(libraries.begin(), libraries.end(), path) == libraries.end())
        libraries.push_back(path);
}

Engine::Engine(QObject* parent)
    : QObject(parent), worker_(new EngineWorker(this, sharedSettings())) {
    qRegisterMetaType<fxview::LoadedModel>();
    qRegisterMetaType<fxview::RunSnapshot>();
    qRegisterMetaType<fxview::ExecutedView>();
    qRegisterMetaType<std::string>();
    layoutFont_ = GraphScene::defaultFont();
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.setObjectName("fxview engine");
    thread_.start();
    // The spare engine loads LibTorch while the window opens.
    QMetaObject::invokeMethod(
        worker_, [w = worker_] { w->startSpare(); }, Qt::QueuedConnection);
}

Engine::~Engine() {
    // Closing the window ends every engine at once, however busy.
    worker_->killLoading();
    worker_->killCurrent();
    QMetaObject::invokeMethod(
        worker_, [w = worker_] { w->shutdown(); }, Qt::BlockingQueuedConnection);
    thread_.quit();
    thread_.wait();
}

void Engine::post(std::function<void(EngineWorker&)> job) {
    ++posted_;
    if (++pending_ == 1)
        emit busyChanged(true);
    QMetaObject::invokeMethod(
        worker_, [this, job = std::move(job)] { job(*worker_); }, Qt::QueuedConnection);
}

void Engine::finishedLater(int jobs) {
    if (jobs <= 0)
        return;
    QMetaObject::invokeMethod(
        this,
        [this, jobs] {
            answered_ += jobs;
            pending_ = std::max(0, pending_ - jobs);
            if (pending_ == 0)
                emit busyChanged(false);
        },
        Qt::QueuedConnection);
}

int Engine::load(const QString& source, const std::vector<InputSpec>& inputs, quint64 seed,
                 const QString& origin, std::optional<std::set<std::string>> openScopes) {
    cancelLoad();
    loading_ = std::make_shared<LoadTicket>(++loads_);
    OpenRequest request{source.toStdString(), inputs, seed, origin.toStdString(),
                        sharedSettings().opLibraries};
    post([request, font = layoutFont_, ticket = loading_, openScopes](EngineWorker& w) {
        w.load(request, font, ticket, openScopes);
    });
    return loading_->id;
}

bool Engine::cancelLoad() {
    bool cancelled = loading_ && loading_->cancel();
    loading_.reset();
    if (cancelled)
        worker_->killLoading(); // a load stuck in LibTorch ends now, not at its next stage
    return cancelled;
}

void Engine::requestExecutedPath() {
    post([font = layoutFont_](EngineWorker& w) { w.executedPath(font); });
}

void Engine::setWeightsAsNodes(bool on) {
    // Not a job (nothing is answered): queued before whatever is posted after it.
    QMetaObject::invokeMethod(
        worker_, [w = worker_, on] { w->setWeightsAsNodes(on); }, Qt::QueuedConnection);
}

void Engine::setInputs(const std::vector<InputSpec>& inputs, quint64 seed) {
    post([request = InputsRequest{inputs, seed}](EngineWorker& w) { w.setInputs(request); });
}

void Engine::command(RunCommand command, const QString& node) {
    if (command == RunCommand::Reset && busy())
        return stop();
    post([request = CommandRequest{command, node.toStdString()}](EngineWorker& w) {
        w.command(request);
    });
}

void Engine::setBreakpoint(const QString& node, bool on) {
    post([request = BreakpointRequest{node.toStdString(), on}](EngineWorker& w) {
        w.setBreakpoint(request);
    });
}

void Engine::stop() {
    if (worker_->currentAttached()) {
        // A live model cannot be killed and reloaded: its run stops at its next node, then
        // resets; a node that never returns is said to the person (interrupt()).
        interrupt();
        post([](EngineWorker& w) { w.command(CommandRequest{RunCommand::Reset, {}}); });
        return;
    }
    worker_->killCurrent();
    post([](EngineWorker& w) { w.reload(); });
}

qint64 Engine::enginePid() const {
    return worker_->currentPid();
}

void Engine::interrupt() {
    if (!busy())
        return;
    worker_->interruptCurrent();
    // Only what was asked before Pause is ended: a Run or a load asked since is left alone.
    QTimer::singleShot(500, this, [this, askedBefore = posted_] {
        if (answered_ >= askedBefore)
            return;
        if (!worker_->currentAttached())
            return stop();
        std::string node = worker_->runningNode();
        emit liveWaiting(
            QString("%1 has not returned: it runs in your own Python process, which fxview "
                    "cannot stop inside a node. Wait for it, or Run ▸ Detach from Python (the "
                    "window keeps this picture).")
                .arg(node.empty() ? QString("The model") : QString("Node `%1`").arg(qs(node))));
    });
}

bool Engine::live() const {
    return worker_->currentAttached();
}

void Engine::detach() {
    if (worker_->currentAttached())
        worker_->killCurrent();
}

} // namespace fxview
