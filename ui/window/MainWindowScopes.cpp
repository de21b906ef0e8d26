// The window's side of the module hierarchy (MainWindow's third part): scopes opened and closed
// from the graph, the View menu and the node list's tree; the picture laid out again with only
// what changed and kept where the person was looking; the state remembered per model file;
// finding, selecting and stepping into what a closed scope holds.

#include <QAction>
#include <QHeaderView>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStatusBar>
#include <functional>

#include "FxText.h"
#include "panels/GraphTextPanel.h"
#include "panels/LoadProgress.h"
#include "panels/NodeListPanel.h"
#include "scene/ClusterItem.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "scene/OverviewView.h"
#include "session/DebugSession.h"
#include "session/SessionSettings.h"
#include "window/BackgroundLayout.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

namespace fxview {

namespace {

QStringList toList(const std::set<std::string>& scopes) {
    QStringList list;
    for (const std::string& s : scopes)
        list << QString::fromStdString(s);
    return list;
}

} // namespace

QStringList MainWindow::openScopes() const {
    return toList(session_->model().openScopes);
}

QString MainWindow::drawnAs(const QString& node) const {
    return scene_->drawnAs(node);
}

// The model's graph as its scopes say: closed ones as boxes, the text printed from that view.
void MainWindow::showModelGraph() {
    const LoadedModel& model = session_->model();
    if (!model.view) {
        showGraph(model.graph, model.layout, model.graphText);
        return;
    }
    showGraph(model.view->graph, model.layout,
              model.view->collapsed() ? formatGraph(model.view->graph) : model.graphText,
              model.view);
}

void MainWindow::setScopeOpen(const QString& scope, bool open) {
    const LoadedModel& model = session_->model();
    if (!model.scopes.find(scope.toStdString()))
        return;
    std::set<std::string> next = model.openScopes;
    if (open)
        for (const std::string& path : ScopeTree::chain(scope.toStdString()))
            next.insert(path);
    else
        next.erase(scope.toStdString());
    if (next != model.openScopes)
        showScopes(next, scope, open);
}

void MainWindow::setWeightsAsNodes(bool on) {
    settings::setWeightsAsNodes(on);
    engine_->setWeightsAsNodes(on);
    weightsAsNodes_ = on;
    showScopes(session_->model().openScopes, {}, false);
    if (session_->executedShown())
        engine_->requestExecutedPath(); // drawn again on arrival
}

void MainWindow::collapseToDepth(int depth) {
    showScopes(session_->model().scopes.openToDepth(depth), {}, false);
}

void MainWindow::expandAll() {
    showScopes(session_->model().scopes.allOpen(), {}, true);
}

// Draws the model with `open` open: laid out here, or past kBackgroundLayoutNodes drawn nodes on
// a thread of its own with the status bar's progress and Cancel (the picture stays as it is
// until it is done, and a later change replaces it).
void MainWindow::showScopes(const std::set<std::string>& open, QString anchor, bool opening) {
    const LoadedModel& model = session_->model();
    if (!model.view)
        return;
    if (layout_->cancel())
        progress_->finish();
    auto view = std::make_shared<const ScopeView>(
        collapseScopes(model.graph, model.scopes, open, weightsAsNodes_));
    if (view->graph.nodeCount() <= kBackgroundLayoutNodes) {
        applyScopes(open, view,
                    GraphScene::layOut(view->graph, scene_->font(), {}, model.layoutCache.get()),
                    anchor, opening);
        return;
    }
    progress_->startWork(QString("Laying out %1 nodes").arg(view->graph.nodeCount()));
    layout_->start(
        [view, cache = model.layoutCache, font = scene_->font()](const LayoutOptions& options) {
            return GraphScene::layOut(view->graph, font, options, cache.get());
        },
        [this, open, view, anchor, opening](GraphLayout layout) {
            progress_->finish();
            applyScopes(open, view, std::move(layout), anchor, opening);
        });
}

bool MainWindow::layingOut() const {
    return layout_->running();
}

bool MainWindow::cancelLayout() {
    if (!layout_->cancel())
        return false;
    progress_->finish();
    nodeList_->syncScopes(session_->model().openScopes); // its tree may have said otherwise
    statusBar()->showMessage("Laying out stopped; the picture stays as it was", 6000);
    return true;
}

// `anchor` is the scope that opened or closed: its box (or frame) before and its frame (or box)
// after sit at the same place on screen, and the pieces of the layout it did not touch came
// from the cache, unchanged. Without one the graph is fit.
void MainWindow::applyScopes(const std::set<std::string>& open,
                             std::shared_ptr<const ScopeView> view, GraphLayout layout,
                             QString anchor, bool opening) {
    // `anchor` is a copy: the item whose scope it came from is deleted on the way.
    const LoadedModel& model = session_->model();
    auto placeOf = [this, &model](const QString& scope, bool asBox) -> QRectF {
        if (asBox) {
            QString box = QString::fromStdString(model.view->boxFor(scope.toStdString()));
            NodeItem* item = scene_->nodeItem(box);
            return item ? item->sceneBoundingRect() : QRectF();
        }
        ClusterItem* cluster = scene_->clusterItem(scope);
        return cluster ? cluster->sceneBoundingRect() : QRectF();
    };
    const bool modelShown = session_->modelShown();
    QRectF before = modelShown && !anchor.isEmpty() ? placeOf(anchor, opening) : QRectF();
    QPointF onScreen = before.isNull() ? QPointF() : QPointF(view_->mapFromScene(before.topLeft()));

    session_->setScopes(open, view, std::move(layout));
    nodeList_->syncScopes(open);
    if (!modelShown)
        return; // drawn when the model's graph comes back
    const QString selected = selectedNode();
    scene_->show(view->graph, model.layout, view);
    showBreakpoints();
    graphText_->setGraphText(view->collapsed() ? formatGraph(view->graph) : model.graphText);
    showRecords(session_->run().finished ? QString() : session_->current());
    markCurrentLine();
    if (!selected.isEmpty())
        if (NodeItem* item = scene_->nodeItem(drawnAs(selected)))
            item->setSelected(true);
    QRectF after = before.isNull() ? QRectF() : placeOf(anchor, !opening);
    if (after.isNull()) {
        view_->fitGraph(scene_->sceneRect().topLeft());
    } else {
        // Scroll so that the scene point now at the anchor shows where the old one was.
        QPointF shift = QPointF(view_->mapFromScene(after.topLeft())) - onScreen;
        view_->horizontalScrollBar()->setValue(view_->horizontalScrollBar()->value() +
                                               qRound(shift.x()));
        view_->verticalScrollBar()->setValue(view_->verticalScrollBar()->value() +
                                             qRound(shift.y()));
    }
    overview_->refit();
    updateStatus();
    emit scopesShown();
}

// Opens the scopes around `node` so that it is drawn; false when it already was.
bool MainWindow::revealNode(const QString& node) {
    const LoadedModel& model = session_->model();
    if (!model.view || !model.view->boxOf.count(node.toStdString()))
        return false;
    const ScopeBox* box = model.view->box(model.view->shownName(node.toStdString()));
    const Node* n = model.graph.find(node.toStdString());
    std::set<std::string> next = model.openScopes;
    for (const std::string& path : ScopeTree::chain(n ? n->scope : box->scope))
        next.insert(path);
    for (const std::string& path : ScopeTree::chain(box->scope))
        next.insert(path);
    showScopes(next, QString::fromStdString(box->scope), true);
    return true;
}

QString MainWindow::drawnBreakpoint(const QString& node) const {
    QString drawn = drawnAs(node);
    if (!scene_->nodeItem(drawn))
        if (const Node* n = session_->model().graph.find(node.toStdString()); n && n->hidden)
            drawn = drawnAs(DebugSession::guardedNode(session_->model().graph, n->name));
    return drawn;
}

// A breakpoint inside a closed scope shows on its box.
void MainWindow::showBreakpoints() {
    for (const QString& node : session_->breakpoints())
        scene_->setBreakpoint(drawnBreakpoint(node), true);
}

void MainWindow::buildScopeActions(QMenu* view) {
    QMenu* depth = view->addMenu("Collapse to &Depth");
    connect(depth, &QMenu::aboutToShow, this, [this, depth] {
        depth->clear();
        const ScopeTree& scopes = session_->model().scopes;
        for (int d = 0; d < scopes.maxDepth(); ++d) {
            int drawn = scopes.drawnCount(scopes.openToDepth(d));
            depth->addAction(QString("%1%2 (%3 boxes and nodes)")
                                 .arg(d)
                                 .arg(d == 0 ? " — top level" : "")
                                 .arg(drawn),
                             this, [this, d] { collapseToDepth(d); });
        }
        depth->setEnabled(!depth->isEmpty());
    });
    view->addAction("E&xpand All", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Plus), this,
                    [this] { expandAll(); })
        ->setObjectName(ids::kExpandAll);
    QAction* weights =
        view->addAction("&Weights as Nodes", this, [this](bool on) { setWeightsAsNodes(on); });
    weights->setCheckable(true);
    weights->setObjectName(ids::kWeightsAsNodes);
    weights->setChecked(settings::weightsAsNodes());
    weights->setStatusTip("Draw each parameter, buffer and constant as a box of its own, not as a "
                          "line in the box of the node that reads it");
    weightsAsNodes_ = weights->isChecked();
    engine_->setWeightsAsNodes(weightsAsNodes_);
    connect(scene_, &GraphScene::scopeToggled, this,
            [this](const QString& scope, bool open) { setScopeOpen(scope, open); });
}

} // namespace fxview
