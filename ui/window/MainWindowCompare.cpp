// The window's part in comparing two runs: Run ▸ Compare Runs… asks what run B is
// (CompareDialog), the session's engine runs both, the Comparison dock shows the table and the
// graph takes its colours; picking a row selects that node.

#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>

#include "engineclient/EngineClient.h"
#include "panels/Banner.h"
#include "panels/ComparisonPanel.h"
#include "panels/CompilePanel.h"
#include "panels/InputBar.h"
#include "scene/GraphScene.h"
#include "session/DebugSession.h"
#include "window/CompareDialog.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

namespace fxview {

void MainWindow::buildComparison() {
    comparison_ = new ComparisonPanel;
    connect(comparison_, &ComparisonPanel::nodeChosen, this, [this](const QString& node) {
        if (node != selectedNode())
            selectNode(node);
    });
    connect(comparison_, &ComparisonPanel::marksChanged, this, [this] {
        passMarksKept_ = false;
        showComparisonMarks();
    });
    connect(comparison_, &ComparisonPanel::cleared, this, [this] { scene_->clearNodeMarks(); });
    connect(
        session_, &DebugSession::comparisonReady, this,
        [this](std::shared_ptr<const ComparisonReport> report, Metric metric, double threshold) {
            comparison_->setReport(*report, metric, threshold);
            showComparisonMarks();
            if (auto* dock = findChild<QDockWidget*>(ids::kComparisonDock)) {
                dock->show();
                dock->raise();
            }
            statusBar()->showMessage(comparison_->statusText().section('\n', 0, 0), 10000);
            if (!report->failure.empty())
                banner_->say(QString::fromStdString(report->failure), Banner::State::Error);
            emit comparisonShown();
        });
    connect(session_, &DebugSession::comparisonFailed, this, [this](const QString& sentence) {
        statusBar()->clearMessage();
        banner_->say(sentence, Banner::State::Error);
        emit comparisonShown();
    });
    // Another model's graph has other nodes: its colours and table go with it.
    connect(session_, &DebugSession::modelLoaded, this, [this] {
        passMarksKept_ = false;
        if (comparison_->hasReport() &&
            QString::fromStdString(comparison_->report().modelA) != session_->source()) {
            comparison_->clear();
            scene_->clearNodeMarks();
        }
    });
}

void MainWindow::compareRuns() {
    if (!session_->canRun()) {
        banner_->say("Compare Runs needs a model open: open a .pt or .pt2 first.",
                     Banner::State::Error);
        return;
    }
    QStringList specs = inputBar_->specs();
    QString runA = QString("%1 on %2 (seed %3)")
                       .arg(QFileInfo(session_->source()).fileName(),
                            specs.isEmpty() ? QString("its guessed input") : specs.join(" "))
                       .arg(inputBar_->seed());
    CompareDialog dialog(runA, inputBar_->seed(), engine_->live(), this);
    dialog.setStartFolder(QFileInfo(session_->source()).absolutePath());
    if (dialog.exec() == QDialog::Accepted)
        startComparison(dialog.request());
}

void MainWindow::startComparison(const CompareRequest& request) {
    QString b = !request.modelB.empty()
                    ? QFileInfo(QString::fromStdString(request.modelB)).fileName()
                : !request.dtype.empty()  ? QString::fromStdString(request.dtype)
                : !request.device.empty() ? QString::fromStdString(request.device)
                                          : QString("another input");
    statusBar()->showMessage(
        QString("Comparing %1 with %2…").arg(QFileInfo(session_->source()).fileName(), b));
    session_->compare(request);
}

void MainWindow::showComparisonMarks() {
    if (passMarksKept_)
        scene_->setNodeMarks(compile_->openMarks());
    else if (comparison_->hasReport() && session_->modelShown())
        scene_->setNodeMarks(comparison_->nodeMarks());
    else
        scene_->clearNodeMarks();
}

} // namespace fxview
