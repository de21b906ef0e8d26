#include "scene/OverviewView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace fxview {

namespace {

// A graph that fits the overview only as a sliver (a ResNet is ten times taller than wide) is
// drawn at least this big, and the overview scrolls with the main view instead.
constexpr double kMinScale = 0.15;
// The picture of the whole graph is kept at most this many pixels tall (memory, drawing time).
constexpr double kMaxPictureHeight = 16000;

} // namespace

OverviewView::OverviewView(QGraphicsView* main, QWidget* parent)
    : QGraphicsView(main->scene(), parent), main_(main) {
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setInteractive(false);
    setRenderHint(QPainter::Antialiasing, false);
    // Any move of the main view moves the rectangle drawn here (and a tall graph with it).
    auto refresh = [this] {
        follow();
        viewport()->update();
    };
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
    picture_ = QPixmap();
    if (!scene() || scene()->sceneRect().isEmpty() || viewport()->width() <= 0)
        return;
    const QRectF graph = scene()->sceneRect();
    const QSizeF room = viewport()->size();
    const double whole = std::min(room.width() / graph.width(), room.height() / graph.height());
    // The whole graph, unless that shrinks it to a sliver: then as wide as the dock allows up to
    // kMinScale, following the main view up and down.
    double scale = std::max(whole, std::min(kMinScale, room.width() / graph.width()));
    scale = std::min(scale, std::max(whole, kMaxPictureHeight / graph.height()));
    setTransform(QTransform::fromScale(scale, scale));
    follow();
}

void OverviewView::follow() {
    if (!dragging_) // a drag here moves the main view; following it would move the ground too
        centerOn(shownRect().center());
}

void OverviewView::paintEvent(QPaintEvent*) {
    if (!scene())
        return;
    const QRectF graph = scene()->sceneRect();
    const double scale = transform().m11();
    const qreal ratio = viewport()->devicePixelRatioF();
    if (picture_.isNull() && !graph.isEmpty()) {
        // The whole graph at this view's scale, drawn once per change of the scene.
        picture_ = QPixmap((graph.size() * scale * ratio).toSize());
        picture_.setDevicePixelRatio(ratio);
        picture_.fill(scene()->backgroundBrush().color());
        QPainter painter(&picture_);
        scene()->render(&painter, QRectF(QPointF(), graph.size() * scale), graph);
    }
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), scene()->backgroundBrush());
    painter.drawPixmap(mapFromScene(graph.topLeft()), picture_);
    painter.setTransform(viewportTransform());
    QPen frame(QColor(9, 105, 218), 1.5);
    frame.setCosmetic(true); // 1.5 pixels at any scale
    painter.setPen(frame);
    painter.setBrush(QColor(9, 105, 218, 16)); // light: the nodes' run colours show through
    painter.drawRect(shownRect());
}

void OverviewView::mousePressEvent(QMouseEvent* event) {
    dragging_ = event->buttons().testFlag(Qt::LeftButton);
    main_->centerOn(mapToScene(event->position().toPoint()));
    viewport()->update();
}

void OverviewView::mouseReleaseEvent(QMouseEvent*) {
    dragging_ = false;
    follow();
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
