#include "scene/GraphScene.h"

#include <QGraphicsSceneMouseEvent>
#include <QSet>

#include "scene/ClusterItem.h"
#include "scene/EdgeItem.h"
#include "scene/NodeItem.h"

namespace fxview {

QFont GraphScene::defaultFont() {
    QFont font("DejaVu Sans");
    font.setPointSizeF(9);
    return font;
}

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent), theme_(Theme::light()), style_(defaultFont()) {
    setBackgroundBrush(theme_.background);
    // Items never move: no index to keep up to date, which makes building thousands cheap.
    setItemIndexMethod(QGraphicsScene::NoIndex);
}

void GraphScene::setTheme(const Theme& theme) {
    theme_ = theme;
    setBackgroundBrush(theme_.background);
    update();
}

QString GraphScene::setGraph(const Graph& graph, const LayoutOptions& options) {
    return show(graph, layOut(graph, style_.font, options));
}

GraphLayout GraphScene::layOut(const Graph& graph, const QFont& font, const LayoutOptions& options,
                               LayoutCache* cache) {
    SceneStyle style(font); // its own: a style's width cache is not shared across threads
    return layoutGraph(
        graph,
        [&style](const Node& n) {
            QSizeF size = NodeItem::sizeFor(n, style);
            return PointF{size.width(), size.height()};
        },
        options, cache);
}

QString GraphScene::show(const Graph& graph, GraphLayout layout,
                         std::shared_ptr<const ScopeView> view) {
    view_ = std::move(view);
    clear();
    nodes_.clear();
    edges_.clear();
    clusters_.clear();
    graph_ = graph;
    layout_ = std::move(layout);
    if (!layout_.ok())
        return QString::fromStdString(layout_.error);

    QHash<QString, const Node*> byName;
    graph_.forEachNode(
        [&](const Node& n, int) { byName.insert(QString::fromStdString(n.name), &n); });
    for (const ClusterBox& c : layout_.clusters) {
        auto* item = new ClusterItem(c, &theme_, &style_, view_ != nullptr);
        addItem(item);
        clusters_.append(item);
    }
    for (const NodeBox& box : layout_.nodes) {
        QString name = QString::fromStdString(box.name);
        auto* item = new NodeItem(*byName.value(name),
                                  QRectF(box.box.x, box.box.y, box.box.width, box.box.height),
                                  &theme_, &style_);
        addItem(item);
        nodes_.insert(name, item);
    }
    for (const EdgePath& e : layout_.edges) {
        auto* item = new EdgeItem(e, &theme_, &style_);
        addItem(item);
        edges_.append(item);
    }
    const RectF& b = layout_.bounds;
    setSceneRect(QRectF(b.x, b.y, b.width, b.height).adjusted(-12, -12, 12, 12));
    return {};
}

QString GraphScene::drawnAs(const QString& node) const {
    const std::string name = node.toStdString();
    if (view_)
        return QString::fromStdString(view_->shownName(name));
    const Node* n = graph_.find(name);
    return n && n->drawnInside && !n->users.empty() ? QString::fromStdString(n->users.front())
                                                    : node;
}

ClusterItem* GraphScene::clusterItem(const QString& id) const {
    for (ClusterItem* c : clusters_)
        if (c->id() == id)
            return c;
    return nullptr;
}

namespace {

NodeItem::State boxState(ScopeRun::State state) {
    switch (state) {
    case ScopeRun::State::Running:
        return NodeItem::State::Current;
    case ScopeRun::State::Done:
        return NodeItem::State::Done;
    case ScopeRun::State::Failed:
        return NodeItem::State::Failed;
    case ScopeRun::State::NotRun:
        break;
    }
    return NodeItem::State::Idle;
}

} // namespace

void GraphScene::syncRun(const RecordLookup& recordOf, const QString& currentNode,
                         bool edgeShapes) {
    QHash<QString, QString> shapes;
    // A weight drawn inside its reader's box is current there (Node::drawnInside).
    const QString current = drawnAs(currentNode);
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
        if (const ScopeBox* box = view_ ? view_->box(it.key().toStdString()) : nullptr) {
            // A box is running while its current node is inside, done once that has left.
            ScopeRun run = scopeRun(*box, recordOf, current == it.key());
            it.value()->setRunState(boxState(run.state), QString::fromStdString(run.shapes));
            continue;
        }
        const NodeRecord* r = recordOf(it.key().toStdString());
        NodeItem::State state = NodeItem::State::Idle;
        QString shape;
        if (r) {
            switch (r->state) {
            case NodeState::Done:
                state = NodeItem::State::Done;
                break;
            case NodeState::Failed:
                state = NodeItem::State::Failed;
                break;
            case NodeState::NotExecuted:
                state = NodeItem::State::NotExecuted;
                break;
            case NodeState::Pending:
                break;
            }
            if (r->state == NodeState::Done) {
                shape = QString::fromStdString(shortDescription(r->value));
                if (!r->value.dtype.empty())
                    shape += " " + QString::fromStdString(r->value.dtype);
            } else if (r->state == NodeState::Failed) {
                shape = "failed";
            }
            // An if shows the branch it took, a loop its iterations (the one running, or all).
            if (std::string note = controlFlowNote(*r); !note.empty())
                shape += (shape.isEmpty() ? "" : " · ") + QString::fromStdString(note);
        }
        if (it.key() == current && state != NodeItem::State::Failed)
            state = NodeItem::State::Current;
        it.value()->setRunState(state, shape);
        if (r && r->state == NodeState::Done)
            shapes.insert(it.key(), QString::fromStdString(shortDescription(r->value)));
    }
    // A value used twice leaves its box on two edges: its shape is written once. An edge out of
    // or into a box carries the values it merges (the shapes of the real nodes behind it).
    QSet<QString> labelled;
    for (EdgeItem* e : edges_) {
        QString label;
        if (view_ && view_->collapsed() &&
            view_->edgeValues.count({e->from().toStdString(), e->to().toStdString()})) {
            QStringList parts;
            for (const std::string& value :
                 view_->valuesOf(e->from().toStdString(), e->to().toStdString()))
                if (const NodeRecord* r = recordOf(value); r && r->state == NodeState::Done)
                    parts << QString::fromStdString(shortDescription(r->value));
            parts.removeDuplicates();
            label = parts.join(", ");
        } else if (!labelled.contains(e->from())) {
            label = shapes.value(e->from());
        }
        labelled.insert(e->from());
        e->setLabel(edgeShapes ? label : QString());
    }
}

// Toggles are the model's scopes': only a scene showing them through a ScopeView has them. The
// scope is copied before the signal: its receiver rebuilds the scene, deleting the item.
void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() == Qt::LeftButton && view_) {
        for (QGraphicsItem* item : items(event->scenePos())) {
            if (auto* node = dynamic_cast<NodeItem*>(item)) {
                if (node->toggleRect().contains(node->mapFromScene(event->scenePos()))) {
                    const QString scope = node->scope();
                    emit scopeToggled(scope, true);
                    event->accept();
                    return;
                }
                break;
            }
            if (auto* cluster = dynamic_cast<ClusterItem*>(item))
                if (cluster->toggleRect().contains(event->scenePos())) {
                    const QString scope = cluster->id();
                    emit scopeToggled(scope, false);
                    event->accept();
                    return;
                }
        }
    }
    QGraphicsScene::mousePressEvent(event);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    // The topmost thing under the pointer: a box opens; a node does nothing; the innermost
    // scope frame around an empty spot closes.
    for (QGraphicsItem* item : view_ ? items(event->scenePos()) : QList<QGraphicsItem*>()) {
        if (auto* node = dynamic_cast<NodeItem*>(item)) {
            const QString scope = node->scope();
            if (!scope.isEmpty())
                emit scopeToggled(scope, true);
            event->accept();
            return;
        }
        if (auto* cluster = dynamic_cast<ClusterItem*>(item); cluster && !cluster->isBlock()) {
            const QString scope = cluster->id();
            emit scopeToggled(scope, false);
            event->accept();
            return;
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::clearRun() {
    for (NodeItem* n : nodes_)
        n->setRunState(NodeItem::State::Idle, {});
    for (EdgeItem* e : edges_)
        e->setLabel({});
}

void GraphScene::setNodeMarks(const QList<QPair<QString, QColor>>& marks,
                              const QHash<QString, QString>& notes) {
    QHash<QString, QColor> byItem;
    QHash<QString, QString> noteByItem;
    for (const auto& [node, colour] : marks) {
        const QString item = drawnAs(node);
        byItem.insert(item, colour);
        if (auto note = notes.find(node); note != notes.end())
            noteByItem.insert(item, *note);
    }
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it)
        it.value()->setMark(byItem.value(it.key()), noteByItem.value(it.key()));
}

void GraphScene::setBreakpoint(const QString& node, bool on) {
    if (NodeItem* item = nodes_.value(node))
        item->setBreakpoint(on);
}

} // namespace fxview
