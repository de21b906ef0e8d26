#pragma once
// The Comparison dock: two runs compared node by node (Run ▸ Compare Runs…). A sortable table of
// the matched nodes with the five metrics (Comparison.h), the metric the graph is coloured by and
// the threshold that counts as diverged, Go to First Divergence, a legend of the colours, and the
// nodes only one run has. It never runs anything: the window hands it a report (setReport) and
// colours the scene with nodeMarks().

#include <QColor>
#include <QList>
#include <QPair>
#include <QWidget>

#include "Comparison.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace fxview {

class ComparisonLegend;

class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonPanel(QWidget* parent = nullptr);
    ~ComparisonPanel() override;

    void setReport(const ComparisonReport& report, Metric metric, double threshold);
    void clear();
    bool hasReport() const { return hasReport_; }
    const ComparisonReport& report() const { return report_; }
    Metric metric() const { return metric_; }
    double threshold() const { return threshold_; }
    void setMetric(Metric metric);       // its default threshold with it
    void setThreshold(double threshold); // diverged past it

    // Each compared node's colour under the metric, least different first: where several nodes
    // share one box (a closed scope), the last one for it, the most different, wins.
    QList<QPair<QString, QColor>> nodeMarks() const;
    // A node's colour: pale green where equal, light yellow to red on a log scale between the
    // smallest and largest difference, magenta where not finite or mismatched.
    QColor colourOf(const NodeDifference& node) const;
    // Selects `node`'s row as the graph's selection moves, without saying so back (no row for a
    // node the comparison lacks).
    void showNode(const QString& node);
    // Selects the first diverging node's row and says so (nodeChosen); false if none diverges.
    bool goToFirstDivergence();
    QTableWidget* table() const { return table_; }
    QString statusText() const; // the line under the table: first divergence, nodes one side has

signals:
    void nodeChosen(const QString& node); // A's node, from the table or Go to First Divergence
    void marksChanged();                  // the metric or threshold changed the colours
    void cleared();                       // Clear: the graph loses its colours

private:
    void fillTable();
    void updateScale();
    double magnitude(const NodeDifference& node) const; // the metric as "how different", >= 0

    ComparisonReport report_;
    bool hasReport_ = false;
    Metric metric_ = Metric::RelL2;
    double threshold_ = defaultThreshold(Metric::RelL2);
    double low_ = 1e-8, high_ = 1; // the colour scale's ends (log)
    QLabel* title_;
    QComboBox* metricBox_;
    QLineEdit* thresholdEdit_;
    QPushButton* firstButton_;
    QPushButton* clearButton_;
    ComparisonLegend* legend_;
    QTableWidget* table_;
    QLabel* status_;
};

} // namespace fxview
