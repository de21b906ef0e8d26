#pragma once
// The Values view's pictures of a slice: a grid of planes (a feature map's channels), a heat map
// (one 2-D plane) or a line plot (one row), all on one colour scale with a legend, so that a
// channel that is brighter is larger. The colour maps are shared with the table's cells.

#include <QColor>
#include <QImage>
#include <QWidget>
#include <memory>

#include "ValueSlice.h"

namespace fxview {

// The range a colour map spans over a slice: its finite numbers' min and max.
struct ValueRange {
    double min = 0, max = 0;
    bool any = false; // false when the slice holds no finite number
    static ValueRange of(const ValueSlice& slice);
};

// Viridis (perceptually uniform, readable in grey) for pictures; `t` in [0, 1].
QColor sequentialColor(double t);
// A table cell's background: blue below zero, red above, white at zero, when the range has both
// signs; otherwise pale to strong blue from min to max. NaN is magenta, Inf black/white text.
QColor cellColor(double value, const ValueRange& range);

class ValuePicture : public QWidget {
    Q_OBJECT
public:
    explicit ValuePicture(QWidget* parent = nullptr);
    // Draws `slice` (planes, rows, columns): one row as a line plot, otherwise each plane as an
    // image in a grid labelled by its index along `planeLabel` ("channel").
    void show(std::shared_ptr<const ValueSlice> slice, const QString& planeLabel);
    QSize sizeHint() const override { return {420, 320}; }
    // The picture as drawn, for tests and for copying.
    QImage rendered() { return grab().toImage(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void paintLine(QPainter& p, const QRect& area) const;
    void paintPlanes(QPainter& p, const QRect& area) const;
    void paintLegend(QPainter& p, const QRect& area) const;

    std::shared_ptr<const ValueSlice> slice_;
    ValueRange range_;
    QString planeLabel_;
    std::vector<QImage> planes_; // one image per plane, coloured once per slice
};

} // namespace fxview
