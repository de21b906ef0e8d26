#pragma once
// The strip under the graph while the Cost dock is open: the live set (docs/cost.md) after each
// node that ran, in the order they ran, as a filled line from 0 to the peak; the peak marked and
// named, the selected node a vertical line. A click (or a drag) selects the node under it.

#include <QStringList>
#include <QVector>
#include <QWidget>

#include "CostTable.h"

namespace fxview {

class MemoryStrip : public QWidget {
    Q_OBJECT
public:
    explicit MemoryStrip(QWidget* parent = nullptr);

    // The rows of `table` that ran, in its order, weights left out.
    void setTable(const CostTable& table);
    void setSelected(const QString& node);
    // The node drawn at x (widget coordinates), or "" where none is.
    QString nodeAt(int x) const;
    int peakIndex() const { return peak_; }
    const QStringList& nodes() const { return nodes_; }
    QSize sizeHint() const override { return {400, 72}; }

signals:
    void nodeChosen(const QString& node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRect plotArea() const;
    double xOf(int index) const;

    QStringList nodes_;
    QVector<qint64> live_;
    int peak_ = -1;
    QString selected_;
};

} // namespace fxview
