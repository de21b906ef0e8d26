#include "scene/NodeItem.h"

#include "ScopeTree.h"
#include "scene/GraphScene.h"

#include <QFontMetricsF>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace fxview {

namespace {

constexpr double kPadding = 8;
constexpr double kMinWidth = 72;
constexpr double kRadius = 6;

QString titleOf(const Node& n) {
    return QString::fromStdString(n.collapsedNodes > 0 ? n.target : n.name);
}

// `fullTarget` false: an ATen overload without the prefix all of them share and without the
// name of the overload that has none in the schema registry ("aten::conv2d"): as exact, and a
// .pt2's boxes are then as narrow as the call_modules of its TorchScript picture. The tooltip
// keeps torch.fx's whole name.
QString opLineOf(const Node& n, bool fullTarget = false) {
    if (n.collapsedNodes > 0) {
        QString count =
            QString("%1 node%2").arg(n.collapsedNodes).arg(n.collapsedNodes == 1 ? "" : "s");
        return n.moduleType.empty()
                   ? count
                   : QString::fromStdString(shortClassName(n.moduleType)) + " · " + count;
    }
    QString op = opName(n.op);
    if (n.op == Op::Placeholder || n.op == Op::Output)
        return op;
    QString target = QString::fromStdString(n.moduleType.empty() ? n.target : n.moduleType);
    if (!fullTarget && target.startsWith("torch.ops.")) {
        target.remove(0, 10);
        if (target.endsWith(".default"))
            target.chop(8);
    }
    return op + " · " + target;
}

// A weight's attribute name without its module path ("layer1.0.conv1.weight" -> "weight"):
// the box it sits in says whose it is. The whole path where two would read the same.
QString weightLabel(const Node& reader, const HeldTensor& weight) {
    auto leaf = [](const std::string& path) { return path.substr(path.rfind('.') + 1); };
    int same = 0;
    for (const HeldTensor& w : reader.weightsInside)
        same += leaf(w.name) == leaf(weight.name);
    return QString::fromStdString(same > 1 ? weight.name : leaf(weight.name));
}

} // namespace

QStringList NodeItem::weightLines(const Node& node) {
    QStringList lines;
    const int count = static_cast<int>(node.weightsInside.size());
    for (int i = 0; i < count; ++i) {
        if (i == kWeightLines - 1 && count > kWeightLines) {
            lines << QString("+ %1 more weights").arg(count - i);
            break;
        }
        const HeldTensor& w = node.weightsInside[i];
        lines << weightLabel(node, w) + " " + QString::fromStdString(formatShape(w.shape));
    }
    return lines;
}

NodeItem::NodeItem(const Node& node, const QRectF& box, const Theme* theme, const SceneStyle* style)
    : name_(QString::fromStdString(node.name)), title_(titleOf(node)),
      scope_(node.collapsedNodes > 0 ? QString::fromStdString(node.target) : QString()),
      opLine_(opLineOf(node)), weights_(weightLines(node)), op_(node.op), box_(box), theme_(theme),
      style_(style) {
    // The box was measured for this line; eliding (a second text layout) is for narrower boxes.
    double room = box.width() - 2 * kPadding;
    opLineShown_ = style_->textWidth(opLine_) <= room
                       ? opLine_
                       : style_->metrics.elidedText(opLine_, Qt::ElideMiddle, room);
    setPos(box.topLeft());
    box_.moveTopLeft(QPointF(0, 0));
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setZValue(2);
    QString weights;
    for (const HeldTensor& w : node.weightsInside)
        weights +=
            QString("\n%1 %2 %3")
                .arg(QString::fromStdString(w.name), QString::fromStdString(formatShape(w.shape)),
                     QString::fromStdString(w.dtype));
    setToolTip(isScopeBox() ? title_ + "\n" + opLine_ + weights + "\nDouble-click or + to expand"
                            : name_ + "\n" + opLineOf(node, true) + weights);
}

QRectF NodeItem::toggleRect() const {
    if (!isScopeBox())
        return {};
    const double side = style_->lineSpacing * 0.8;
    return QRectF(box_.right() - side - 5, 5, side, side);
}

QSizeF NodeItem::sizeFor(const Node& node, const SceneStyle& style) {
    // A box's title leaves room for its +; its shape line holds what flows in and out.
    double extra = node.collapsedNodes > 0 ? style.lineSpacing * 1.6 : 0;
    double shapes = node.collapsedNodes > 0 ? style.shapeLineWidth * 1.6 : style.shapeLineWidth;
    double width = std::max({style.boldMetrics.horizontalAdvance(titleOf(node)) + 2 * extra,
                             style.textWidth(opLineOf(node)), shapes});
    const QStringList weights = weightLines(node);
    for (const QString& line : weights)
        width = std::max(width, style.textWidth(line));
    // Rounded up with a little slack: Graphviz keeps whole points, and text must never be
    // elided in a box that was measured for it.
    return QSizeF(std::ceil(std::max(kMinWidth, width + 2 * kPadding + 4)),
                  std::ceil((3 + weights.size()) * style.lineSpacing + 2 * kPadding - 4));
}

void NodeItem::setRunState(State state, const QString& shape) {
    if (state == state_ && shape == shape_)
        return;
    state_ = state;
    if (shape != shape_)
        shapeShown_ =
            style_->metrics.elidedText(shape, Qt::ElideRight, box_.width() - 2 * kPadding);
    shape_ = shape;
    update();
}

void NodeItem::setBreakpoint(bool on) {
    breakpoint_ = on;
    update();
}

void NodeItem::setMark(const QColor& mark, const QString& note) {
    if (mark == mark_ && note == note_)
        return;
    if (note.isEmpty() != note_.isEmpty())
        prepareGeometryChange(); // the note's line above the box comes or goes
    mark_ = mark;
    note_ = note;
    update();
}

QRectF NodeItem::boundingRect() const {
    return box_.adjusted(-10, note_.isEmpty() ? -3 : -3 - style_->lineSpacing, 3, 3);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const Theme& t = *theme_;
    QColor fill = mark_.isValid()                ? mark_
                  : state_ == State::NotExecuted ? t.notExecuted
                                                 : t.fillFor(op_);
    QColor border = t.border;
    double borderWidth = 1;
    switch (state_) {
    case State::Current:
        border = t.current;
        borderWidth = 3;
        break;
    case State::Done:
        border = t.done;
        borderWidth = 1.5;
        break;
    case State::Failed:
        border = t.failed;
        borderWidth = 3;
        fill = t.failed.lighter(180);
        break;
    default:
        break;
    }
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    if (detail < kShapeDetail) {
        // A few pixels: the state's colour is what can still be seen.
        painter->fillRect(box_,
                          state_ == State::Idle || state_ == State::NotExecuted ? fill : border);
        return;
    }
    painter->setPen(
        QPen(border, borderWidth, state_ == State::NotExecuted ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(fill);
    if (isScopeBox()) // a stack of boxes: what is folded inside
        painter->drawRoundedRect(box_.translated(3, 3), kRadius, kRadius);
    painter->drawRoundedRect(box_, kRadius, kRadius);
    if (isSelected()) {
        // A ring just outside the box, so the border keeps telling the state (done, current,
        // failed) of the node selected.
        painter->setPen(QPen(t.text, 1.5, Qt::DotLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(box_.adjusted(-2, -2, 2, 2), kRadius + 2, kRadius + 2);
    }
    if (breakpoint_ || gutterHover_) {
        QColor dot = t.breakpoint;
        if (!breakpoint_)
            dot.setAlpha(90);
        painter->setPen(Qt::NoPen);
        painter->setBrush(dot);
        painter->drawEllipse(QPointF(-5, box_.height() / 2), 4, 4);
    }

    // Far out, text is unreadable anyway: boxes only keeps thousands of nodes smooth.
    if (detail < kTextDetail)
        return;
    // A comparison's colours are light: dark text reads on them in either theme.
    QColor text = mark_.isValid()                ? QColor(Qt::black)
                  : state_ == State::NotExecuted ? t.mutedText
                                                 : t.text;
    QColor muted = mark_.isValid() ? QColor(0x30, 0x30, 0x30) : t.mutedText;
    double line = style_->lineSpacing;
    if (!note_.isEmpty()) {
        painter->setFont(style_->font);
        painter->setPen(t.text);
        painter->drawText(QRectF(box_.left(), box_.top() - line - 1, box_.width(), line),
                          Qt::AlignRight | Qt::AlignBottom, note_);
    }
    QRectF row(kPadding, kPadding - 2, box_.width() - 2 * kPadding, line);
    painter->setFont(style_->bold);
    painter->setPen(text);
    painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter, title_);
    if (isScopeBox()) {
        QRectF plus = toggleRect();
        painter->setPen(QPen(t.mutedText, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(plus);
        QPointF c = plus.center();
        double arm = plus.width() * 0.3;
        painter->drawLine(c - QPointF(arm, 0), c + QPointF(arm, 0));
        painter->drawLine(c - QPointF(0, arm), c + QPointF(0, arm));
        painter->setPen(text);
    }
    painter->setFont(style_->font);
    painter->setPen(muted);
    row.translate(0, line);
    painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter, opLineShown_);
    if (!weights_.isEmpty()) {
        // A rule between what the node is and what it holds, as a parameter table would.
        painter->setPen(QPen(t.border, 0.5));
        painter->drawLine(QPointF(kPadding, row.bottom() + 1),
                          QPointF(row.right(), row.bottom() + 1));
        painter->setPen(muted);
        for (const QString& weight : weights_) {
            row.translate(0, line);
            painter->drawText(row, Qt::AlignLeft | Qt::AlignVCenter, weight);
        }
    }
    if (!shape_.isEmpty()) {
        row.translate(0, line);
        painter->setPen(state_ == State::Failed ? t.failed : text);
        painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter, shapeShown_);
    }
}

void NodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() == Qt::LeftButton && inGutter(event->pos())) {
        if (auto* graph = qobject_cast<GraphScene*>(scene()))
            emit graph->gutterClicked(name_);
        event->accept();
        return;
    }
    QGraphicsItem::mousePressEvent(event);
}

void NodeItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
    bool on = inGutter(event->pos());
    if (on != gutterHover_) {
        gutterHover_ = on;
        update();
    }
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*) {
    gutterHover_ = false;
    update();
}

} // namespace fxview
