#pragma once
// The fonts the scene draws with and their metrics, made once per scene: items share them
// instead of building fonts and metrics in every paint (export paints thousands of items).

#include <QFont>
#include <QFontMetricsF>

namespace fxview {

struct SceneStyle {
    QFont font;
    QFont bold;
    QFont small; // cluster titles and edge shapes
    QFontMetricsF metrics;
    QFontMetricsF boldMetrics;
    double lineSpacing = 0;
    double smallAscent = 0;
    double shapeLineWidth = 0; // room kept for the shape line before any run

    explicit SceneStyle(const QFont& base)
        : font(base), bold(withBold(base)), small(scaled(base, 0.85)), metrics(font),
          boldMetrics(bold) {
        lineSpacing = metrics.lineSpacing();
        smallAscent = QFontMetricsF(small).ascent();
        shapeLineWidth = metrics.horizontalAdvance("[1, 1000, 1000, 1000] float32");
    }

private:
    static QFont withBold(QFont f) {
        f.setBold(true);
        return f;
    }
    static QFont scaled(QFont f, double factor) {
        f.setPointSizeF(f.pointSizeF() * factor);
        return f;
    }
};

} // namespace fxview
