// Finding, selecting and walking nodes (MainWindow's fourth part): Find and Find Next over the
// model's every node, the arrow keys along edges and graph order, the selection the scene holds.

#include <QKeyEvent>
#include <QStatusBar>
#include <algorithm>

#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

namespace fxview {

void MainWindow::selectNode(const QString& name) {
    // A node inside a closed scope: its scopes open first (Find, a link in the inspector).
    if (!scene_->nodeItem(name) && session_->modelShown())
        revealNode(name);
    NodeItem* item = scene_->nodeItem(name);
    if (!item)
        return;
    scene_->clearSelection();
    item->setSelected(true);
    view_->centerOn(item);
}

QString MainWindow::selectedNode() const {
    for (QGraphicsItem* item : scene_->selectedItems())
        if (auto* node = dynamic_cast<NodeItem*>(item))
            return node->name();
    return {};
}

bool MainWindow::findNode(const QString& text, bool backwards) {
    if (text.isEmpty())
        return false;
    const QStringList names = session_->nodesMatching(text);
    if (names.isEmpty()) {
        statusBar()->showMessage("No node matches '" + text + "'", 4000);
        return false;
    }
    // From the selection on, wrapping around, like a text editor's Find Next.
    const QString selected = selectedNode();
    int at = static_cast<int>(names.indexOf(selected));
    int count = static_cast<int>(names.size());
    int next = at < 0 ? (backwards ? count - 1 : 0) : (at + (backwards ? count - 1 : 1)) % count;
    selectNode(names[next]);
    statusBar()->showMessage(QString("Match %1 of %2").arg(next + 1).arg(count), 4000);
    return true;
}

void MainWindow::walk(int key) {
    const Graph& shown = session_->shownGraph();
    const Node* n = shown.find(selectedNode().toStdString());
    if (!n)
        return;
    std::vector<std::string> order;
    shown.forEachNode([&](const Node& node, int) {
        if (!node.hidden)
            order.push_back(node.name);
    });
    std::string target;
    if (key == Qt::Key_Up) {
        for (const Argument& a : n->args)
            a.forEachNodeRef([&](const std::string& ref) {
                if (target.empty() && scene_->nodeItem(QString::fromStdString(ref)))
                    target = ref;
            });
    } else if (key == Qt::Key_Down) {
        for (const std::string& u : n->users)
            if (target.empty() && scene_->nodeItem(QString::fromStdString(u)))
                target = u;
    } else {
        auto it = std::find(order.begin(), order.end(), n->name);
        if (key == Qt::Key_Left && it != order.begin())
            target = *(it - 1);
        if (key == Qt::Key_Right && it != order.end() && it + 1 != order.end())
            target = *(it + 1);
    }
    if (!target.empty())
        selectNode(QString::fromStdString(target));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_ && event->type() == QEvent::KeyPress) {
        int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_Up || key == Qt::Key_Down || key == Qt::Key_Left ||
             key == Qt::Key_Right) &&
            !selectedNode().isEmpty()) {
            walk(key);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

} // namespace fxview
