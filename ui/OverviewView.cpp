#include "OverviewView.h"

#include <QMouseEvent>
#include <QPainter>
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
    // Any change of an item (a step's colours, a selection, a theme) makes the picture stale; it
    // is drawn again at most every 100 ms, so that Play on a big graph does not redraw it per node.
    redraw_.setSingleShot(true);
    redraw_.setInterval(100);
    connect(&redraw_, &QTimer::timeout, this, [this] {
        picture_ = QPixmap();
        viewport()->update();
    });
    connect(main_->scene(), &QGraphicsScene::changed, this, [this] {
        if (!redraw_.isActive())
            redraw_.start();
    });
}

QRectF OverviewView::shownRect() const {
    return main_->mapToScene(main_->viewport()->rect()).boundingRect();
}

void OverviewView::refit() {
    if (scene())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    picture_ = QPixmap();
}

void OverviewView::paintEvent(QPaintEvent*) {
    const QSize size = viewport()->size();
    const qreal ratio = viewport()->devicePixelRatioF();
    if (picture_.isNull() || picture_.size() != size * ratio) {
        picture_ = QPixmap(size * ratio);
        picture_.setDevicePixelRatio(ratio);
        picture_.fill(palette().color(QPalette::Base)); // the scene's background covers it
        QPainter painter(&picture_);
        render(&painter, QRectF(QPointF(), size), viewport()->rect());
    }
    QPainter painter(viewport());
    painter.drawPixmap(0, 0, picture_);
    painter.setTransform(viewportTransform());
    painter.setPen(QPen(QColor(9, 105, 218), 0));
    painter.setBrush(QColor(9, 105, 218, 40));
    painter.drawRect(shownRect());
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
