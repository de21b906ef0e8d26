#include "OverviewView.h"

#include <QMouseEvent>
#include <QScrollBar>

namespace fxview {

OverviewView::OverviewView(QGraphicsView* main, QWidget* parent)
    : QGraphicsView(main->scene(), parent), main_(main) {
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setInteractive(false);
    setRenderHint(QPainter::Antialiasing, false);
    // Any move of the main view moves the rectangle drawn here.
    auto refresh = [this] { viewport()->update(); };
    connect(main_->horizontalScrollBar(), &QScrollBar::valueChanged, this, refresh);
    connect(main_->verticalScrollBar(), &QScrollBar::valueChanged, this, refresh);
    connect(main_->scene(), &QGraphicsScene::sceneRectChanged, this, [this] { refit(); });
}

QRectF OverviewView::shownRect() const {
    return main_->mapToScene(main_->viewport()->rect()).boundingRect();
}

void OverviewView::refit() {
    if (scene())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
}

void OverviewView::drawForeground(QPainter* painter, const QRectF&) {
    painter->setPen(QPen(QColor(9, 105, 218), 0));
    painter->setBrush(QColor(9, 105, 218, 40));
    painter->drawRect(shownRect());
}

void OverviewView::mousePressEvent(QMouseEvent* event) {
    main_->centerOn(mapToScene(event->position().toPoint()));
    viewport()->update();
}

void OverviewView::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton)
        mousePressEvent(event);
}

void OverviewView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    refit();
}

} // namespace fxview
