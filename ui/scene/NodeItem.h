#pragma once
// A node of the graph picture: a rounded box coloured by op with its name, its op and target,
// and — once a run produced it — its output shape and dtype. It mirrors a core Node and holds
// only what it draws; GraphScene::syncRun() refreshes it. A collapsed module scope (a node with
// collapsedNodes, ScopeView.h) is drawn as a stacked box with its path, class and node count,
// the shapes flowing in and out, and a + that opens it. A node that reads weights drawn inside
// it (Node::weightsInside) lists them, a line each, between its op line and its shape line.

#include <QColor>
#include <QFont>
#include <QGraphicsItem>

#include "Graph.h"
#include "RunRecord.h"
#include "scene/SceneStyle.h"
#include "scene/Theme.h"

namespace fxview {

class NodeItem : public QGraphicsItem {
public:
    enum class State { Idle, Current, Done, Failed, NotExecuted };

    NodeItem(const Node& node, const QRectF& box, const Theme* theme, const SceneStyle* style);

    // The box a node needs with `font`: three lines (name, op and target, shape) and one per
    // weight listed, the shape line reserved from the start so a run never changes the layout.
    static QSizeF sizeFor(const Node& node, const SceneStyle& style);
    // The lines listing the weights drawn inside `node`: "weight [64, 3, 7, 7]", at most
    // kWeightLines (the last then says how many more).
    static QStringList weightLines(const Node& node);
    static constexpr int kWeightLines = 4;

    const QString& name() const { return name_; }
    // The module path a collapsed scope's box stands for ("layers.0"); "" for a node.
    const QString& scope() const { return scope_; }
    bool isScopeBox() const { return !scope_.isEmpty(); }
    // Where the + that expands a box is drawn (item coordinates); empty for a node.
    QRectF toggleRect() const;
    void setRunState(State state, const QString& shape);
    void setBreakpoint(bool on);
    // A comparison's colour for this node (ComparisonPanel::colourOf) in place of its op's fill;
    // an invalid colour for none. `note`, drawn just above the box's right end, says what the
    // colour stands for ("3.2 ms (12%)" under the Cost dock's Colour by).
    void setMark(const QColor& mark, const QString& note = {});
    const QString& markNote() const { return note_; }
    const QColor& mark() const { return mark_; }
    bool hasBreakpoint() const { return breakpoint_; }
    State runState() const { return state_; }
    const QString& shapeText() const { return shape_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    // The strip left of the box where the breakpoint dot sits; a click there toggles it.
    bool inGutter(const QPointF& local) const { return local.x() < 0; }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QString name_, title_, scope_, opLine_, shape_;
    QStringList weights_;
    QString opLineShown_, shapeShown_; // elided to the box once, not in every paint
    Op op_;
    QRectF box_;
    State state_ = State::Idle;
    bool breakpoint_ = false;
    QColor mark_;
    QString note_;
    bool gutterHover_ = false; // a faint dot shows where a click sets a breakpoint
    const Theme* theme_;
    const SceneStyle* style_;
};

} // namespace fxview
