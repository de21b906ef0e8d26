#pragma once
// The Cost dock: what each node of the run cost (docs/cost.md). A sortable table (node, scope,
// time and its spread, share of the whole, new memory or view/in-place, the live set once it
// ran, FLOPs), the figure the graph is coloured by with its scale, the totals and the live set's
// peak and what is alive there, Export CSV. It runs nothing: the window hands it the shown graph's
// records (showRun) and, after Run ▸ Profile…, every node's times over the runs; it colours the
// scene with boxMarks().

#include <QColor>
#include <QHash>
#include <QList>
#include <QPair>
#include <QWidget>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "CostTable.h"
#include "Graph.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace fxview {

class CostLegend;
class PeakList;

// What the graph is coloured by.
enum class CostMeasure { None, Time, Memory, LiveSet, Flops, Operators };

class CostPanel : public QWidget {
    Q_OBJECT
public:
    explicit CostPanel(QWidget* parent = nullptr);

    using RecordLookup = std::function<const NodeRecord*(const std::string&)>;
    using NodeTimesByName = std::unordered_map<std::string, std::vector<double>>;
    // The run as it is now: a row per node of `graph`; `times` each node's times over `runs`
    // profiled runs (empty: the last run's own time).
    void showRun(const Graph& graph, const RecordLookup& records, const NodeTimesByName& times,
                 int runs);
    const CostTable& table() const { return table_; }
    // torch.profiler's operators of each node (Profile… with its run, or a trace imported;
    // empty: none), shown in the Operators column, and whether Export Trace… has a trace to
    // write.
    void showOperators(const OperatorsByNode& operators, bool traceAvailable);
    // What is alive at the run's peak, beside the table (PeakList.h).
    void showPeak(const PeakLive& peak, bool shown);
    PeakList* peakList() const { return peakList_; }

    CostMeasure measure() const { return measure_; }
    void setMeasure(CostMeasure measure);
    // A node's figure under the measure (0 for None or a node not run).
    static double figure(const CostRow& row, CostMeasure measure);
    // The figure of each drawn box: a box that stands for several nodes (a closed scope) takes
    // their sum, its live set their largest; `drawnAs` names the box a node is drawn as.
    QList<QPair<QString, double>>
    boxFigures(const std::function<QString(const QString&)>& drawnAs) const;
    // Each drawn box's colour under the measure, on a log scale from the smallest figure above 0
    // to the largest; a box whose figure is 0 is grey. Empty for None. The legend takes the
    // boxes' scale.
    QList<QPair<QString, QColor>> boxMarks(const std::function<QString(const QString&)>& drawnAs);
    // What each drawn box's colour stands for, by box: its figure as describe() says it (none
    // for 0, which the box's grey says).
    QHash<QString, QString> boxNotes(const std::function<QString(const QString&)>& drawnAs) const;
    // "3.25 ms (12.4%)", "1.50 MiB", "2.31 G FLOPs": a figure under the measure.
    QString describe(double figure) const;

    // Selects `node`'s row as the graph's selection moves, without saying so back.
    void showNode(const QString& node);
    // Writes the table as CSV (CostTable.h's costCsv); "" or why it could not.
    QString exportCsv(const QString& path) const;
    QString statusText() const; // totals, runs, the live set's peak
    QTableWidget* tableWidget() const { return tableWidget_; }

signals:
    void nodeChosen(const QString& node);
    void measureChanged();    // the graph takes other colours (or none)
    void profileWanted();     // Profile…: Run ▸ Profile…
    void exportWanted();      // Export CSV…
    void traceExportWanted(); // Export Trace…: the profiler's Chrome trace
    void traceImportWanted(); // Import Trace…: a person's own torch.profiler trace

private:
    void fillTable();

    CostTable table_;
    CostMeasure measure_ = CostMeasure::None;
    QLabel* title_;
    QComboBox* measureBox_;
    QPushButton* profileButton_;
    QPushButton* exportButton_;
    QPushButton* traceButton_;
    QPushButton* importButton_;
    CostLegend* legend_;
    QTableWidget* tableWidget_;
    PeakList* peakList_;
    QLabel* status_;
};

} // namespace fxview
