#pragma once
// The colours of the graph picture: one palette for light and one for dark, op colours that
// stay apart in both, and a distinct look for each run state.

#include <QColor>
#include <QString>

#include "Graph.h"

namespace fxview {

struct Theme {
    QString name;
    QColor background;
    QColor text;
    QColor mutedText;
    QColor edge;
    QColor border;
    QColor clusterFill;
    QColor clusterBorder;
    QColor blockBorder;
    QColor current; // the node running now
    QColor done;    // border of a node that has run
    QColor failed;
    QColor notExecuted; // fill of a branch the input never took
    QColor breakpoint;
    QColor opColors[6]; // indexed by Op

    QColor fillFor(Op op) const { return opColors[static_cast<int>(op)]; }

    static Theme light();
    static Theme dark();
    // "light" or "dark"; false if neither.
    static bool byName(const QString& name, Theme& theme);
};

// `color` laid over `under` at `amount` (0..1): a tint that reads on a light or a dark ground
// alike (the banner, the graph text's current line).
QColor tint(const QColor& color, const QColor& under, double amount);

} // namespace fxview
