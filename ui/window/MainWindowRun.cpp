// The window's side of a run (MainWindow's other half, apart for size): the engine's snapshots
// shown on the graph, the list and the text; Step Into's module graph; the executed path; Play;
// breakpoints and Run to Cursor; inputs applied and remembered.

#include <QAction>
#include <QIcon>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextBlock>
#include <QTimer>
#include <QTreeWidget>
#include <functional>

#include "FxText.h"
#include "panels/Banner.h"
#include "panels/GraphTextPanel.h"
#include "panels/InputBar.h"
#include "panels/NodeListPanel.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "window/MainWindow.h"

namespace fxview {

namespace {

// Inside a stepped-into module the engine names nodes "fc1.linear"; the model's graph shows fc1.
QString topLevelName(const std::string& name) {
    return QString::fromStdString(name.substr(0, name.find('.')));
}

} // namespace

// The visible node a hidden one stands guard for: the first visible top-level node from the one
// that holds `name` (an inlined dim check's raise_exception sits in a hidden if before `fc`).
QString MainWindow::guardedNode(const Graph& graph, const std::string& name) {
    std::function<bool(const Node&)> holds = [&](const Node& n) {
        if (n.name == name)
            return true;
        for (const Block& b : n.blocks)
            for (const Node& inner : b.nodes)
                if (holds(inner))
                    return true;
        return false;
    };
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        if (holds(graph.nodes[i]))
            for (std::size_t j = i; j < graph.nodes.size(); ++j)
                if (!graph.nodes[j].hidden)
                    return QString::fromStdString(graph.nodes[j].name);
    return {};
}

QString MainWindow::applyInputs(const QStringList& texts, quint64 seed) {
    std::vector<InputSpec> specs;
    for (const QString& text : texts) {
        InputSpec spec;
        std::string error;
        if (!parseInputSpec(text.trimmed().toStdString(), spec, error)) {
            banner_->say(QString::fromStdString(error), Banner::State::Error);
            return QString::fromStdString(error);
        }
        specs.push_back(spec);
    }
    // Remembered for this model only once the engine has made them (inputsApplied): a spec it
    // refuses must not come back at the next start.
    engine_->setInputs(specs, seed);
    return {};
}

void MainWindow::inputsApplied(const std::vector<InputSpec>& specs, quint64 seed) {
    QStringList texts;
    for (const InputSpec& spec : specs)
        texts << QString::fromStdString(spec.text());
    // A file's inputs are its next opening's; a live model opens with the arguments passed.
    if (!model_.live) {
        QSettings settings;
        settings.setValue("inputs/" + source_, texts);
        settings.setValue("seeds/" + source_, seed);
    }
    QString note = "input " + texts.join(", ") + QString(", seed %1, applied").arg(seed);
    inputBar_->setNote(note);
    banner_->say("Input " + texts.join(", ") + QString(", seed %1; the run starts again").arg(seed),
                 Banner::State::Note);
}

void MainWindow::setPlaying(bool on) {
    if (on && (run_.finished || run_.failed)) // Play on an ended run plays it again from the start
        engine_->command(RunCommand::Reset);
    // Pause while a node is still running: it stops there, or its engine is ended and restarted.
    if (!on && playing() && engine_->busy())
        engine_->interrupt();
    // Play leaving a breakpoint's node steps over it; the next breakpoint stops it.
    playFrom_ =
        on ? topLevelName(run_.finished || run_.failed ? std::string() : run_.next) : QString();
    play_->setChecked(on);
    play_->setText(on ? "&Pause" : "&Play");
    play_->setIcon(QIcon(on ? ":/fxview/icons/pause.svg" : ":/fxview/icons/play.svg"));
    if (on)
        playTimer_->start();
    else
        playTimer_->stop();
}

bool MainWindow::playing() const {
    return playTimer_->isActive();
}

void MainWindow::setPlayInterval(int milliseconds) {
    playInterval_->setValue(milliseconds);
}

void MainWindow::playTick() {
    if (engine_->busy())
        return; // the node still computes: the window waits, it does not queue steps
    if (run_.finished || run_.failed || source_.isEmpty()) {
        setPlaying(false);
        return;
    }
    // A breakpoint stops Play as it stops Continue: before its node runs.
    const QString next = topLevelName(run_.next);
    if (next != playFrom_)
        playFrom_.clear();
    if (breakpoints_.contains(next) && next != playFrom_) {
        setPlaying(false);
        statusBar()->showMessage("Play stopped at the breakpoint before " + next, 5000);
        return;
    }
    engine_->command(RunCommand::Step);
}

// The shown graph's boxes, edges and node list take the records' states and shapes.
void MainWindow::showRecords(const QString& current) {
    auto records = [this](const std::string& n) { return recordOf(n); };
    scene_->syncRun(records, current);
    nodeList_->showRecords(records, current);
}

// What the scene shows: the executed path, a stepped-into module, or the model drawn with its
// closed scopes as boxes.
const Graph& MainWindow::shownGraph() const {
    return executedMode_             ? executed_.graph
           : !shownModule_.isEmpty() ? run_.inside->graph
           : model_.view             ? model_.view->graph
                                     : model_.graph;
}

const NodeRecord* MainWindow::recordOf(const std::string& node) const {
    const auto& records = executedMode_             ? executed_.records
                          : !shownModule_.isEmpty() ? run_.inside->records
                                                    : run_.records;
    auto it = records.find(node);
    return it == records.end() ? nullptr : &it->second;
}

void MainWindow::setExecutedPathShown(bool on) {
    if (on && executed_.graph.nodes.empty())
        on = false; // nothing has run yet
    executedPath_->setChecked(on);
    if (on == executedMode_)
        return;
    executedMode_ = on;
    shownModule_.clear(); // the executed path takes the scene; off, the run's own view returns
    if (on) {
        showGraph(executed_.graph, executed_.layout, formatGraph(executed_.graph));
    } else {
        showModelGraph();
        showModuleFrame();
    }
    showRecords(on || run_.finished ? QString() : current_);
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
    executed_ = ExecutedView();
    run_ = snapshot;
    executedPath_->setEnabled(!run_.order.empty());
    showModuleFrame();
    current_ =
        run_.inside ? QString::fromStdString(run_.inside->last) : topLevelName(snapshot.last);
    showRecords(snapshot.finished ? QString() : current_);
    // A run's failure is cleared by the next snapshot that has none (after Reset); other errors
    // (an input refused, a load that fell back to the guess) stay until something replaces them.
    if (snapshot.failed) {
        banner_->say(QString::fromStdString(snapshot.failure), Banner::State::RunFailure);
        const Graph& graph = shownModule_.isEmpty() && !executedMode_ ? model_.graph : shownGraph();
        if (graph.find(current_.toStdString()) && !graph.find(current_.toStdString())->hidden) {
            selectNode(current_); // its scopes open; its inspector shows the message in full
        } else if (NodeItem* guarded =
                       scene_->nodeItem(drawnAs(guardedNode(graph, current_.toStdString())))) {
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
    if (NodeItem* item = scene_->nodeItem(drawnAs(current_)))
        view_->showItem(item);
    if (!selectedNode().isEmpty())
        showInspector(selectedNode());
    updateStatus();
    emit runShown();
}

// The current line of the graph text, as a debugger highlights the line it stopped at (a closed
// scope's line while the current node is inside it).
void MainWindow::markCurrentLine() {
    graphText_->markCurrentLine(
        current_.isEmpty() ? QString() : drawnAs(current_),
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
    for (const Node& n : shownGraph().nodes)
        if (n.op == Op::Output)
            if (NodeItem* item = scene_->nodeItem(QString::fromStdString(n.name)))
                item->setRunState(NodeItem::State::Failed, "differs from forward");
    statusBar()->showMessage("This run's output differs from the model's own forward", 10000);
}

// Step Into shows the module's own graph in place of the model's, as a debugger shows the source
// of the function it stepped into; Step Out, or the module's end, brings the model's back.
void MainWindow::showModuleFrame() {
    const QString inside = run_.inside ? QString::fromStdString(run_.inside->node) : QString();
    if (inside == shownModule_)
        return;
    shownModule_ = inside;
    if (run_.inside) {
        showGraph(run_.inside->graph, run_.inside->layout, run_.inside->graphText);
        banner_->say(QString("Inside %1 (%2), node by node: F10 steps, F11 steps further in, "
                             "Shift+F11 steps out")
                         .arg(inside, QString::fromStdString(run_.inside->moduleType)),
                     Banner::State::ModuleFrame);
    } else {
        showModelGraph();
        banner_->end(Banner::State::ModuleFrame);
    }
}

// The box the next node to run is inside, when the model's graph is shown and it is closed: a
// member, not a weight folded into the box (a .pt2 reads its weights first of all).
const ScopeBox* MainWindow::boxOfNext() const {
    if (!model_.view || executedMode_ || !shownModule_.isEmpty() || run_.finished || run_.failed)
        return nullptr;
    return model_.view->boxRunning(topLevelName(run_.next).toStdString());
}

void MainWindow::runCommand(RunCommand command) {
    if (source_.isEmpty())
        return;
    if (run_.failed && command != RunCommand::Reset) {
        statusBar()->showMessage(
            "The run failed at " + current_ + "; Reset (Ctrl+Shift+F5) to run again", 6000);
        return;
    }
    // A closed scope is stepped as a call_module is: Step runs it whole, Step Into opens it and
    // runs its first node.
    if (const ScopeBox* box = boxOfNext()) {
        const QString scope = QString::fromStdString(box->scope);
        if (command == RunCommand::Step) {
            statusBar()->showMessage("Stepping over " + scope, 3000);
            engine_->command(RunCommand::RunTo, QString::fromStdString(box->last));
            return;
        }
        // Step Into: its first node drawn, then stepped into as it would be (`box` goes with
        // the view revealNode replaces).
        if (command == RunCommand::StepInto)
            revealNode(topLevelName(run_.next));
    }
    engine_->command(command);
}

// Run to Cursor: until the selected node has run. One that already ran in this run cannot be
// reached again without Reset, and the person is told so instead of the run going to its end.
void MainWindow::runToSelected() {
    QString node = selectedNode();
    if (node.isEmpty() || source_.isEmpty())
        return;
    // A box: until its scope has run whole.
    if (const ScopeBox* box =
            scene_->scopeView() ? scene_->scopeView()->box(node.toStdString()) : nullptr)
        node = QString::fromStdString(box->last);
    if (const NodeRecord* r = recordOf(node.toStdString()); r && r->state == NodeState::Done) {
        statusBar()->showMessage(node + " has already run; Reset (Ctrl+Shift+F5) to run to it "
                                        "again",
                                 6000);
        return;
    }
    // Inside a stepped-into module its nodes are named from the model's top: "fc1.linear".
    engine_->command(RunCommand::RunTo, shownModule_.isEmpty() ? node : shownModule_ + "." + node);
}

void MainWindow::toggleBreakpoint(const QString& name) {
    QString node = name;
    // A box's breakpoint stops before its scope's first node; one on a box that shows some
    // inside it removes them all.
    if (const ScopeBox* box =
            scene_->scopeView() ? scene_->scopeView()->box(name.toStdString()) : nullptr) {
        QStringList inside;
        for (const QString& b : std::as_const(breakpoints_))
            if (drawnBreakpoint(b) == name)
                inside << b;
        if (!inside.isEmpty()) {
            for (const QString& b : inside) {
                breakpoints_.remove(b);
                engine_->setBreakpoint(b, false);
            }
            scene_->setBreakpoint(name, false);
            return;
        }
        node = QString::fromStdString(box->first);
    } else if (!breakpoints_.contains(node)) {
        // The dot on a node may be a hidden guard's before it (a scope's breakpoint): it goes.
        for (const QString& b : std::as_const(breakpoints_))
            if (drawnBreakpoint(b) == name) {
                node = b;
                break;
            }
    }
    // Only nodes of the model's own graph can stop a run (not an executed path's copies).
    if (node.isEmpty() || !model_.graph.find(node.toStdString()))
        return;
    bool on = !breakpoints_.contains(node);
    if (on)
        breakpoints_.insert(node);
    else
        breakpoints_.remove(node);
    scene_->setBreakpoint(drawnBreakpoint(node), on);
    engine_->setBreakpoint(node, on);
}

} // namespace fxview
