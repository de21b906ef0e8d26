#pragma once
// An edge of the graph picture: the B-spline Graphviz computed, an arrow head at the target,
// and after a run, optionally, the shape of the tensor it carries written at its tail.

#include <QGraphicsItem>
#include <QPainterPath>

#include "GraphLayout.h"
#include "scene/SceneStyle.h"
#include "scene/Theme.h"

namespace fxview {

class EdgeItem : public QGraphicsItem {
public:
    EdgeItem(const EdgePath& path, const Theme* theme, const SceneStyle* style);

    const QString& from() const { return from_; }
    const QString& to() const { return to_; }
    const QPainterPath& path() const { return path_; }
    void setLabel(const QString& label);
    const QString& label() const { return label_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    // Graphviz's spline as a Qt path: a start point, then cubicTo per three points.
    static QPainterPath toPainterPath(const std::vector<PointF>& spline);

private:
    QString from_, to_, label_;
    QPainterPath path_;
    QPolygonF arrow_;
    QPointF tail_;
    bool dashed_;
    QRectF bounds_;
    const Theme* theme_;
    const SceneStyle* style_;
};

} // namespace fxview
