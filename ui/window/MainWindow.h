#pragma once
// fxview's main window: the graph in the centre, docks with the node list, the inspector and the
// graph as text, a debugger's Run menu and toolbar, and a status bar. It only draws and asks:
// the model, the run and the debugger's decisions are its DebugSession's, every model operation
// goes through the session's EngineClient. MainWindow.cpp builds and wires the window and shows
// models; MainWindowActions.cpp its menus and commands; MainWindowRun.cpp shows runs (snapshots,
// Step Into, executed path, Play, breakpoints, inputs); MainWindowScopes.cpp the module hierarchy
// (scopes opened and closed); MainWindowNavigation.cpp finding, selecting and walking nodes.

#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <set>

#include "CostTable.h"
#include "engineclient/EngineClient.h"

class QAction;
class QSpinBox;
class QTimer;
class QToolBar;
class QDockWidget;
class QLabel;
class QMenu;
class QMessageBox;
class QLineEdit;
class QPlainTextEdit;

namespace fxview {

class DebugSession;
class GraphScene;
class Banner;
class GraphTextPanel;
class GraphView;
class InputBar;
class Inspector;
class LoadProgress;
class BackgroundLayout;
class NodeListPanel;
class ValuesPanel;
class ComparisonPanel;
class CompilePanel;
class CostPanel;
class MemoryStrip;
struct CompareRequest;
class OverviewView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // `moreImports`: modules the engine imports first, beyond the ones it would (an offer taken).
    void openModel(const QString& source, const std::vector<InputSpec>& inputs = {},
                   const QStringList& moreImports = {});
    // The box a failed open left, offering the modules the file names (nullptr when none).
    QMessageBox* failureBox() const;

    // For tests and scripting: the state the window shows.
    GraphScene* scene() const { return scene_; }
    DebugSession* session() const { return session_; }
    EngineClient* engine() const { return engine_; }
    const QString& modelSource() const;
    const LoadedModel& model() const;
    const QString& currentNode() const;
    const RunSnapshot& run() const;
    QString statusText() const;
    QString bannerText() const;
    void selectNode(const QString& name);
    QString selectedNode() const;
    OverviewView* overview() const { return overview_; }
    GraphView* view() const { return view_; }
    QString exportTo(const QString& path, bool visiblePartOnly = false); // "" or why not
    void copyImage(); // the graph as shown, to the clipboard
    // Selects the next (or previous) node whose name, op or target contains `text`.
    bool findNode(const QString& text, bool backwards = false);
    // Moves the selection along the graph: to a producer (up), a user (down), or the previous
    // and next node in graph order (left, right).
    void walk(int key);
    // The input bar: one spec per placeholder and the seed; "" or the sentence that rejects them.
    QString applyInputs(const QStringList& specs, quint64 seed);
    void setPlaying(bool on);
    bool playing() const;
    void setPlayInterval(int milliseconds);
    QStringList recentModels() const;
    // Stops the model being opened; the open one stays. False if nothing was opening.
    bool cancelOpen();
    LoadProgress* loadProgress() const { return progress_; }
    // After a run: the path it took as its own graph (branches not taken gone, loops
    // unrolled), or back to the whole graph.
    void setExecutedPathShown(bool on);
    bool executedPathShown() const;
    void toggleBreakpoint(const QString& node);
    void addConditionalBreakpoint(const QString& node, BreakCondition condition);
    InputBar* inputBar() const { return inputBar_; }

    // The module hierarchy: a closed scope is one box. Opening or closing one lays out again
    // only what changed and keeps it where the person was looking; the state is remembered for
    // the model's file.
    void setScopeOpen(const QString& scope, bool open);
    void collapseToDepth(int depth);
    void expandAll();
    // Past this many drawn nodes a change of open scopes is laid out in the background.
    static constexpr int kBackgroundLayoutNodes = 2000;
    bool layingOut() const;
    // Stops the background layout (the picture stays as it was); false when none runs.
    bool cancelLayout();
    // View ▸ Weights as Nodes: weights as boxes of their own, or as lines in their readers' boxes
    // (the default); remembered.
    void setWeightsAsNodes(bool on);
    // Run ▸ Profile… without asking: the model run once to warm up, then `runs` times; the Cost
    // dock shows each node's median time (MainWindowCost.cpp).
    void profile(int runs, bool operators = false);
    // Writes the last profile's torch.profiler trace to `path`: "" or why not.
    QString exportTrace(const QString& path);
    // Lays a person's torch.profiler trace of this model's run onto its nodes (ProfilerTrace.h):
    // the Cost dock's Operators column shows them until a profile brings its own or another
    // model opens. Returns what it laid ("Laid t.json on 31 of 31 nodes…"), or why it laid
    // nothing, as the window says it.
    QString importTrace(const QString& path, bool* laid = nullptr);
    // Run ▸ Compare Runs…: asks what run B is, then runs the comparison (MainWindowCompare.cpp).
    void compareRuns();
    // Runs A (the model open, on its input) and B as `request` says, in the model's engine.
    void startComparison(const CompareRequest& request);
    ComparisonPanel* comparisonPanel() const { return comparison_; }
    CostPanel* costPanel() const { return cost_; }
    MemoryStrip* memoryStrip() const { return strip_; }
    CompilePanel* compilePanel() const { return compile_; }
    QStringList openScopes() const;
    // The box a node is drawn inside, or the node itself when it is drawn.
    QString drawnAs(const QString& node) const;
    NodeListPanel* nodeList() const { return nodeList_; }
    // What a drop of files on the window does: opens the first local file.
    bool openDropped(const QList<QUrl>& urls);

signals:
    void modelShown();
    void comparisonShown(); // a comparison's answer (its table, or its sentence) is shown
    void runShown();
    void scopesShown(); // a change of open scopes is drawn (after a background layout, too)

private:
    void buildActions();
    void buildDocks();
    void buildComparison();
    // The Compile dock (MainWindowCompile.cpp): a compile session's graphs, breaks, recompiles.
    void buildCompilePanel();
    void hideCompileDockUntilNeeded();
    void showComparisonMarks();
    // The Cost dock and the live set's strip (MainWindowCost.cpp).
    void buildCostPanel();
    void showCost();
    void showMarks(); // the Cost dock's colours, else a comparison's
    void chooseCostExport();
    void chooseTraceExport(); // the Cost dock's Export Trace…: the profiler's Chrome trace
    void chooseTraceImport(); // the Cost dock's Import Trace…: a person's own trace
    void chooseProfile();     // Run ▸ Profile…: how many runs, then the engine runs them
    void showModel(const LoadedModel& model);
    void loadFailed(const QString& sentence, const QString& source, const QStringList& imports);
    void inputsApplied(const QString& note, const QStringList& specs, quint64 seed);
    void showModuleFrame();
    void showOutputCheck(const OutputCheck& check);
    void showModelWarnings(const RunSnapshot& snapshot);
    void styleBanner();
    void followSystemPalette();
    void changeEvent(QEvent* event) override;
    void showRun(const RunSnapshot& snapshot);
    void showPlaying(bool on);
    void showInspector(const QString& node);
    void describeNode(const QString& node); // the inspector alone, as the session has the node
    void updateStatus();
    void showGraph(const Graph& graph, const GraphLayout& layout, const std::string& text,
                   std::shared_ptr<const ScopeView> scopes = nullptr);
    void showModelGraph();
    void showScopes(const std::set<std::string>& open, QString anchor, bool opening);
    void applyScopes(const std::set<std::string>& open, std::shared_ptr<const ScopeView> view,
                     GraphLayout layout, QString anchor, bool opening);
    bool revealNode(const QString& node);
    void showBreakpoints();
    void buildScopeActions(QMenu* view);
    void markCurrentLine();
    // Where a breakpoint's dot is drawn: its node, the box it is in, or for a hidden guard the
    // node it guards (a scope's breakpoint stops before its first node, a guard too).
    QString drawnBreakpoint(const QString& node) const;
    void showRecords(const QString& current);
    void chooseFile();
    void chooseRemote(); // File ▸ Open Remote…
    void chooseExport();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

    DebugSession* session_; // the model, the run and the debugger's decisions
    EngineClient* engine_;  // the session's
    GraphScene* scene_;
    GraphView* view_;
    OverviewView* overview_;
    Banner* banner_;
    QPointer<QMessageBox> failureBox_; // the last open's failure, while it is shown
    NodeListPanel* nodeList_;
    QLineEdit* find_;
    Inspector* inspector_;
    ValuesPanel* values_;
    ComparisonPanel* comparison_;
    CostPanel* cost_;
    MemoryStrip* strip_;        // under the graph while the Cost dock is open
    bool costShown_ = false;    // the Cost dock is open and in front
    int profileRunsAsked_ = 20; // Run ▸ Profile…'s last answer
    bool profileOperatorsAsked_ = false;
    OperatorsByNode importedOperators_; // Import Trace…'s, shown while a profile has none
    CompilePanel* compile_;
    bool compileShown_ = false; // the Compile dock was brought up for a session
    // A pass's graph keeps its colours (added, retargeted) when its comparison with the graph
    // before it arrives, until the person picks a metric or threshold in the Comparison dock.
    bool passMarksKept_ = false;
    GraphTextPanel* graphText_;
    QLabel* status_;
    QList<QAction*> runActions_;
    QList<QDockWidget*> docks_;
    InputBar* inputBar_;
    LoadProgress* progress_;
    BackgroundLayout* layout_; // a change of open scopes laid out off the GUI thread
    QAction* executedPath_;
    QAction* detach_ = nullptr; // Run ▸ Detach from Python: a live model's session ends
    QAction* play_;
    QSpinBox* playInterval_;

    bool weightsAsNodes_ = false;
    QSet<QString> warned_; // nodes whose warnings.warn this run has shown
};

} // namespace fxview
