#pragma once
// What the docks that colour the graph share (ComparisonPanel, CostPanel): the colour scale from
// pale yellow to red and its bar, a table cell that sorts by its number, a node table set up
// alike.

#include <QColor>
#include <QHeaderView>
#include <QPainter>
#include <QTableWidget>
#include <QTableWidgetItem>
#include <algorithm>
#include <cmath>

namespace fxview {

// t from 0 (pale yellow) to 1 (red), light enough at its red end for the boxes' black text.
inline QColor heatColour(double t) {
    static const QColor scale[] = {QColor(0xff, 0xf7, 0xbc), QColor(0xfd, 0xae, 0x61),
                                   QColor(0xf0, 0x5a, 0x4a)};
    t = std::clamp(t, 0.0, 1.0) * 2;
    int i = std::min(static_cast<int>(t), 1);
    double f = t - i;
    const QColor &a = scale[i], &b = scale[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

// The scale drawn left to right in `bar`, framed in `frame`: a legend's middle.
inline void paintHeatBar(QPainter& p, const QRect& bar, const QColor& frame) {
    for (int i = 0; i < bar.width(); ++i) {
        p.setPen(heatColour(static_cast<double>(i) / std::max(1, bar.width() - 1)));
        p.drawLine(bar.left() + i, bar.top(), bar.left() + i, bar.top() + bar.height());
    }
    p.setPen(frame);
    p.drawRect(bar);
}

// A table cell that sorts by its number, not its text; NaN sorts as the largest.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double number) : QTableWidgetItem(text) {
        setData(Qt::UserRole, number);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        double a = data(Qt::UserRole).toDouble(), b = other.data(Qt::UserRole).toDouble();
        if (std::isnan(a) || std::isnan(b))
            return !std::isnan(a) && std::isnan(b);
        return a < b;
    }
};

// A dock's table of nodes: read-only, a row at a time, sortable, first sorted by `column`.
// `widest` (the column of the longest text: names, notes) takes the width the others leave.
inline void setUpNodeTable(QTableWidget* table, int column, Qt::SortOrder order, int widest) {
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(widest, QHeaderView::Stretch);
    table->setSortingEnabled(true);
    table->sortByColumn(column, order);
}

} // namespace fxview
