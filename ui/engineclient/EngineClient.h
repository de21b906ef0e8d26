#pragma once
// The UI's one asynchronous interface to the engine. Requests go out as plain data (load a
// model, set inputs, step, run to a node, reset, breakpoints); results come back as signals
// carrying plain data (the traced graph, a snapshot of the run, one sentence on failure).
//
// The model runs in an fxview-engine process of its own, confined (core/confinement/Confinement.h),
// one per open model: a model that crashes, loops or eats memory takes only its engine down. A
// worker thread of this process talks to the engines and lays graphs out, so the GUI thread never
// waits; stop() ends a busy engine at once and a fresh one reloads the model. One spare engine is
// started ahead of need, so that opening costs no process start.

#include <QFont>
#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "EngineProtocol.h"
#include "Graph.h"
#include "GraphLayout.h"
#include "InputSpec.h"
#include "OutputCheck.h"
#include "RunRecord.h"
#include "ScopeTree.h"
#include "ScopeView.h"
#include "engineclient/EngineProcess.h"
#include "session/SessionTypes.h"

namespace fxview {

// One load's fate, shared by the window (which may cancel it) and the engine (which commits it
// when done): whichever comes first wins, so the two never disagree on which model is open.
struct LoadTicket {
    enum { Running, Cancelled, Committed, Failed };
    explicit LoadTicket(int loadId) : id(loadId) {}
    const int id;
    std::atomic<int> state{Running};
    bool cancel() { return settle(Cancelled); }
    bool commit() { return settle(Committed); }
    bool fail() { return settle(Failed); }
    bool cancelled() const { return state.load() == Cancelled; }

private:
    bool settle(int to) {
        int expected = Running;
        return state.compare_exchange_strong(expected, to);
    }
};

class EngineWorker;

class EngineClient : public QObject {
    Q_OBJECT
public:
    explicit EngineClient(QObject* parent = nullptr);
    ~EngineClient() override;

    // How engines are started (fxview's --in-process and --memory-limit): read by each EngineClient
    // when it is made.
    static void setSettings(const EngineSettings& settings);
    // Adds a library of custom ops that every later load loads first (no-op if listed).
    static void addOpLibrary(const std::string& path);

    // Loads, traces and lays out a model; returns the id that its progress and its
    // LoadedModel carry. A load still going is cancelled: the newest request wins.
    // `origin` says where given inputs come from, for the note beside them ("as given");
    // `openScopes` the module scopes to draw open (the default for the graph's size if none);
    // `remembered` the engine the file was last opened with, used unless the command line named
    // one (the default engine otherwise).
    int load(const QString& source, const std::vector<InputSpec>& inputs = {}, quint64 seed = 0,
             const QString& origin = "as given",
             std::optional<std::set<std::string>> openScopes = std::nullopt,
             const std::optional<EngineChoice>& remembered = std::nullopt,
             const QStringList& moreImports = {});
    // Stops the load in progress at its next stage; the open model stays. False if there is
    // none, or if it has already replaced the model (its `loaded` is then on its way).
    bool cancelLoad();
    // The font the scene measures boxes with: layout happens on the engine's side.
    void setLayoutFont(const QFont& font) { layoutFont_ = font; }
    // Whether later loads and executed paths draw weights as boxes of their own (View ▸ Weights
    // as Nodes) or inside the box of the node reading them (drawWeightsInside).
    void setWeightsAsNodes(bool on);
    // Asks for the executed path of the run so far; answered by executedPathReady.
    void requestExecutedPath();
    void setInputs(const std::vector<InputSpec>& inputs, quint64 seed);
    void command(RunCommand command, const QString& node = {});
    void setBreakpoint(const QString& node, bool on, BreakCondition condition = {});
    // Run ▸ Break on NaN/Inf: runs stop after the first node whose output holds one.
    void setBreakOnNonFinite(bool on);
    // Asks for a slice of a node's value; answered by valuesReady.
    void requestValues(const ValueSliceRequest& request);
    // Asks for the std and histograms a live run's record was sent without (the frame and node
    // of `request`); answered by detailReady.
    void requestDetail(const ValueSliceRequest& request);
    // Asks the engine to write a node's value and moves the file to `destination`; answered by
    // valueSaved.
    void saveValue(const SaveValueRequest& request, const QString& destination);
    // Runs A (the model open, on its inputs) and B as `request` says, side by side, in the
    // engine; answered by comparisonReady. A live engine compares in the person's Python.
    void compare(const CompareRequest& request);
    // Run ▸ Profile…: the model run once to warm up, then `runs` times, each node timed
    // (docs/cost.md), after one run under torch.profiler with `operators`; answered by
    // profiled, then runUpdated with the last run.
    void profile(int runs, bool operators = false);
    bool busy() const { return pending_ > 0; }
    // Ends whatever the engine is doing now: its process is killed and a fresh one reloads the
    // model (the graph stays; the run starts again from the beginning). For Reset while busy.
    void stop();
    // Asks a long run to stop before its next node (Pause); an engine stuck inside one node is
    // stopped as stop() does after half a second.
    void interrupt();
    // Whether the open model is a live one, in the person's own Python process (fxview
    // --attach): Pause and Reset interrupt it between nodes; it is never killed.
    bool live() const;
    // Ends the live session (the person's process goes on); liveEnded follows.
    void detach();
    // The process running the open model (0 when there is none, or in-process): for the About
    // box and for tests that crash it on purpose.
    qint64 enginePid() const;
    // The bytes that crossed between this window and the open model's engine since it started:
    // (from the engine, to it). For --report-run and the measurements of a remote engine.
    std::pair<qint64, qint64> wireBytes() const;

signals:
    void loadProgress(int load, const QString& stage, int percent);
    void loaded(const fxview::LoadedModel& model);
    // The first model, a .pt2, drawn by the window alone while its engine starts (its
    // `drawnAhead` set): shown, not run; `loaded` follows, or loadFailed.
    void drawnAhead(const fxview::LoadedModel& model);
    void executedPathReady(const fxview::ExecutedView& view);
    // `imports`: modules the file names that the engine lacks (ImportOffer), offered to the
    // person for opening `source` again.
    void loadFailed(const QString& sentence, const QString& source = {},
                    const QStringList& imports = {});
    void inputsRejected(const QString& sentence);
    void inputsApplied(const std::vector<fxview::InputSpec>& inputs, quint64 seed);
    void engineFailed(const QString& sentence); // a request ended in an error nothing expected
    void runUpdated(const fxview::RunSnapshot& snapshot);
    void valuesReady(std::shared_ptr<const fxview::ValueSlice> slice);
    // The summary a requestDetail asked for, or its error sentence.
    void detailReady(std::shared_ptr<const fxview::ValueSlice> detail);
    // `error` is "" when the value is at `destination`, or the sentence that says why not.
    void valueSaved(const QString& destination, const QString& error);
    // `json` is the fxview.comparison document, or empty with `error` the sentence why not.
    void comparisonReady(const QByteArray& json, const QString& error);
    // Every node's time in each profiled run, by name; `error` why it stopped short ("" when not).
    void profiled(std::shared_ptr<const fxview::ProfileAnswer> answer);
    // A live engine serving a compile session sent it (after each graph it opened): the
    // Compile panel's JSON (docs/compile-session.md), with "open" the graph open now.
    void compileSession(const QByteArray& json);
    void busyChanged(bool busy);
    // The live engine is gone (its Python process ended, or detach()): the picture stays.
    void liveEnded(const QString& sentence);
    // A live engine asked to stop (Pause, Reset) is still inside a node after half a second:
    // the sentence says it cannot be stopped from here; the next run state replaces it.
    void liveWaiting(const QString& sentence);
    // Once per EngineClient, when its model runs without Landlock (an old kernel, --in-process).
    void unconfined(const QString& sentence);

private:
    friend class EngineWorker;
    void post(std::function<void(EngineWorker&)> job);
    void finishedLater(int jobs); // any thread: `jobs` posted jobs are answered
    QThread thread_;
    EngineWorker* worker_;
    int pending_ = 0;
    qint64 posted_ = 0, answered_ = 0; // jobs asked and answered since the engine was made
    int loads_ = 0;
    std::shared_ptr<LoadTicket> loading_;
    QFont layoutFont_;
};

} // namespace fxview

Q_DECLARE_METATYPE(fxview::LoadedModel)
Q_DECLARE_METATYPE(fxview::RunSnapshot)
Q_DECLARE_METATYPE(fxview::ExecutedView)
Q_DECLARE_METATYPE(std::shared_ptr<const fxview::ValueSlice>)
Q_DECLARE_METATYPE(std::shared_ptr<const fxview::ProfileAnswer>)
