#pragma once
// A QPaintDevice that writes lean SVG: the scene paints into it exactly as it paints on screen,
// and every primitive becomes one SVG element with its own style. Qt's QSvgGenerator writes a
// full <g> with every attribute at each painter state change (30,000 groups and 10 MB for a
// 3,000-node graph, slower than Graphviz's whole `dot -Tsvg`); this writes what dot writes.
//
// Supported: solid pens and brushes (dash patterns, caps, joins, opacity), paths, polygons,
// rectangles, ellipses, lines, text as <text> (searchable), images as embedded PNG, any affine
// transform. Not supported, as the graph scene never uses them: clipping, gradients and
// pattern brushes (drawn with the brush's colour).

#include <QPaintDevice>
#include <QSizeF>
#include <QString>
#include <memory>

namespace fxview {

class SvgPaintEngine;

class SvgPainter : public QPaintDevice {
public:
    // `size` is the picture in user units (one per scene point); text is laid out at the
    // screen's resolution so that it fills its boxes as it does in the window.
    SvgPainter(const QString& path, const QSizeF& size, const QString& title);
    ~SvgPainter() override;

    QPaintEngine* paintEngine() const override;
    // False if the file could not be written (checked after QPainter::end()).
    bool ok() const;

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    QSizeF size_;
    std::unique_ptr<SvgPaintEngine> engine_;
};

} // namespace fxview
