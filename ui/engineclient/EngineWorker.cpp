// The engine thread's side of EngineClient: which engine process is current, loading or spare, what
// each says and what the window is told (as EngineClient's signals, queued to the GUI thread), and
// the reload of a model after its engine died.

#include "engineclient/EngineWorker.h"

#include "engineclient/GraphCache.h"
#include "engineclient/ReaderProcess.h"
#include "engineclient/RemoteEngine.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QSaveFile>
#include <utility>

#include "FxText.h"
#include "Wire.h"
#include "scene/GraphScene.h"

namespace fxview {

namespace {

template <typename T> T decoded(const std::string& payload) {
    T m;
    decode(payload, m);
    return m;
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// The first line where two texts part, 1-based, for the sentence that says so.
int firstDifferingLine(const std::string& a, const std::string& b) {
    int line = 1;
    for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
        line += a[i] == '\n';
    return line;
}

} // namespace

void EngineWorker::shutdown() {
    std::lock_guard<std::mutex> guard(lock);
    for (EngineProcess* p : {current_, loading_, spare_})
        if (p)
            p->kill();
    delete current_;
    delete loading_;
    delete spare_;
    current_ = loading_ = spare_ = nullptr;
}

void EngineWorker::useEngine(const QStringList& command, const QString& machine) {
    if (command == settings_.engineCommand && machine == settings_.remote)
        return;
    settings_.engineCommand = command;
    settings_.remote = machine;
    // The command line's default may be no engine at all (no Python with PyTorch found); a file
    // remembered with its own engine has one, and so has another machine.
    settings_.noEngine =
        command == given_.engineCommand && machine.isEmpty() ? given_.noEngine : QString();
    if (spare_)
        retire(spare_);
}

namespace {
// The path an engine on another machine opens: ~/x as x, since the SSH session starts in the
// home folder there and neither engine expands a ~.
std::string pathThere(const RemoteLocation& where) {
    return (where.path.startsWith("~/") ? where.path.mid(2) : where.path).toStdString();
}
} // namespace

std::string EngineWorker::openFor(const OpenRequest& request) const {
    QString error;
    if (!isRemoteSource(qs(request.source)))
        return encode(request);
    OpenRequest there = request;
    if (std::optional<RemoteLocation> where = parseRemoteSource(qs(request.source), error))
        there.source = pathThere(*where);
    return encode(there);
}

void EngineWorker::compare(CompareRequest request) {
    EngineProcess* engine = liveCurrent();
    if (!engine)
        return engine_->finishedLater(1);
    // On another machine, B is a file there: its path, or ssh:// of the same machine.
    QString error;
    const QString b = qs(request.modelB);
    if (engine->remote() && isRemoteSource(b)) {
        std::optional<RemoteLocation> where = parseRemoteSource(b, error);
        if (where && where->machine() != engine->machine())
            error = QString("%1 is on another machine than the open model (%2): Compare Runs "
                            "runs both in one engine, so B must be a file on %2.")
                        .arg(b, engine->machine());
        if (!error.isEmpty()) {
            emitDone([e = engine_, error] { emit e->comparisonReady({}, error); });
            return engine_->finishedLater(1);
        }
        request.modelB = pathThere(*where);
    }
    engine->send(EngineMessage::Compare, encode(request), true);
}

void EngineWorker::profile(const ProfileRequest& request) {
    EngineProcess* engine = liveCurrent();
    if (!engine)
        return engine_->finishedLater(1);
    engine->send(EngineMessage::Profile, encode(request), true);
}

void EngineWorker::load(const OpenRequest& request, const QFont& font,
                        const std::shared_ptr<LoadTicket>& t,
                        const std::optional<std::set<std::string>>& openScopes,
                        const QStringList& command, const QString& machine) {
    font_ = font;
    openScopes_ = openScopes;
    offeredImports_.clear();
    // A load still going was cancelled by the newer request; its engine goes.
    dropLoading();
    useEngine(command, machine);
    // A live session's own graphs (a compile session's, python:compile:N) open in the engine
    // that serves them, the person's Python: no other engine could reach them.
    const bool ownGraph = current_ && current_->attached() && current_->alive() &&
                          !current_->killed() && request.source.rfind("python:", 0) == 0;
    if (!ownGraph && !settings_.noEngine.isEmpty()) {
        ticket_ = t;
        if (ticket_->fail())
            emitDone(
                [e = engine_, sentence = settings_.noEngine] { emit e->loadFailed(sentence); });
        return;
    }
    EngineProcess* engine = ownGraph ? current_ : takeSpare();
    {
        std::lock_guard<std::mutex> guard(lock);
        loading_ = engine;
    }
    ticket_ = t;
    loadRequest_ = request;
    engine->send(EngineMessage::Open, openFor(request), true);
    engine->send(EngineMessage::SetWatch, encode(watch_), false); // Run ▸ Break on NaN/Inf stays
    // An engine stuck in a run cannot answer for the model it has: it goes now.
    if (!ownGraph && current_ && current_->outstanding() > 0)
        current_->kill();
    drawnAhead_.reset();
    // Later models open in a spare engine that has long started: only the first is drawn
    // ahead, but every file's reading keys the graph its engine makes in the cache.
    readAhead(request, !current_);
}

void EngineWorker::readAhead(const OpenRequest& request, bool draw) {
    stopReading();
    // Only files: example:tinynet and python: sources have no archive here.
    const std::string& source = request.source;
    if (source.empty() || (source.find(':') != std::string::npos && source.front() != '/'))
        return;
    reader_ = new ReaderProcess(this);
    reader_->start(
        source, [this, request, draw](std::optional<ProgramReading> reading, const QString& why) {
            reader_->deleteLater();
            reader_ = nullptr;
            if (!reading) { // the engine, reading the file again, says what is wrong with it
                qWarning("fxview: the file was not read ahead of its engine: %s", qPrintable(why));
                return;
            }
            readKey_ = reading->cacheKey;
            if (draw && loading_ && !ticket_->cancelled())
                drawAhead(request, std::move(*reading));
        });
}

void EngineWorker::stopReading() {
    if (reader_) {
        reader_->kill();
        reader_->deleteLater();
        reader_ = nullptr;
    }
    readKey_.clear();
    // A walk stopped: what its engine said meanwhile goes with it (retire() settles its jobs).
    walking_ = false;
    afterWalk_.clear();
}

void EngineWorker::drawAhead(const OpenRequest& request, ProgramReading reading) {
    // A .pt2's graph from its program; else the graph an engine made of this very file before.
    std::optional<Graph> graph;
    const bool fromProgram = reading.drawn;
    if (fromProgram)
        graph = std::move(reading.graph);
    else
        graph = cachedGraph(request.source, reading.cacheKey, request.opLibraries);
    if (!graph)
        return;
    LoadedModel model;
    model.load = ticket_->id;
    model.source = qs(request.source);
    if (fromProgram) // else the engine names the archive's class
        model.className = "torch.export program";
    model.graph = std::move(*graph);
    model.graphText = formatGraph(model.graph);
    draw(model);
    model.drawnAhead = true;
    // In the banner, where the engine's input note will be: the picture does not move then.
    model.note = QString(fromProgram ? "Drawn from the file" : "Drawn as it was last opened") +
                 " while the engine starts; stepping begins once it is ready.";
    drawnFromProgram_ = fromProgram;
    drawnEncoding_ = encode(model.graph);
    drawnAhead_ = model;
    emitDone([e = engine_, model] { emit e->drawnAhead(model); });
}

void EngineWorker::draw(LoadedModel& model) const {
    model.scopes = ScopeTree(model.graph);
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
        collapseScopes(model.graph, model.scopes, model.openScopes, weightsAsNodes_));
    model.layoutCache = std::make_shared<LayoutCache>();
    model.layout = GraphScene::layOut(view->graph, font_, {}, model.layoutCache.get());
    model.view = std::move(view);
}

void EngineWorker::dropLoading() {
    stopReading();
    if (loading_ && loading_ == current_) {
        std::lock_guard<std::mutex> guard(lock);
        loading_ = nullptr;
        return;
    }
    retire(loading_);
}

void EngineWorker::command(const CommandRequest& request) {
    bool fresh = current_ && (!current_->alive() || current_->killed());
    EngineProcess* engine = liveCurrent();
    if (!engine)
        return engine_->finishedLater(1);
    // A fresh engine's run is already at its start.
    if (fresh && request.command == RunCommand::Reset)
        return engine_->finishedLater(1);
    engine->send(EngineMessage::Command, encode(request), true);
}

EngineProcess* EngineWorker::makeProcess() {
    auto* engine = new EngineProcess(settings_, this);
    // The live engine fxview was started on serves the first model; later ones (File ▸
    // Open) get engines of their own.
    const int attach = std::exchange(settings_.attachFd, -1);
    const QString attachRemote = std::exchange(settings_.attachRemote, QString());
    connect(engine, &EngineProcess::message, this,
            [this, engine](quint16 kind, const std::string& payload) {
                received(engine, static_cast<EngineMessage>(kind), payload);
            });
    connect(engine, &EngineProcess::died, this,
            [this, engine](const QString& how) { died(engine, how); });
    if (attach >= 0)
        engine->attach(attach);
    else if (!attachRemote.isEmpty())
        engine->attachRemote(attachRemote);
    else
        engine->start();
    return engine;
}

void EngineWorker::retire(EngineProcess*& engine) {
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

EngineProcess* EngineWorker::liveCurrent() {
    if (!current_ || (current_->alive() && !current_->killed()))
        return current_;
    if (open_.source.empty() || current_->attached())
        return nullptr; // a live model went with its Python process: nothing can reopen it
    // The model reopens in the engine it was opened with (on another machine: reconnects).
    useEngine(current_->command(), current_->machine());
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
    fresh->send(EngineMessage::Open, openFor(open_), false);
    for (const auto& [node, condition] : breakpoints_)
        fresh->send(EngineMessage::SetBreakpoint, encode(BreakpointRequest{node, true, condition}),
                    false);
    fresh->send(EngineMessage::SetWatch, encode(watch_), false);
    return fresh;
}

void EngineWorker::received(EngineProcess* engine, EngineMessage kind, const std::string& payload) {
    // What a Python engine says after Opened (its first State, Done) waits for the window's walk
    // of the program: the model it speaks of is not the window's yet.
    if (walking_ && engine == loading_) {
        afterWalk_.push_back({kind, payload});
        return;
    }
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

void EngineWorker::fromLoading(EngineMessage kind, const std::string& payload) {
    if (ticket_->cancelled()) {
        // Cancelled before its engine could be killed: the model it opened anyway goes with
        // it, not at the next load.
        if (kind == EngineMessage::Opened || kind == EngineMessage::OpenFailed) {
            dropLoading();
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
    case EngineMessage::ImportsOffered:
        for (const std::string& module : decoded<ImportOffer>(payload).modules)
            offeredImports_ << qs(module);
        break;
    case EngineMessage::OpenFailed: {
        QString sentence = qs(decoded<std::string>(payload));
        QStringList imports;
        imports.swap(offeredImports_);
        if (ticket_->fail()) // settled: a Cancel pressed from now on finds nothing to cancel
            emitDone([e = engine_, sentence, source = qs(loadRequest_.source), imports] {
                emit e->loadFailed(sentence, source, imports);
            });
        dropLoading();
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

void EngineWorker::opened(OpenedModel m) {
    if (!m.schemas.empty() && m.graph.nodeCount(true) == 0)
        return walkProgram(std::move(m));
    openedWithGraph(std::move(m));
}

void EngineWorker::walkProgram(OpenedModel m) {
    stopReading();
    walking_ = true;
    reader_ = new ReaderProcess(this);
    auto message = std::make_shared<OpenedModel>(std::move(m));
    auto walked = [this, message](std::optional<ProgramReading> reading, const QString& why) {
        reader_->deleteLater();
        reader_ = nullptr;
        EngineProcess* engine = loading_;
        std::vector<std::pair<EngineMessage, std::string>> after;
        after.swap(afterWalk_);
        walking_ = false;
        if (!loading_ || ticket_->cancelled())
            return;
        if (!reading || !reading->drawn) {
            QString sentence =
                QString("The Python engine loaded %1, but fxview could not draw its program "
                        "(%2); please report it with the file.")
                    .arg(QFileInfo(qs(loadRequest_.source)).fileName(),
                         reading ? qs(reading->why) : why);
            if (ticket_->fail())
                emitDone([e = engine_, sentence] { emit e->loadFailed(sentence); });
            dropLoading();
            return;
        }
        message->graph = std::move(reading->graph);
        openedWithGraph(std::move(*message));
        for (const auto& [kind, payload] : after)
            received(engine, kind, payload);
    };
    // A remote engine's file is not here: it sent the program itself.
    if (!message->program.empty())
        reader_->startSent("program JSON", message->program, message->schemas, walked);
    else
        reader_->start(loadRequest_.source, walked, message->schemas);
}

void EngineWorker::openedWithGraph(OpenedModel m) {
    // A reader still at work draws nothing now; what it found of the file keys the cache.
    const std::string readKey = readKey_;
    // A Python engine's PyTorch printed the program itself; fxview walked it.
    const bool walkedHere = !m.schemas.empty();
    stopReading();
    // The layout happens here, on this thread, with the scene's font.
    LoadedModel model;
    if (drawnAhead_ && encode(m.graph) == drawnEncoding_) {
        model = std::move(*drawnAhead_); // the drawing stays: the engine's graph is the same
        model.drawnAhead = false;
        model.sameAsDrawn = true;
        model.note.clear();
    } else {
        // The engine's graph is the one that runs, so it is the one shown. From the program, a
        // difference is a bug of fxview's (one walk makes both); a graph kept from the last open
        // may be out of date in a way its key did not see (another torchvision), and is replaced.
        if (drawnAhead_ && drawnFromProgram_ && !walkedHere) {
            model.note = "The graph drawn while the engine started differed from the engine's: "
                         "the engine's is shown (a bug in fxview; please report it with the file).";
            qWarning("fxview: %s", qPrintable(model.note));
        }
        model.graph = std::move(m.graph);
        draw(model);
        model.graphText = std::move(m.graphText);
        // Another PyTorch's schemas may place a call's arguments otherwise than the built-in
        // table's: the drawing ahead then gives way without a word. The engine's PyTorch's own
        // print is the oracle of the walk.
        if (walkedHere && formatGraph(model.graph) != model.graphText) {
            model.note = QString("fxview's drawing of the program differs from print(ep.graph) of "
                                 "the engine's PyTorch from line %1 on: the text view shows "
                                 "PyTorch's (a bug in fxview; please report it with the file).")
                             .arg(firstDifferingLine(formatGraph(model.graph), model.graphText));
            qWarning("fxview: %s", qPrintable(model.note));
        }
        // Drawn at once when this file is opened again; a Python engine's graph depends on its
        // PyTorch, which the cache's key does not name.
        if (!loading_->hello().live && !walkedHere)
            keepGraph(loadRequest_.source, readKey, loadRequest_.opLibraries, model.graph);
    }
    drawnAhead_.reset();
    model.load = ticket_->id;
    model.source = qs(loadRequest_.source);
    model.className = qs(m.className);
    model.inputs = m.inputs;
    model.inputNote = qs(m.inputNote);
    model.inputError = qs(m.inputError);
    if (model.note.isEmpty())
        model.note = qs(m.note);
    model.live = loading_->hello().live;
    model.runtime = qs(loading_->hello().runtime);
    model.engine = {loading_->command(), loadRequest_.imports, loadRequest_.device};
    // Only now does the new model replace the old one: a bad file or a Cancel leaves it.
    if (!ticket_->commit())
        return dropLoading();
    EngineProcess* old = current_;
    {
        std::lock_guard<std::mutex> guard(lock);
        current_ = loading_;
        loading_ = nullptr;
    }
    if (old != current_) // a live session's own graph: the same engine serves it
        retire(old);
    open_ = loadRequest_;
    open_.inputs = m.inputs;
    open_.seed = m.seed;
    open_.origin = "as applied";
    breakpoints_.clear();
    moduleLayouts_.clear();
    records_.clear();
    reloading_ = false;
    emitDone([e = engine_, id = model.load] { emit e->loadProgress(id, "Drawing", 95); });
    emitDone([e = engine_, model] { emit e->loaded(model); });
    // A live session rarely opens a file after: its engine (LibTorch loaded) is made when
    // one is opened, not ahead.
    if (!model.live)
        startSpare();
}

void EngineWorker::fromCurrent(EngineMessage kind, const std::string& payload) {
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
    case EngineMessage::CompileSession: {
        QByteArray json = QByteArray::fromStdString(decoded<std::string>(payload));
        emitDone([e = engine_, json] { emit e->compileSession(json); });
        break;
    }
    case EngineMessage::Comparison: {
        auto answer = decoded<ComparisonAnswer>(payload);
        QByteArray json = QByteArray::fromStdString(answer.json);
        QString error = qs(answer.error);
        emitDone([e = engine_, json, error] { emit e->comparisonReady(json, error); });
        break;
    }
    case EngineMessage::Profiled: {
        auto answer = std::make_shared<const ProfileAnswer>(decoded<ProfileAnswer>(payload));
        emitDone([e = engine_, answer] { emit e->profiled(answer); });
        break;
    }
    case EngineMessage::Values: {
        auto slice = std::make_shared<const ValueSlice>(decoded<ValueSlice>(payload));
        emitDone([e = engine_, slice] { emit e->valuesReady(slice); });
        break;
    }
    case EngineMessage::Detail: {
        auto detail = std::make_shared<const ValueSlice>(decoded<ValueSlice>(payload));
        records_.takeDetail(*detail);
        emitDone([e = engine_, detail] { emit e->detailReady(detail); });
        break;
    }
    case EngineMessage::ValueSaved:
        takeSavedPiece(decoded<SavedValue>(payload));
        break;
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

void EngineWorker::state(RunState r) {
    {
        std::lock_guard<std::mutex> guard(lock);
        running_.clear();
    }
    records_.take(r);
    RunSnapshot s;
    std::shared_ptr<FrameState> inside = std::move(r.steppedInto);
    static_cast<RunState&>(s) = std::move(r);
    if (inside) {
        // Each frame's graph is laid out once per model. A higher-order op's frame shows each of
        // its blocks by turns (a while_loop's cond and body): the graph's text tells them apart.
        auto frame = std::make_shared<ModuleFrame>();
        static_cast<FrameState&>(*frame) = std::move(*inside);
        if (!weightsAsNodes_)
            drawWeightsInside(frame->graph);
        const std::string key = frame->node + '\n' + frame->graphText;
        auto laid = moduleLayouts_.find(key);
        if (laid == moduleLayouts_.end())
            laid = moduleLayouts_.emplace(key, GraphScene::layOut(frame->graph, font_)).first;
        frame->layout = laid->second;
        s.inside = frame;
    }
    emitDone([e = engine_, s] { emit e->runUpdated(s); });
}

// A saved value's file comes in pieces (SavedValue::more), written as they come into a QSaveFile
// beside the destination and put in its place with the last: a person's file is replaced whole
// or not at all.
void EngineWorker::takeSavedPiece(const SavedValue& piece) {
    if (saveDestinations_.empty())
        return; // a value nobody asked for (after a Reset of the engine)
    const QString destination = saveDestinations_.front();
    QString error = qs(piece.error);
    if (error.isEmpty() && !saving_ && savingError_.isEmpty()) {
        saving_ = std::make_unique<QSaveFile>(destination);
        if (!saving_->open(QIODevice::WriteOnly))
            savingError_ = QString("Cannot write '%1': check that its folder exists and is "
                                   "writable.")
                               .arg(destination);
    }
    if (error.isEmpty() && savingError_.isEmpty() &&
        saving_->write(piece.data.data(), static_cast<qint64>(piece.data.size())) !=
            static_cast<qint64>(piece.data.size())) {
        savingError_ = QString("Cannot write '%1': %2.").arg(destination, saving_->errorString());
        // Its temporary file goes now, not with the last piece: an engine that sends pieces
        // without end (or a value bigger than the disk) must not keep the disk full.
        saving_.reset();
    }
    if (piece.more && error.isEmpty())
        return;
    if (error.isEmpty())
        error = savingError_;
    if (error.isEmpty() && !saving_->commit()) // savingError_ is set wherever saving_ is gone
        error = QString("Cannot write '%1': %2.").arg(destination, saving_->errorString());
    saving_.reset(); // uncommitted: its temporary file is removed, the destination untouched
    savingError_.clear();
    saveDestinations_.pop_front();
    emitDone([e = engine_, destination, error] { emit e->valueSaved(destination, error); });
}

void EngineWorker::died(EngineProcess* engine, const QString& how) {
    engine_->finishedLater(engine->owedJobs());
    if (engine == current_ && !saveDestinations_.empty()) {
        // Its pieces will not come: what was written of a value is dropped.
        saving_.reset();
        savingError_.clear();
        for (const QString& destination : saveDestinations_) {
            QString error = QString("The engine ended before '%1' was saved; the file was not "
                                    "written.")
                                .arg(destination);
            emitDone([e = engine_, destination, error] { emit e->valueSaved(destination, error); });
        }
        saveDestinations_.clear();
    }
    if (engine == loading_ && engine == current_) {
        // The live session went while opening another of its graphs: that load fails, and
        // the session ends below.
        dropLoading();
        if (ticket_->fail())
            emitDone([e = engine_] {
                emit e->loadFailed("Your Python session ended while opening the graph.");
            });
    }
    if (engine == spare_) {
        retire(spare_);
    } else if (engine == loading_) {
        if (!engine->killed() && ticket_->fail()) {
            // fxview-engine's death is the file's doing; another program's may be its own.
            QString sentence =
                QString(engine->commandEngine()
                            ? "%1 %2 while loading %3; the window is fine and the open model "
                              "stays."
                            : "%1 %2 while loading %3; the window is fine and the open model "
                              "stays; %3 may be damaged.")
                    .arg(engine->name(), how, QFileInfo(qs(loadRequest_.source)).fileName());
            emitDone([e = engine_, sentence] { emit e->loadFailed(sentence); });
        }
        dropLoading();
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
        QString sentence = QString("%1 %2 %3; the window is fine; the model may be "
                                   "damaged. Reset (Ctrl+Shift+F5) runs it again in a fresh "
                                   "engine.")
                               .arg(engine->name(), how, where);
        if (reloading_)
            sentence = QString("%1 %2 while reopening the model; the window is fine; "
                               "the model may be damaged.")
                           .arg(engine->name(), how);
        // Another machine's engine ends with its connection more often than by its model.
        if (engine->remote())
            sentence = QString("%1 %2 %3; the window is fine and keeps the picture. Reset "
                               "(Ctrl+Shift+F5) connects again and reopens the model.")
                           .arg(engine->name(), how, where);
        emitDone([e = engine_, sentence] { emit e->engineFailed(sentence); });
        startSpare();
    }
}

} // namespace fxview
