#pragma once
// The minimap: the whole graph small, with the rectangle the main view shows; click or drag in
// it to move the main view there. A graph too tall to be more than a sliver is shown as wide as
// the dock allows and scrolls along with the main view. The graph is drawn once into a picture,
// again only when the scene changes, so that moving the main view costs the rectangle alone (the
// whole 3,000-node chain took 15-20 ms to draw, at every scroll step).

#include <QGraphicsView>
#include <QPixmap>
#include <QTimer>

namespace fxview {

class OverviewView : public QGraphicsView {
public:
    OverviewView(QGraphicsView* main, QWidget* parent = nullptr);

    QRectF shownRect() const; // the part of the scene the main view shows, in scene units
    void refit();
    void follow(); // keeps the main view's rectangle in sight

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QGraphicsView* main_;
    QPixmap picture_;       // the scene as this view shows it; null when it must be drawn again
    bool dragging_ = false; // the left button is down in this view
    QTimer redraw_;         // started by a change of the scene; drops the picture when it fires
};

} // namespace fxview
