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
    double lineSpacing = 0;
    double smallAscent = 0;

    explicit SceneStyle(const QFont& base) : font(base), bold(base), small(base) {
        bold.setBold(true);
        small.setPointSizeF(base.pointSizeF() * 0.85);
        lineSpacing = QFontMetricsF(font).lineSpacing();
        smallAscent = QFontMetricsF(small).ascent();
    }
};

} // namespace fxview
