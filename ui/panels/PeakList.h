#pragma once
// What is alive where the live set peaks (docs/cost.md), beside the Cost dock's table: every
// value a later node still reads once the peak's node has run, with the bytes it holds that no
// value made before it holds and its share of the peak, the largest first. The engines find it
// (RunState::peak); a row selects the node that made the value.

#include <QWidget>

#include "RunRecord.h"

class QLabel;
class QTableWidget;

namespace fxview {

class PeakList : public QWidget {
    Q_OBJECT
public:
    explicit PeakList(QWidget* parent = nullptr);

    // The run's peak so far; `shown` false when the graph shown is not the one it is of (a
    // module stepped into), which the heading then says.
    void showPeak(const PeakLive& peak, bool shown = true);
    QTableWidget* tableWidget() const { return table_; }
    QString heading() const;

signals:
    void nodeChosen(const QString& node);

private:
    QLabel* heading_;
    QTableWidget* table_;
};

} // namespace fxview
