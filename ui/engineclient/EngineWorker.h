#pragma once
// Private to engineclient/: the half of EngineClient that lives on its thread. Included only by
// EngineClient.cpp and EngineWorker.cpp.

#include <QFont>
#include <QObject>
#include <QSaveFile>
#include <QString>
#include <QStringList>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "GraphLayout.h"
#include "ProgramReading.h"
#include "RunRecords.h"
#include "engineclient/EngineClient.h"
#include "engineclient/EngineProcess.h"

namespace fxview {

class ReaderProcess;

// Lives on the engine thread; owns the engine processes. `lock` guards which process is current
// or loading, for the GUI thread's stop() and cancelLoad(), which kill without waiting.
class EngineWorker : public QObject {
public:
    EngineWorker(EngineClient* engine, const EngineSettings& settings)
        : engine_(engine), settings_(settings), given_(settings) {}

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
    // The bytes the open model's engine has read and written (EngineProcess::bytesIn/Out).
    std::pair<qint64, qint64> wireBytes() {
        std::lock_guard<std::mutex> guard(lock);
        EngineProcess* engine = loading_ ? loading_ : current_;
        return engine ? std::make_pair(engine->bytesIn(), engine->bytesOut())
                      : std::make_pair(qint64(0), qint64(0));
    }
    std::string runningNode() {
        std::lock_guard<std::mutex> guard(lock);
        return running_;
    }

    // One engine started ahead of need, so that opening costs no start; none for another
    // machine, where it would hold a second PyTorch on the server for nothing.
    void startSpare() {
        if (!spare_ && settings_.noEngine.isEmpty() &&
            (settings_.remote.isEmpty() || !settings_.attachRemote.isEmpty()))
            spare_ = makeProcess();
    }

    void shutdown();

    // `command`: the engine to open it in (EngineClient::load chose it), started unless the
    // spare is that engine.
    // `machine`: "ssh://..." for a model on another machine (RemoteEngine.h), "" for this one.
    void load(const OpenRequest& request, const QFont& font, const std::shared_ptr<LoadTicket>& t,
              const std::optional<std::set<std::string>>& openScopes, const QStringList& command,
              const QString& machine = {});

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

    void command(const CommandRequest& request);

    void setBreakpoint(const BreakpointRequest& request) {
        if (request.on)
            breakpoints_[request.node] = request.condition;
        else
            breakpoints_.erase(request.node);
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::SetBreakpoint, encode(request), true);
        engine_->finishedLater(1);
    }

    void setWatch(const WatchRequest& request) {
        watch_ = request;
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::SetWatch, encode(request), true);
        engine_->finishedLater(1);
    }

    void requestValues(const ValueSliceRequest& request) {
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::ValueRequest, encode(request), true);
        engine_->finishedLater(1);
    }

    void requestDetail(const ValueSliceRequest& request) {
        if (EngineProcess* engine = liveCurrent())
            return engine->send(EngineMessage::DetailRequest, encode(request), true);
        engine_->finishedLater(1);
    }

    // The engine sends the file's bytes in pieces (takeSavedPiece): the window writes
    // `destination`, the engine nothing of the person's.
    void saveValue(const SaveValueRequest& request, const QString& destination) {
        if (EngineProcess* engine = liveCurrent()) {
            saveDestinations_.push_back(destination);
            return engine->send(EngineMessage::SaveValue, encode(request), true);
        }
        engine_->finishedLater(1);
    }

    void compare(CompareRequest request);
    void profile(const ProfileRequest& request);

    // After stop(): the killed engine's successor reloads the model.
    void reload() {
        liveCurrent();
        engine_->finishedLater(1);
    }

private:
    EngineClient* engine_;
    EngineSettings settings_; // how the next engine starts: given_, with the command a file chose
    const EngineSettings given_; // the command line's
    // Later engines (spares, reloads) start as `command`, on `machine`; a spare of another
    // engine goes.
    void useEngine(const QStringList& command, const QString& machine);
    // An Open for `engine`: a model on another machine is opened there by its path.
    std::string openFor(const OpenRequest& request) const;
    EngineProcess* current_ =
        nullptr; // the open model's engine (dead until reloaded after a crash)
    EngineProcess* loading_ = nullptr; // opening a model that replaces it if it loads
    EngineProcess* spare_ = nullptr;   // started, LibTorch loaded, waiting for a model
    std::shared_ptr<LoadTicket> ticket_;
    OpenRequest loadRequest_;
    QStringList offeredImports_; // the loading engine's ImportOffer, for its OpenFailed
    std::optional<std::set<std::string>> openScopes_; // the load's
    OpenRequest open_; // what current_ opened, with the inputs applied since: a reload's request
    std::unordered_map<std::string, BreakCondition> breakpoints_; // replayed on a reload
    WatchRequest watch_;                                          // so is Break on NaN/Inf
    std::deque<QString> saveDestinations_; // where each SaveValue asked goes, in order
    std::unique_ptr<QSaveFile> saving_;    // the first's file, while its pieces come
    QString savingError_;                  // why its pieces are not written, once one failed
    bool reloading_ = false;
    bool saidUnconfined_ = false;
    QFont font_;
    bool weightsAsNodes_ = false; // the View menu's: weights as boxes, or inside their readers'
    std::unordered_map<std::string, GraphLayout> moduleLayouts_; // by module path, this model's
    RunRecords records_;  // a live engine's RunState may carry only the records that changed
    std::string running_; // the node the current engine last said it was at

    EngineProcess* makeProcess();

    EngineProcess* takeSpare() {
        EngineProcess* engine = spare_ && spare_->alive() ? spare_ : makeProcess();
        if (engine != spare_)
            retire(spare_);
        spare_ = nullptr;
        return engine;
    }

    // Kills an engine and deletes it once it has been reaped; its jobs are finished.
    void retire(EngineProcess*& engine);
    // The load in progress is over: its engine goes, unless it is the current one (a live
    // session opening another of its own graphs), which stays.
    void dropLoading();

    // The current engine, alive: after a crash or stop(), a fresh one reopens the model first
    // (with its inputs and breakpoints), so the next request finds it as it was at its start.
    EngineProcess* liveCurrent();

    template <typename F> void emitDone(F&& f) {
        QMetaObject::invokeMethod(engine_, std::forward<F>(f), Qt::QueuedConnection);
    }

    void received(EngineProcess* engine, EngineMessage kind, const std::string& payload);

    void fromLoading(EngineMessage kind, const std::string& payload);

    void opened(OpenedModel m);
    // A Python engine's Opened carries no graph, only its PyTorch's schemas: the window walks the
    // program itself, in fxview-reader, as fxview-engine walks it with LibTorch's.
    void walkProgram(OpenedModel m);
    void openedWithGraph(OpenedModel m);

    // The file read by fxview-reader (ReaderProcess.h), never by the window itself, while its
    // engine starts; `draw`: the first model of this window, drawn from that reading.
    void readAhead(const OpenRequest& request, bool draw);
    void stopReading(); // a reader still at work is killed, its answer never heard
    ReaderProcess* reader_ = nullptr;
    // A Python engine's program being walked (walkProgram): its engine's later messages wait.
    bool walking_ = false;
    std::vector<std::pair<EngineMessage, std::string>> afterWalk_;
    std::string readKey_; // the file's cache key, once its reader has answered
    // The first model of this window drawn while its engine starts: a .pt2 from its program, as
    // the reader walked it, another archive from the graph an engine made of it before
    // (GraphCache.h). Shown at once, nothing runs until the engine's model, which must encode to
    // the same bytes, replaces it without a change on screen.
    void drawAhead(const OpenRequest& request, ProgramReading reading);
    std::optional<LoadedModel> drawnAhead_;
    bool drawnFromProgram_ = false; // else from the graph kept from the last open
    std::string drawnEncoding_;
    // The model's scope tree, the scopes drawn open (remembered, or the default), its view with
    // closed scopes as boxes and their layout with the scene's font.
    void draw(LoadedModel& model) const;

    void fromCurrent(EngineMessage kind, const std::string& payload);

    void state(RunState r);

    void takeSavedPiece(const SavedValue& piece);
    void died(EngineProcess* engine, const QString& how);
};

} // namespace fxview
