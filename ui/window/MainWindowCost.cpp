// The window's part in showing what each node costs (docs/cost.md): the Cost dock's table and
// the strip of the live set under the graph follow the run, the graph takes the dock's colours
// (Colour by), a row or a point of the strip selects its node, Export CSV writes the table, and
// Import Trace… lays a person's torch.profiler trace onto the nodes.

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QSaveFile>
#include <QStatusBar>
#include <fstream>

#include "ProfilerTrace.h"
#include "panels/Banner.h"
#include "panels/ComparisonPanel.h"
#include "panels/CostPanel.h"
#include "panels/MemoryStrip.h"
#include "scene/GraphScene.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"
#include "window/ProfileDialog.h"
#include "window/WindowIds.h"

namespace fxview {

namespace {

// A save dialog that offers MODEL`suffix` in the model's own folder; "" when cancelled.
QString askSaveBesideModel(QWidget* parent, const QString& source, const QString& title,
                           const QString& suffix, const QString& filter) {
    const QFileInfo model(source);
    return QFileDialog::getSaveFileName(
        parent, title,
        QFileInfo(model.absolutePath(), model.completeBaseName() + suffix).filePath(), filter);
}

} // namespace

void MainWindow::buildCostPanel() {
    cost_ = new CostPanel;
    strip_ = new MemoryStrip;
    strip_->hide(); // while the Cost dock is open
    auto choose = [this](const QString& node) {
        if (node != selectedNode())
            selectNode(node);
    };
    connect(cost_, &CostPanel::nodeChosen, this, choose);
    connect(strip_, &MemoryStrip::nodeChosen, this, choose);
    connect(cost_, &CostPanel::measureChanged, this, &MainWindow::showMarks);
    connect(cost_, &CostPanel::exportWanted, this, &MainWindow::chooseCostExport);
    connect(cost_, &CostPanel::profileWanted, this, &MainWindow::chooseProfile);
    connect(cost_, &CostPanel::traceExportWanted, this, &MainWindow::chooseTraceExport);
    connect(cost_, &CostPanel::traceImportWanted, this, &MainWindow::chooseTraceImport);
    connect(session_, &DebugSession::profiled, this, [this](const QString& error) {
        if (!error.isEmpty())
            banner_->say(error, Banner::State::Error);
        else if (QString note = session_->profileOperatorsNote(); !note.isEmpty())
            banner_->say(note, Banner::State::Note);
        else
            statusBar()->showMessage(QString("Profiled %1 runs: each node's time is its median")
                                         .arg(session_->profileRuns()),
                                     8000);
        // Times over runs are what a profile is for: the graph shows them unless told otherwise.
        if (cost_->measure() == CostMeasure::None && session_->profileRuns() > 0)
            cost_->setMeasure(CostMeasure::Time);
    });
}

void MainWindow::chooseProfile() {
    ProfileDialog dialog(profileRunsAsked_, profileOperatorsAsked_, this);
    if (dialog.exec() == QDialog::Accepted)
        profile(dialog.runs(), dialog.operators());
}

void MainWindow::profile(int runs, bool operators) {
    if (!session_->canRun()) {
        banner_->say("Profile needs a model open: open a .pt or .pt2 first.", Banner::State::Error);
        return;
    }
    profileRunsAsked_ = runs;
    profileOperatorsAsked_ = operators;
    if (auto* dock = findChild<QDockWidget*>(ids::kCostDock)) {
        dock->show();
        dock->raise();
    }
    statusBar()->showMessage(
        operators
            ? QString("Profiling: one run to warm up, one under torch.profiler, then %1…").arg(runs)
            : QString("Profiling: one run to warm up, then %1…").arg(runs));
    session_->profile(runs, operators);
}

// The dock and the strip follow the records shown, while someone can see them.
void MainWindow::showCost() {
    const bool shown = costShown_;
    if (strip_->isVisible() != shown) {
        strip_->setVisible(shown);
        if (cost_->measure() != CostMeasure::None)
            showMarks(); // its colours come and go with it
    }
    if (!shown)
        return;
    // The whole graph's nodes, whichever of its scopes are closed: a box sums its own.
    const Graph& graph = session_->modelShown() ? session_->model().graph : session_->shownGraph();
    cost_->showRun(
        graph, [this](const std::string& n) { return session_->recordOf(n); },
        session_->profileTimes(), session_->profileRuns());
    const OperatorsByNode& profiled = session_->profileOperators();
    cost_->showOperators(profiled.empty() ? importedOperators_ : profiled,
                         !session_->profileTrace().empty());
    cost_->showPeak(session_->run().peak, session_->modelShown());
    strip_->setTable(cost_->table());
    strip_->setSelected(selectedNode());
}

// The graph's colours: the Cost dock's measure when one is chosen and the dock is open, else a
// comparison's.
void MainWindow::showMarks() {
    if (cost_->measure() != CostMeasure::None && costShown_) {
        auto drawn = [this](const QString& node) { return scene_->drawnAs(node); };
        scene_->setNodeMarks(cost_->boxMarks(drawn), cost_->boxNotes(drawn));
        return;
    }
    showComparisonMarks();
}

void MainWindow::chooseCostExport() {
    if (cost_->table().rows.empty()) {
        banner_->say("Nothing to export yet: run the model first (F5), or Profile it.",
                     Banner::State::Error);
        return;
    }
    QString path = askSaveBesideModel(this, session_->source(), tr("Export the cost table"),
                                      "-cost.csv", tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (QString error = cost_->exportCsv(path); !error.isEmpty())
        banner_->say(error, Banner::State::Error);
    else
        statusBar()->showMessage("Wrote " + path, 6000);
}

QString MainWindow::exportTrace(const QString& path) {
    const std::string& trace = session_->profileTrace();
    if (trace.empty())
        return "No trace yet: Profile… with one run under torch.profiler, in the Python engine, "
               "makes one.";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(trace.data(), static_cast<qint64>(trace.size())) !=
            static_cast<qint64>(trace.size()) ||
        !file.commit())
        return QString("Cannot write %1: %2.").arg(path, file.errorString());
    return {};
}

void MainWindow::chooseTraceExport() {
    if (session_->profileTrace().empty())
        return banner_->say(exportTrace({}), Banner::State::Error);
    QString path =
        askSaveBesideModel(this, session_->source(), tr("Export the torch.profiler trace"),
                           "-trace.json", tr("Chrome trace (*.json)"));
    if (path.isEmpty())
        return;
    if (QString error = exportTrace(path); !error.isEmpty())
        return banner_->say(error, Banner::State::Error);
    statusBar()->showMessage("Wrote " + path + " (open it in Perfetto or chrome://tracing)", 8000);
}

QString MainWindow::importTrace(const QString& path, bool* laid) {
    if (laid)
        *laid = false;
    if (!session_->canRun())
        return "Import Trace lays a trace onto a model's nodes: open the model first.";
    std::ifstream in(QFile::encodeName(path).toStdString(), std::ios::binary);
    if (!in)
        return QString("Cannot read %1: no such file, or not readable.").arg(path);
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const LaidTrace trace = layProfilerTrace(session_->model().graph, in);
    QApplication::restoreOverrideCursor();
    const QString said =
        QString::fromStdString(trace.summary(QFileInfo(path).fileName().toStdString()));
    if (!trace.error.empty())
        return said;
    importedOperators_ = trace.operators;
    if (laid)
        *laid = true;
    if (auto* dock = findChild<QDockWidget*>(ids::kCostDock)) {
        dock->show();
        dock->raise();
    }
    showCost();
    if (cost_->measure() == CostMeasure::None)
        cost_->setMeasure(CostMeasure::Operators); // the graph takes its colours
    else
        showMarks();
    return said;
}

void MainWindow::chooseTraceImport() {
    QString path = QFileDialog::getOpenFileName(
        this, tr("Import a torch.profiler trace of this model's run"),
        QFileInfo(session_->source()).absolutePath(), tr("Chrome trace (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    bool laid = false;
    const QString said = importTrace(path, &laid);
    if (!laid)
        banner_->say(said, Banner::State::Error);
    else if (said.contains("; the first without"))
        banner_->say(said, Banner::State::Note); // some nodes' operators are not in it
    else
        statusBar()->showMessage(said, 8000);
}

} // namespace fxview
