#pragma once
// The minimap: the whole graph small, with the rectangle the main view shows; click or drag in
// it to move the main view there.

#include <QGraphicsView>

namespace fxview {

class OverviewView : public QGraphicsView {
public:
    OverviewView(QGraphicsView* main, QWidget* parent = nullptr);

    QRectF shownRect() const; // the part of the scene the main view shows, in scene units
    void refit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QGraphicsView* main_;
};

} // namespace fxview
