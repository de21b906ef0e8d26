#include "scene/EdgeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace fxview {

QPainterPath EdgeItem::toPainterPath(const std::vector<PointF>& spline) {
    QPainterPath path;
    if (spline.empty())
        return path;
    path.moveTo(spline[0].x, spline[0].y);
    for (std::size_t i = 1; i + 2 < spline.size(); i += 3)
        path.cubicTo(spline[i].x, spline[i].y, spline[i + 1].x, spline[i + 1].y, spline[i + 2].x,
                     spline[i + 2].y);
    return path;
}

EdgeItem::EdgeItem(const EdgePath& edge, const Theme* theme, const SceneStyle* style)
    : from_(QString::fromStdString(edge.from)), to_(QString::fromStdString(edge.to)),
      path_(toPainterPath(edge.spline)), dashed_(edge.toBlockResult), theme_(theme), style_(style) {
    setZValue(1);
    if (!edge.spline.empty())
        tail_ = QPointF(edge.spline.front().x, edge.spline.front().y);
    if (edge.hasArrow && !edge.spline.empty()) {
        // The head runs from the spline's end to the tip Graphviz left room for.
        QPointF end(edge.spline.back().x, edge.spline.back().y),
            tip(edge.arrowTip.x, edge.arrowTip.y);
        QPointF d = tip - end;
        double length = std::hypot(d.x(), d.y());
        if (length > 0.01) {
            QPointF unit = d / length, normal(-unit.y(), unit.x());
            arrow_ << tip << end + normal * length * 0.35 << end - normal * length * 0.35;
        }
    }
    bounds_ = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-2, -2, 2, 2);
}

void EdgeItem::setLabel(const QString& label) {
    if (label == label_)
        return;
    prepareGeometryChange();
    label_ = label;
    QRectF text = QFontMetricsF(style_->small).boundingRect(label_);
    bounds_ = path_.boundingRect()
                  .united(arrow_.boundingRect())
                  .united(text.translated(tail_ + QPointF(4, text.height())))
                  .adjusted(-2, -2, 2, 2);
}

QRectF EdgeItem::boundingRect() const {
    return bounds_;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    if (detail < kShapeDetail) {
        painter->setRenderHint(QPainter::Antialiasing, false);
        // One pixel wide at any scale, and faint: a full-strength pixel per edge would cover
        // the boxes where hundreds of edges run side by side (densenet's).
        QColor faint = theme_->edge;
        faint.setAlpha(60);
        painter->setPen(QPen(faint, 0));
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(path_);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(theme_->edge, 1.2, dashed_ ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    painter->setPen(Qt::NoPen);
    painter->setBrush(theme_->edge);
    painter->drawPolygon(arrow_);
    if (!label_.isEmpty() && detail >= kTextDetail) {
        painter->setFont(style_->small);
        painter->setPen(theme_->mutedText);
        painter->drawText(tail_ + QPointF(4, style_->smallAscent + 2), label_);
    }
}

} // namespace fxview
