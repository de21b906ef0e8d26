// The window's side of a run (MainWindow's other half, apart for size): the session's run shown
// on the graph, the list and the text; Step Into's module graph; the executed path; Play's
// button; breakpoints drawn; inputs applied. What the debugger decides is DebugSession's.

#include <QAction>
#include <QIcon>
#include <QSpinBox>
#include <QStatusBar>

#include "FxText.h"
#include "panels/Banner.h"
#include "panels/CostPanel.h"
#include "panels/GraphTextPanel.h"
#include "panels/InputBar.h"
#include "panels/NodeListPanel.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

namespace fxview {

QString MainWindow::applyInputs(const QStringList& texts, quint64 seed) {
    QString error = session_->applyInputs(texts, seed);
    if (!error.isEmpty())
        banner_->say(error, Banner::State::Error);
    return error;
}

void MainWindow::inputsApplied(const QString& note, const QStringList& texts, quint64 seed) {
    inputBar_->setNote(note);
    banner_->say("Input " + texts.join(", ") + QString(", seed %1; the run starts again").arg(seed),
                 Banner::State::Note);
}

void MainWindow::setPlaying(bool on) {
    session_->setPlaying(on);
}

bool MainWindow::playing() const {
    return session_->playing();
}

void MainWindow::setPlayInterval(int milliseconds) {
    playInterval_->setValue(milliseconds);
}

// The Play button follows the session: Pause while it plays.
void MainWindow::showPlaying(bool on) {
    play_->setChecked(on);
    play_->setText(on ? "&Pause" : "&Play");
    play_->setIcon(QIcon(on ? ":/fxview/icons/pause.svg" : ":/fxview/icons/play.svg"));
}

// The shown graph's boxes, edges and node list take the records' states and shapes.
void MainWindow::showRecords(const QString& current) {
    auto records = [this](const std::string& n) { return session_->recordOf(n); };
    scene_->syncRun(records, current);
    nodeList_->showRecords(records, current);
    showCost();
    if (cost_->measure() != CostMeasure::None)
        showMarks(); // the figures moved with the run
}

void MainWindow::setExecutedPathShown(bool on) {
    const ExecutedView& executed = session_->executed();
    if (on && executed.graph.nodes.empty())
        on = false; // nothing has run yet
    executedPath_->setChecked(on);
    if (on == session_->executedShown())
        return;
    session_->setExecutedShown(on);
    if (on) {
        showGraph(executed.graph, executed.layout, formatGraph(executed.graph));
    } else {
        showModelGraph();
        showModuleFrame();
    }
    const RunSnapshot& run = session_->run();
    showRecords(on || run.finished ? QString() : session_->current());
    banner_->say(on ? QString("Executed path of this run: %1 nodes, as tracing with this input "
                              "would record them (Ctrl+Shift+E for the whole graph)")
                          .arg(scene_->nodeCount())
                    : QString(),
                 Banner::State::Note);
    updateStatus();
}

void MainWindow::showRun(const RunSnapshot& snapshot) {
    // The run moved on: the executed path shown is no longer this run's.
    setExecutedPathShown(false);
    executedPath_->setEnabled(!snapshot.order.empty());
    showModuleFrame();
    const QString current = session_->current();
    showRecords(snapshot.finished ? QString() : current);
    // A run's failure is cleared by the next snapshot that has none (after Reset); other errors
    // (an input refused, a load that fell back to the guess) stay until something replaces them.
    if (!snapshot.stopNote.empty()) {
        // A condition or Break on NaN/Inf stopped the run after a node: it is selected, and the
        // banner says what it holds and where that was born.
        banner_->say(QString::fromStdString(snapshot.stopNote), Banner::State::RunFailure);
        if (session_->shownGraph().find(current.toStdString()))
            selectNode(current);
    } else if (snapshot.failed) {
        banner_->say(QString::fromStdString(snapshot.failure), Banner::State::RunFailure);
        const Graph& graph =
            session_->modelShown() ? session_->model().graph : session_->shownGraph();
        if (graph.find(current.toStdString()) && !graph.find(current.toStdString())->hidden) {
            selectNode(current); // its scopes open; its inspector shows the message in full
        } else if (NodeItem* guarded = scene_->nodeItem(
                       drawnAs(DebugSession::guardedNode(graph, current.toStdString())))) {
            // A hidden guard failed: the node it guards turns red, as torch.fx would fail there.
            guarded->setRunState(NodeItem::State::Failed, "failed");
            selectNode(guarded->name());
        }
    } else if (snapshot.finished && snapshot.outputCheck.verdict != OutputCheck::Verdict::Equal &&
               snapshot.outputCheck.verdict != OutputCheck::Verdict::NotChecked &&
               snapshot.outputCheck.verdict != OutputCheck::Verdict::NoReference) {
        showOutputCheck(snapshot.outputCheck);
    } else {
        banner_->end(Banner::State::RunFailure);
        banner_->end(Banner::State::RunNote);
    }
    showModelWarnings(snapshot);
    markCurrentLine();
    if (NodeItem* item = scene_->nodeItem(drawnAs(current)))
        view_->showItem(item);
    if (!selectedNode().isEmpty())
        showInspector(selectedNode());
    updateStatus();
    emit runShown();
}

// The current line of the graph text, as a debugger highlights the line it stopped at (a closed
// scope's line while the current node is inside it).
void MainWindow::markCurrentLine() {
    const QString current = session_->current();
    graphText_->markCurrentLine(
        current.isEmpty() ? QString() : drawnAs(current),
        tint(scene_->theme().current, graphText_->palette().base().color(), 0.3));
}

// The model's own warnings.warn calls (hidden nodes, as torch.fx has none) reach the status bar
// once per run, as Python prints each on stderr; the node list never shows them.
void MainWindow::showModelWarnings(const RunSnapshot& snapshot) {
    if (snapshot.order.empty())
        warned_.clear();
    for (const auto& [name, record] : snapshot.records) {
        QString node = QString::fromStdString(name);
        if (record.warning.empty() || warned_.contains(node))
            continue;
        warned_.insert(node);
        statusBar()->showMessage(
            "The model warned (" + node + "): " + QString::fromStdString(record.warning), 10000);
    }
}

// A finished run whose output is not forward's is loud: red banner, the output node red. One that
// cannot be checked (a random op, forward failing) says so, calmly. Reset clears either.
void MainWindow::showOutputCheck(const OutputCheck& check) {
    bool differs = check.verdict == OutputCheck::Verdict::Differs;
    banner_->say(QString::fromStdString(check.message),
                 differs ? Banner::State::RunFailure : Banner::State::RunNote);
    if (!differs)
        return;
    for (const Node& n : session_->shownGraph().nodes)
        if (n.op == Op::Output)
            if (NodeItem* item = scene_->nodeItem(QString::fromStdString(n.name)))
                item->setRunState(NodeItem::State::Failed, "differs from forward");
    statusBar()->showMessage("This run's output differs from the model's own forward", 10000);
}

// Step Into shows the module's own graph in place of the model's, as a debugger shows the source
// of the function it stepped into; Step Out, or the module's end, brings the model's back.
void MainWindow::showModuleFrame() {
    if (!session_->followModuleFrame())
        return;
    if (const auto& inside = session_->run().inside) {
        showGraph(inside->graph, inside->layout, inside->graphText);
        banner_->say(QString("Inside %1 (%2), node by node: F10 steps, F11 steps further in, "
                             "Shift+F11 steps out")
                         .arg(session_->shownModule(), QString::fromStdString(inside->moduleType)),
                     Banner::State::ModuleFrame);
    } else {
        showModelGraph();
        banner_->end(Banner::State::ModuleFrame);
    }
}

void MainWindow::toggleBreakpoint(const QString& name) {
    QString node = name;
    const QSet<QString>& breakpoints = session_->breakpoints();
    // A box's breakpoint stops before its scope's first node; one on a box that shows some
    // inside it removes them all.
    if (const ScopeBox* box =
            scene_->scopeView() ? scene_->scopeView()->box(name.toStdString()) : nullptr) {
        QStringList inside;
        for (const QString& b : breakpoints)
            if (drawnBreakpoint(b) == name)
                inside << b;
        if (!inside.isEmpty()) {
            for (const QString& b : inside)
                session_->setBreakpoint(b, false);
            scene_->setBreakpoint(name, false);
            return;
        }
        node = QString::fromStdString(box->first);
    } else if (!breakpoints.contains(node)) {
        // The dot on a node may be a hidden guard's before it (a scope's breakpoint): it goes.
        for (const QString& b : breakpoints)
            if (drawnBreakpoint(b) == name) {
                node = b;
                break;
            }
    }
    const bool on = !breakpoints.contains(node);
    if (session_->setBreakpoint(node, on))
        scene_->setBreakpoint(drawnBreakpoint(node), on);
}

void MainWindow::addConditionalBreakpoint(const QString& node, BreakCondition condition) {
    if (session_->setBreakpoint(node, true, condition)) {
        scene_->setBreakpoint(drawnBreakpoint(node), true);
        statusBar()->showMessage(QString("A breakpoint stops after %1 when its output has %2")
                                     .arg(node, QString::fromStdString(conditionText(condition))),
                                 5000);
    }
}

} // namespace fxview
