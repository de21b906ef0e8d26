#pragma once
// The rectangle of a module scope (layer1, layer1.0) or of a control-flow block (an if's
// branch, a loop body), labelled at its top-left; a scope's label ends in a − that collapses it.

#include <QGraphicsItem>

#include "GraphLayout.h"
#include "scene/SceneStyle.h"
#include "scene/Theme.h"

namespace fxview {

class ClusterItem : public QGraphicsItem {
public:
    // `collapsible`: a scope of the model's own graph, which its − closes.
    ClusterItem(const ClusterBox& cluster, const Theme* theme, const SceneStyle* style,
                bool collapsible = false);

    const QString& id() const { return id_; }
    bool isBlock() const { return isBlock_; }
    // Where a scope's − is drawn (scene coordinates); empty for a block or a scope that cannot
    // close.
    QRectF toggleRect() const;
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QString id_, label_;
    bool isBlock_;
    bool collapsible_;
    QRectF box_;
    const Theme* theme_;
    const SceneStyle* style_;
};

} // namespace fxview
