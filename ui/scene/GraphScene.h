#pragma once
// The graph picture: one NodeItem per shown node, one EdgeItem per use, one ClusterItem per
// module scope and control-flow block, placed where Graphviz's dot put them. The scene owns the
// items; the data stays in core (Graph, GraphLayout, the run's records). Shown through a
// ScopeView, closed scopes are boxes: double-click or + opens one, double-click on an open
// scope's frame or its − closes it (scopeToggled; the window decides).

#include <QFont>
#include <QGraphicsScene>
#include <QHash>
#include <functional>
#include <memory>

#include "Graph.h"
#include "GraphLayout.h"
#include "RunRecord.h"
#include "ScopeView.h"
#include "scene/SceneStyle.h"
#include "scene/Theme.h"

namespace fxview {

class NodeItem;
class EdgeItem;
class ClusterItem;

class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);

    void setTheme(const Theme& theme);
    const Theme& theme() const { return theme_; }
    const QFont& font() const { return style_.font; }

    // Measures every box with the scene's font, lays the graph out and builds the items.
    // Returns "" or why the layout failed.
    QString setGraph(const Graph& graph, const LayoutOptions& options = {});

    // The two halves of setGraph, so that the slow one can run off the GUI thread:
    // layOut measures every box with `font` and runs Graphviz (any thread; it touches no
    // scene), show builds the items where `layout` put them (the scene's thread).
    static GraphLayout layOut(const Graph& graph, const QFont& font,
                              const LayoutOptions& options = {}, LayoutCache* cache = nullptr);
    // `view`: the scopes collapsed in `graph` (its graph), whose boxes take their members' runs.
    QString show(const Graph& graph, GraphLayout layout,
                 std::shared_ptr<const ScopeView> view = nullptr);
    const ScopeView* scopeView() const { return view_.get(); }
    const Graph& graph() const { return graph_; } // the graph drawn
    // The item `node` is drawn as: itself, the box of the closed scope it is in, or the box of
    // the node reading it when it is a weight drawn inside (ScopeView::shownName).
    QString drawnAs(const QString& node) const;
    static QFont defaultFont();

    // Shows a run: each node's state and output shape, the current node highlighted, and the
    // shape each edge carries at its tail when `edgeShapes` is on.
    using RecordLookup = std::function<const NodeRecord*(const std::string&)>;
    void syncRun(const RecordLookup& recordOf, const QString& currentNode, bool edgeShapes = true);
    void clearRun();
    void setBreakpoint(const QString& node, bool on);
    // Colours nodes by a comparison (ComparisonPanel::nodeMarks): each on the box it is drawn as,
    // later entries winning where nodes share one (a closed scope); every other box plain.
    // `notes`: by the same names, what a box's colour stands for (NodeItem::setMark).
    void setNodeMarks(const QList<QPair<QString, QColor>>& marks,
                      const QHash<QString, QString>& notes = {});
    void clearNodeMarks() { setNodeMarks({}); }

    NodeItem* nodeItem(const QString& name) const { return nodes_.value(name); }
    ClusterItem* clusterItem(const QString& id) const;
    const QList<EdgeItem*>& edgeItems() const { return edges_; }
    const QList<ClusterItem*>& clusterItems() const { return clusters_; }
    const GraphLayout& layout() const { return layout_; }
    int nodeCount() const { return static_cast<int>(nodes_.size()); }

signals:
    // A click in the gutter left of a node's box, where its breakpoint dot is drawn.
    void gutterClicked(const QString& node);
    // A box asked to open (`open`) or an open scope to close: by double-click or its +/−.
    void scopeToggled(const QString& scope, bool open);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    Theme theme_;
    SceneStyle style_;
    Graph graph_;
    GraphLayout layout_;
    std::shared_ptr<const ScopeView> view_;
    QHash<QString, NodeItem*> nodes_;
    QList<EdgeItem*> edges_;
    QList<ClusterItem*> clusters_;
};

} // namespace fxview
