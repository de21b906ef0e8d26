#include "ClusterItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace fxview {

ClusterItem::ClusterItem(const ClusterBox& cluster, const Theme* theme, const SceneStyle* style)
    : id_(QString::fromStdString(cluster.id)), label_(QString::fromStdString(cluster.label)),
      isBlock_(cluster.isBlock),
      box_(cluster.box.x, cluster.box.y, cluster.box.width, cluster.box.height), theme_(theme),
      style_(style) {
    setZValue(0);
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
}

} // namespace fxview
