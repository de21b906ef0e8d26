#include "scene/GraphView.h"

#include <QGraphicsItem>
#include <QWheelEvent>
#include <cmath>

namespace fxview {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    // Items do not move: repainting only what changed keeps thousands of nodes smooth.
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
}

void GraphView::zoomBy(double factor) {
    double current = transform().m11();
    double target = std::clamp(current * factor, 0.02, 8.0);
    scale(target / current, target / current);
}

void GraphView::fitGraph(const QPointF& start) {
    if (scene())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // A big graph fitted whole is unreadable: start no smaller than readable text allows, at
    // the graph's entry (its first input) where reading begins.
    if (transform().m11() < 0.8) {
        double s = 0.8 / transform().m11();
        scale(s, s);
        QRectF visible = mapToScene(viewport()->rect()).boundingRect();
        centerOn(start.x(), start.y() + visible.height() / 2 - 40);
    }
}

void GraphView::showItem(QGraphicsItem* item) {
    if (!item)
        return;
    QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    if (!visible.contains(item->sceneBoundingRect()))
        centerOn(item);
}

void GraphView::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

} // namespace fxview
