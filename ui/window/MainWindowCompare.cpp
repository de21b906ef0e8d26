// The window's part in comparing two runs: Run ▸ Compare Runs… asks what run B is
// (CompareDialog), ComparisonRun runs fxtrace compare, the Comparison dock shows the table and
// the graph takes its colours; picking a row selects that node.

#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>

#include "engineclient/EngineClient.h"
#include "panels/Banner.h"
#include "panels/ComparisonPanel.h"
#include "panels/InputBar.h"
#include "scene/GraphScene.h"
#include "session/ComparisonRun.h"
#include "session/DebugSession.h"
#include "window/CompareDialog.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

namespace fxview {

void MainWindow::buildComparison() {
    comparison_ = new ComparisonPanel;
    comparisonRun_ = new ComparisonRun(this);
    connect(comparison_, &ComparisonPanel::nodeChosen, this, [this](const QString& node) {
        if (node != selectedNode())
            selectNode(node);
    });
    connect(comparison_, &ComparisonPanel::marksChanged, this, &MainWindow::showComparisonMarks);
    connect(comparison_, &ComparisonPanel::cleared, this, [this] { scene_->clearNodeMarks(); });
    connect(comparisonRun_, &ComparisonRun::finished, this, [this] {
        const ComparisonReport& report = comparisonRun_->report();
        comparison_->setReport(report, comparisonRun_->metric(), comparisonRun_->threshold());
        showComparisonMarks();
        if (auto* dock = findChild<QDockWidget*>(ids::kComparisonDock)) {
            dock->show();
            dock->raise();
        }
        statusBar()->showMessage(comparison_->statusText().section('\n', 0, 0), 10000);
        if (!report.failure.empty())
            banner_->say(QString::fromStdString(report.failure), Banner::State::Error);
    });
    connect(comparisonRun_, &ComparisonRun::failed, this, [this](const QString& sentence) {
        statusBar()->clearMessage();
        banner_->say(sentence, Banner::State::Error);
    });
    // Another model's graph has other nodes: its colours and table go with it.
    connect(session_, &DebugSession::modelLoaded, this, [this] {
        if (comparison_->hasReport() &&
            QString::fromStdString(comparison_->report().modelA) != session_->source()) {
            comparison_->clear();
            scene_->clearNodeMarks();
        }
    });
}

void MainWindow::compareRuns() {
    if (session_->source().isEmpty() || engine_->live()) {
        banner_->say("Compare Runs needs a model file: open a .pt or .pt2 first (a live Python "
                     "model compares in Python with fxview.compare).",
                     Banner::State::Error);
        return;
    }
    ComparisonRequest a;
    a.modelA = session_->source();
    a.inputs = inputBar_->specs();
    a.seed = inputBar_->seed();
    CompareDialog dialog(a, this);
    if (dialog.exec() == QDialog::Accepted)
        startComparison(dialog.request());
}

void MainWindow::startComparison(const ComparisonRequest& request) {
    statusBar()->showMessage(QString("Comparing %1 with %2…")
                                 .arg(QFileInfo(request.modelA).fileName(),
                                      !request.modelB.isEmpty()
                                          ? QFileInfo(request.modelB).fileName()
                                      : !request.dtype.isEmpty() ? request.dtype
                                                                 : QString("another input")));
    comparisonRun_->start(request);
}

void MainWindow::showComparisonMarks() {
    if (comparison_->hasReport() && session_->modelShown())
        scene_->setNodeMarks(comparison_->nodeMarks());
    else
        scene_->clearNodeMarks();
}

} // namespace fxview
