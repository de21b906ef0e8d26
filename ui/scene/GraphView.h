#pragma once
// The graph view: wheel to zoom around the pointer, drag to pan, fit, and keep a node in view.

#include <QGraphicsView>

namespace fxview {

class GraphView : public QGraphicsView {
public:
    explicit GraphView(QWidget* parent = nullptr);

    void zoomBy(double factor);
    void fitGraph(const QPointF& start = {}); // `start`: where to look when it cannot fit
    void showItem(QGraphicsItem* item);       // scroll just enough to show it, centring if far off

protected:
    void wheelEvent(QWheelEvent* event) override;
};

} // namespace fxview
