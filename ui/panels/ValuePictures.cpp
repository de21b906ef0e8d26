#include "panels/ValuePictures.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace fxview {

namespace {

// Viridis at nine evenly spaced stops (matplotlib's table), interpolated between.
constexpr int kViridis[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};

QString number(double v) {
    return QString::number(v, 'g', 4);
}

} // namespace

ValueRange ValueRange::of(const ValueSlice& slice) {
    ValueRange r;
    const auto& req = slice.request;
    for (std::int64_t p = 0; p < req.planeCount; ++p)
        for (std::int64_t y = 0; y < req.rowCount; ++y)
            for (std::int64_t x = 0; x < req.colCount; ++x) {
                double v = slice.number(p, y, x);
                if (!std::isfinite(v))
                    continue;
                r.min = r.any ? std::min(r.min, v) : v;
                r.max = r.any ? std::max(r.max, v) : v;
                r.any = true;
            }
    return r;
}

QColor sequentialColor(double t) {
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 8;
    int i = std::min(7, static_cast<int>(t));
    double f = t - i;
    auto mix = [&](int c) {
        return static_cast<int>(
            std::lround(kViridis[i][c] + f * (kViridis[i + 1][c] - kViridis[i][c])));
    };
    return QColor(mix(0), mix(1), mix(2));
}

QColor cellColor(double value, const ValueRange& range) {
    if (std::isnan(value))
        return QColor(0xf0, 0x9a, 0xf0);
    if (std::isinf(value))
        return value > 0 ? QColor(0xb0, 0x20, 0x20) : QColor(0x20, 0x40, 0xb0);
    auto tint = [](const QColor& strong, double t) {
        t = std::clamp(t, 0.0, 1.0) * 0.75; // the text stays readable on the strongest
        return QColor::fromRgbF(1 - t * (1 - strong.redF()), 1 - t * (1 - strong.greenF()),
                                1 - t * (1 - strong.blueF()));
    };
    if (!range.any)
        return Qt::white;
    if (range.min < 0 && range.max > 0) {
        double m = std::max(-range.min, range.max);
        return value < 0 ? tint(QColor(0x21, 0x66, 0xac), -value / m)
                         : tint(QColor(0xb2, 0x18, 0x2b), value / m);
    }
    double span = range.max - range.min;
    return tint(QColor(0x21, 0x66, 0xac), span > 0 ? (value - range.min) / span : 0.5);
}

ValuePicture::ValuePicture(QWidget* parent) : QWidget(parent) {
    setMinimumSize(200, 150);
    setAutoFillBackground(true);
}

void ValuePicture::show(std::shared_ptr<const ValueSlice> slice, const QString& planeLabel) {
    slice_ = std::move(slice);
    planeLabel_ = planeLabel;
    planes_.clear();
    range_ = slice_ ? ValueRange::of(*slice_) : ValueRange{};
    if (slice_ && slice_->request.rowCount > 1) {
        const auto& r = slice_->request;
        const double span = range_.max - range_.min;
        for (std::int64_t p = 0; p < r.planeCount; ++p) {
            QImage image(static_cast<int>(r.colCount), static_cast<int>(r.rowCount),
                         QImage::Format_RGB32);
            for (std::int64_t y = 0; y < r.rowCount; ++y) {
                auto* line = reinterpret_cast<QRgb*>(image.scanLine(static_cast<int>(y)));
                for (std::int64_t x = 0; x < r.colCount; ++x) {
                    double v = slice_->number(p, y, x);
                    line[x] = !std::isfinite(v)
                                  ? qRgb(255, 0, 255)
                                  : sequentialColor(span > 0 ? (v - range_.min) / span : 0.5).rgb();
                }
            }
            planes_.push_back(std::move(image));
        }
    }
    update();
}

void ValuePicture::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!slice_ || slice_->size() == 0 || !range_.any) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   slice_ && slice_->size() > 0 ? "No finite value to draw."
                                                : "Select a node that has run to see its values.");
        return;
    }
    const int legendWidth = 64;
    QRect area = rect().adjusted(6, 6, -legendWidth - 6, -6);
    if (slice_->request.rowCount <= 1)
        paintLine(p, area);
    else
        paintPlanes(p, area);
    paintLegend(p, QRect(area.right() + 10, area.top(), legendWidth - 10, area.height()));
    if (planes_.size() > 1) { // what the numbers under the tiles count
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(area.right() + 4, area.bottom() - 14, legendWidth, 14), Qt::AlignLeft,
                   planeLabel_);
    }
}

void ValuePicture::paintLine(QPainter& p, const QRect& area) const {
    const std::int64_t n = slice_->request.colCount;
    const double span = range_.max > range_.min ? range_.max - range_.min : 1;
    auto yOf = [&](double v) { return area.bottom() - (v - range_.min) / span * area.height(); };
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(area);
    if (range_.min < 0 && range_.max > 0)
        p.drawLine(QPointF(area.left(), yOf(0)), QPointF(area.right(), yOf(0)));
    QPainterPath path;
    bool pen = false;
    for (std::int64_t x = 0; x < n; ++x) {
        double v = slice_->number(0, 0, x);
        double px = area.left() + (n > 1 ? double(x) / double(n - 1) : 0.5) * area.width();
        if (!std::isfinite(v)) {
            pen = false; // a NaN breaks the line, as matplotlib draws it
            continue;
        }
        pen ? path.lineTo(px, yOf(v)) : path.moveTo(px, yOf(v));
        pen = true;
    }
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(sequentialColor(0.35), 1.5));
    p.drawPath(path);
}

void ValuePicture::paintPlanes(QPainter& p, const QRect& area) const {
    const int count = static_cast<int>(planes_.size());
    const QSize plane = planes_.front().size();
    // The grid whose cells are largest: columns tried from 1 to count.
    int bestColumns = 1;
    double bestScale = 0;
    for (int columns = 1; columns <= count; ++columns) {
        int rows = (count + columns - 1) / columns;
        double cellW = double(area.width()) / columns, cellH = double(area.height()) / rows;
        double scale =
            std::min((cellW - 2) / plane.width(), (cellH - (count > 1 ? 12 : 2)) / plane.height());
        if (scale > bestScale) {
            bestScale = scale;
            bestColumns = columns;
        }
    }
    const double cellW = double(area.width()) / bestColumns;
    const int rows = (count + bestColumns - 1) / bestColumns;
    const double cellH = double(area.height()) / rows;
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    p.setPen(palette().color(QPalette::Text));
    const auto& r = slice_->request;
    for (int i = 0; i < count; ++i) {
        QRectF cell(area.left() + (i % bestColumns) * cellW, area.top() + (i / bestColumns) * cellH,
                    cellW, cellH);
        QSizeF drawn(plane.width() * bestScale, plane.height() * bestScale);
        QRectF target(cell.left() + (cell.width() - drawn.width()) / 2, cell.top() + 1,
                      drawn.width(), drawn.height());
        p.drawImage(target, planes_[static_cast<std::size_t>(i)]); // nearest: each value a block
        if (count > 1)
            p.drawText(QRectF(cell.left(), target.bottom(), cell.width(), 11), Qt::AlignCenter,
                       QString::number(r.planeStart + i));
    }
}

void ValuePicture::paintLegend(QPainter& p, const QRect& area) const {
    QRect bar(area.left(), area.top() + 8, 12, area.height() - 16);
    for (int y = 0; y < bar.height(); ++y)
        p.fillRect(bar.left(), bar.bottom() - y, bar.width(), 1,
                   sequentialColor(double(y) / std::max(1, bar.height() - 1)));
    p.setPen(palette().color(QPalette::Text));
    p.drawRect(bar);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    p.drawText(QRect(bar.right() + 3, bar.top() - 6, area.width(), 14), Qt::AlignLeft,
               number(range_.max));
    p.drawText(QRect(bar.right() + 3, bar.bottom() - 8, area.width(), 14), Qt::AlignLeft,
               number(range_.min));
}

} // namespace fxview
