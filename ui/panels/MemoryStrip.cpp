#include "panels/MemoryStrip.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace fxview {

MemoryStrip::MemoryStrip(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(56);
    setMouseTracking(false);
    setToolTip(tr("The live set after each node that ran: the bytes every value a later node "
                  "still reads holds, weights apart. Click to select a node."));
}

void MemoryStrip::setTable(const CostTable& table) {
    nodes_.clear();
    live_.clear();
    peak_ = -1;
    for (const CostRow& r : table.rows) {
        if (!r.ran || r.weight) // a weight is never in the live set: no point of its own
            continue;
        if (peak_ < 0 || r.liveBytes > live_[peak_])
            peak_ = static_cast<int>(live_.size());
        nodes_.append(QString::fromStdString(r.node));
        live_.append(r.liveBytes);
    }
    update();
}

void MemoryStrip::setSelected(const QString& node) {
    selected_ = node;
    update();
}

QRect MemoryStrip::plotArea() const {
    const int label = fontMetrics().height() + 4;
    return rect().adjusted(6, label, -6, -4);
}

double MemoryStrip::xOf(int index) const {
    QRect area = plotArea();
    if (nodes_.size() < 2)
        return area.center().x();
    return area.left() + area.width() * static_cast<double>(index) / (nodes_.size() - 1);
}

QString MemoryStrip::nodeAt(int x) const {
    if (nodes_.isEmpty())
        return {};
    QRect area = plotArea();
    double t = nodes_.size() < 2 ? 0
                                 : static_cast<double>(x - area.left()) /
                                       std::max(1, area.width()) * (nodes_.size() - 1);
    int index =
        std::clamp(static_cast<int>(std::lround(t)), 0, static_cast<int>(nodes_.size()) - 1);
    return nodes_[index];
}

void MemoryStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QColor text = palette().color(QPalette::Text);
    QRect area = plotArea();
    if (nodes_.isEmpty() || peak_ < 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("The live set appears here once nodes have run."));
        return;
    }
    const double top = std::max<qint64>(live_[peak_], 1);
    auto yOf = [&](qint64 bytes) { return area.bottom() - area.height() * (bytes / top); };
    QPainterPath line;
    line.moveTo(xOf(0), area.bottom());
    for (int i = 0; i < nodes_.size(); ++i)
        line.lineTo(xOf(i), yOf(live_[i]));
    line.lineTo(xOf(static_cast<int>(nodes_.size()) - 1), area.bottom());
    line.closeSubpath();
    p.setRenderHint(QPainter::Antialiasing);
    p.fillPath(line, QColor(0x4a, 0x90, 0xd9, 90));
    p.setPen(QPen(QColor(0x2a, 0x6f, 0xb8), 1.2));
    p.drawPath(line);
    // The peak: a dot, and what it is.
    QPointF peak(xOf(peak_), yOf(live_[peak_]));
    p.setBrush(QColor(0xf0, 0x5a, 0x4a));
    p.setPen(Qt::NoPen);
    p.drawEllipse(peak, 3.5, 3.5);
    p.setPen(text);
    QString label = tr("peak %1 after %2")
                        .arg(QString::fromStdString(formatBytes(live_[peak_])), nodes_[peak_]);
    int w = fontMetrics().horizontalAdvance(label);
    int left = std::clamp(static_cast<int>(peak.x()) - w / 2, 2, std::max(2, width() - w - 2));
    p.drawText(left, fontMetrics().ascent() + 1, label);
    if (int at = static_cast<int>(nodes_.indexOf(selected_)); at >= 0) {
        p.setPen(QPen(text, 1, Qt::DashLine));
        p.drawLine(QPointF(xOf(at), area.top()), QPointF(xOf(at), area.bottom()));
    }
}

void MemoryStrip::mousePressEvent(QMouseEvent* event) {
    if (QString node = nodeAt(event->position().toPoint().x()); !node.isEmpty()) {
        setSelected(node);
        emit nodeChosen(node);
    }
}

void MemoryStrip::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton)
        mousePressEvent(event);
}

} // namespace fxview
