#pragma once
// The fonts the scene draws with and their metrics, made once per scene: items share them
// instead of building fonts and metrics in every paint (export paints thousands of items).

#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QHash>
#include <QScreen>
#include <QString>

namespace fxview {

// The resolution QFontMetricsF measures at when given no device, so the one the scene's boxes
// were sized at: vector exports lay text out at it too, so that text fills its box as on screen.
inline int measuringDpi() {
    const QScreen* screen = QGuiApplication::primaryScreen();
    return screen ? qRound(screen->logicalDotsPerInchY()) : 96;
}

// How far out items drop detail (the scale at which the scene is drawn, 1 = 100%). Below
// kTextDetail text is unreadable and left out; below kShapeDetail a box is a few pixels, drawn as
// a plain rectangle and edges as hairlines without arrows, which halves the time the whole
// 3,000-node chain (or the overview's picture of it) takes to draw.
constexpr double kTextDetail = 0.35;
constexpr double kShapeDetail = 0.1;

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

    // Width of `text` in the regular font, remembered: op lines repeat across a graph
    // ("call_module · torch.nn.Conv2d"), and shaping text is most of what measuring costs.
    double textWidth(const QString& text) const {
        auto it = widths_.constFind(text);
        if (it != widths_.constEnd())
            return *it;
        double width = metrics.horizontalAdvance(text);
        widths_.insert(text, width);
        return width;
    }

private:
    mutable QHash<QString, double> widths_;

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
