#include "scene/ClusterItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace fxview {

ClusterItem::ClusterItem(const ClusterBox& cluster, const Theme* theme, const SceneStyle* style,
                         bool collapsible)
    : id_(QString::fromStdString(cluster.id)), label_(QString::fromStdString(cluster.label)),
      isBlock_(cluster.isBlock), collapsible_(collapsible && !cluster.isBlock),
      box_(cluster.box.x, cluster.box.y, cluster.box.width, cluster.box.height), theme_(theme),
      style_(style) {
    setZValue(0);
}

QRectF ClusterItem::toggleRect() const {
    if (!collapsible_)
        return {};
    const double side = style_->smallAscent + 2;
    double x = box_.left() + 10 + QFontMetricsF(style_->small).horizontalAdvance(label_);
    return QRectF(x, box_.top() + 3, side, side);
}

QRectF ClusterItem::boundingRect() const {
    return box_.adjusted(-1, -1, 1, 1);
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    painter->setPen(QPen(isBlock_ ? theme_->blockBorder : theme_->clusterBorder, 1,
                         isBlock_ ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(isBlock_ ? Qt::NoBrush : QBrush(theme_->clusterFill));
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    if (detail < kShapeDetail)
        painter->drawRect(box_);
    else
        painter->drawRoundedRect(box_, 8, 8);
    if (detail < kTextDetail)
        return;
    painter->setFont(style_->small);
    painter->setPen(theme_->mutedText);
    painter->drawText(box_.topLeft() + QPointF(6, style_->smallAscent + 3), label_);
    if (QRectF minus = toggleRect(); !minus.isEmpty()) {
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(minus);
        QPointF c = minus.center();
        painter->drawLine(c - QPointF(minus.width() * 0.3, 0), c + QPointF(minus.width() * 0.3, 0));
    }
}

} // namespace fxview
