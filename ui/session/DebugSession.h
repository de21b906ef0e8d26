#pragma once
// One debugging session: the model open, the run and what the window shows of it, with the
// decisions a debugger makes on them (what Step means on a closed scope, whether Run to Cursor
// can reach a node, what a breakpoint or Play stops at), apart from any widget. The window draws
// what the session holds and hands it the person's commands; panels and tests read it.
//
// The engine's answers come here first (the session holds them), then go on to the window as
// the session's signals (modelLoaded, runUpdated, executedPathReady, inputsApplied); the
// session also tells what only it decides: a sentence for the status bar (message), a node whose
// scopes must open before a step (revealRequested), Play starting or stopping (playingChanged).

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include "CostTable.h"
#include "engineclient/EngineClient.h"
#include "session/SessionTypes.h"

class QTimer;

namespace fxview {

class DebugSession : public QObject {
    Q_OBJECT
public:
    explicit DebugSession(QObject* parent = nullptr);

    EngineClient* engine() const { return engine_; }

    // The model open ("" before one is), and one being opened.
    const QString& source() const { return source_; }
    const QString& pendingSource() const { return pendingSource_; }
    const LoadedModel& model() const { return model_; }
    const RunSnapshot& run() const { return run_; }
    // The node the run stopped after ("" before it starts), named as the shown graph names it.
    const QString& current() const { return current_; }
    const ExecutedView& executed() const { return executed_; }
    bool executedShown() const { return executedShown_; }
    // The module Step Into is in, whose graph is shown, or "".
    const QString& shownModule() const { return shownModule_; }
    bool liveEnded() const { return liveEnded_; }
    // Nothing runs without a model, once a live one went, or while the model shown was drawn
    // ahead of its engine (which is still starting).
    bool canRun() const { return !source_.isEmpty() && !liveEnded_ && !model_.drawnAhead; }
    const QSet<QString>& breakpoints() const { return breakpoints_; }

    // What the scene shows: the executed path, a stepped-into module, or the model drawn with
    // its closed scopes as boxes; and the record of one of its nodes in this run.
    const Graph& shownGraph() const;
    const NodeRecord* recordOf(const std::string& node) const;
    // Whether the model's own graph is shown (not the executed path or a module's).
    bool modelShown() const { return !executedShown_ && shownModule_.isEmpty(); }
    // The box the next node to run is inside, when the model's graph is shown and it is closed.
    const ScopeBox* boxOfNext() const;
    // Where the run is, in the status bar's words: "stopped after fc1", "finished, output equal
    // to forward", "failed at relu"...
    QString stateText() const;
    // The visible nodes whose name, op or target holds `text` (any case), in graph order.
    QStringList nodesMatching(const QString& text) const;

    // Opens `source` with `inputs`, or with those last applied to it; the open model stays
    // until the new one is loaded. Returns the load's id; `seed` the seed used.
    int open(const QString& source, const std::vector<InputSpec>& inputs, quint64& seed,
             const QStringList& moreImports = {});
    // Stops the model being opened; its source, or "" if nothing was opening.
    QString cancelOpen();
    void setExecutedShown(bool on);
    // The module the run is inside is shown: false if it already was.
    bool followModuleFrame();
    // The scopes drawn open changed (the window laid the model out again).
    void setScopes(const std::set<std::string>& open, std::shared_ptr<const ScopeView> view,
                   GraphLayout layout);

    // The inputs the input bar applies: "" or the sentence that rejects them. Remembered for
    // the model once the engine has made them (inputsApplied).
    QString applyInputs(const QStringList& specs, quint64 seed);

    // The debugger's commands. A closed scope is stepped as a call_module is: Step runs it
    // whole, Step Into opens it (revealRequested) and runs its first node.
    void runCommand(RunCommand command);
    // Run to Cursor: until `node` (or a box's whole scope) has run; one that already ran cannot
    // be reached again without Reset, and the person is told so.
    void runTo(const QString& node);
    // A breakpoint on one of the model's own nodes; false if `node` is none. With a condition it
    // stops a run after the node, when its output meets it (BreakCondition.h).
    bool setBreakpoint(const QString& node, bool on, BreakCondition condition = {});
    BreakCondition breakCondition(const QString& node) const { return conditions_.value(node); }
    // Run ▸ Break on NaN/Inf: runs (and Play) stop after the first node whose output holds one.
    void setBreakOnNonFinite(bool on);
    bool breakOnNonFinite() const { return breakOnNonFinite_; }

    // The Values view's questions: answered by valuesReady, and valueSaved through `message`.
    void requestValues(const ValueSliceRequest& request);
    // The node is on show: a live run's record of it came without std and the histogram, so
    // they are asked for once (detailChanged follows). detailNote: why they cannot be made.
    void wantDetail(const QString& node);
    QString detailNote(const QString& node) const;
    // Run ▸ Compare Runs…: run B beside a fresh run A of the model open, in its engine (a live
    // one in the person's Python); answered by comparisonReady or comparisonFailed.
    void compare(const CompareRequest& request);
    // Run ▸ Profile…: the model run once to warm up, then `runs` times, each node timed
    // (profiled follows, then the last run). The times belong to that run: they go when the run
    // moves on (a step, Reset, new inputs). With `operators`, one run under torch.profiler
    // first (the Python engine): profileOperators() and profileTrace().
    void profile(int runs, bool operators = false);
    using NodeTimes = std::unordered_map<std::string, std::vector<double>>;
    const NodeTimes& profileTimes() const { return profileTimes_; }
    int profileRuns() const { return profileRuns_; }
    const OperatorsByNode& profileOperators() const;
    const std::string& profileTrace() const; // the Chrome trace's JSON, or ""
    QString profileOperatorsNote() const;    // why there are no operators or no trace
    void saveValue(const SaveValueRequest& request, const QString& path);
    // The node the person selected ("" for none), as the scene reports it.
    void select(const QString& node);
    const QString& selected() const { return selected_; }

    // Play: one step per interval until the end, a failure, a breakpoint or Pause.
    void setPlaying(bool on);
    bool playing() const;
    void setPlayInterval(int milliseconds);

    // Inside a stepped-into module the engine names nodes "fc1.linear"; the model's graph fc1.
    static QString topLevelName(const std::string& name);
    // The visible node a hidden one stands guard for (an inlined check's raise before `fc`).
    static QString guardedNode(const Graph& graph, const std::string& name);

signals:
    // The engine's answers, once the session holds them: the window draws them.
    void modelLoaded(const fxview::LoadedModel& model);
    // The model drawn ahead of its engine went with its load (it failed, or was cancelled):
    // the session holds no model.
    void modelDropped();
    void runUpdated(const fxview::RunSnapshot& snapshot);
    void executedPathReady();
    // Inputs the engine made, remembered for the model: `note` for the input bar.
    void inputsApplied(const QString& note, const QStringList& specs, quint64 seed);

    void message(const QString& text, int milliseconds);
    void revealRequested(const QString& node);
    void playingChanged(bool on);
    void runChanged();
    void currentNodeChanged(const QString& node);
    // What the scene shows changed: the executed path or a module's graph in the model's place.
    void shownGraphChanged();
    void selectionChanged(const QString& node);
    void valuesReady(std::shared_ptr<const fxview::ValueSlice> slice);
    // The node's record now has its std and histogram (or a detailNote).
    void detailChanged(const QString& node);
    // The comparison, with the metric and threshold it was judged by.
    void comparisonReady(std::shared_ptr<const fxview::ComparisonReport> report,
                         fxview::Metric metric, double threshold);
    void comparisonFailed(const QString& sentence);
    // A profile ended: its times are profileTimes(); `error` why it stopped short, or "".
    void profiled(const QString& error);
    // A value could not be saved: the sentence says why (a saved one is said in `message`).
    void valueNotSaved(const QString& sentence);

private:
    // A model the engine loaded becomes the session's: the run, breakpoints and views start
    // afresh; its inputs are forgotten if they could not be made.
    void takeModel(const LoadedModel& model);
    void dropDrawnAhead();
    void takeRun(const RunSnapshot& snapshot);
    void takeInputs(const std::vector<InputSpec>& specs, quint64 seed);
    void takeDetail(const ValueSlice& detail);
    void playTick();

    EngineClient* engine_;
    QTimer* playTimer_;
    QString playFrom_; // the breakpoint node Play started at, which it steps over
    QString source_, pendingSource_, current_, selected_;
    LoadedModel model_;
    RunSnapshot run_;
    ExecutedView executed_;
    bool executedShown_ = false;
    QString shownModule_;
    std::string shownFrame_; // the shown frame's block (moduleType) and graph text
    bool liveEnded_ = false;
    QSet<QString> breakpoints_;
    QHash<QString, BreakCondition> conditions_; // of the breakpoints that have one
    bool breakOnNonFinite_ = false;
    // Details asked for in this run, by "frame/node": "" while asked or made, else the engine's
    // sentence why not. A run sent whole (a reset, new inputs) starts it afresh.
    QHash<QString, QString> detailsAsked_;
    NodeTimes profileTimes_; // Run ▸ Profile…'s, for the run it ended in
    int profileRuns_ = 0;
    std::shared_ptr<const ProfileAnswer> profileAnswer_; // its operators and trace, or null
    bool profileState_ = false; // the next run update is the profile's last run
};

} // namespace fxview
