#include "panels/ComparisonPanel.h"

#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "panels/TableParts.h"

namespace fxview {

namespace {

const QColor kEqual(0xd9, 0xf0, 0xd3);
const QColor kBroken(0xdd, 0x34, 0x97); // not finite, or shapes that differ

// "How different" on one scale for every metric: cosine as 1 - cos, SQNR as the relative noise
// 10^(-dB/20) it stands for.
double asMagnitude(Metric metric, double value) {
    if (metric == Metric::Cosine)
        return 1 - value;
    if (metric == Metric::Sqnr)
        return std::pow(10.0, -value / 20);
    return value;
}

enum Column {
    NodeColumn,
    OpColumn,
    FirstMetricColumn,
    NoteColumn = FirstMetricColumn + kMetricCount
};

} // namespace

// The colours' meaning, drawn in one line: equal, the scale from its smallest to its largest
// difference with the threshold marked, not finite.
class ComparisonLegend : public QWidget {
public:
    explicit ComparisonLegend(QWidget* parent) : QWidget(parent) {
        setMinimumHeight(fontMetrics().height() * 2 + 6);
        setMinimumWidth(360);
    }
    void setScale(double low, double high, double threshold, Metric metric) {
        low_ = low;
        high_ = high;
        threshold_ = threshold;
        metric_ = metric;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        QFontMetrics fm = fontMetrics();
        int h = fm.height(), y = 2, x = 0;
        auto swatch = [&](const QColor& c, const QString& label) {
            p.fillRect(x, y, h, h, c);
            p.setPen(palette().color(QPalette::WindowText));
            p.drawRect(x, y, h, h);
            p.drawText(x + h + 4, y + fm.ascent(), label);
            x += h + 12 + fm.horizontalAdvance(label);
        };
        swatch(kEqual, tr("equal"));
        int barWidth = std::max(120, width() - x - fm.horizontalAdvance(tr("not finite")) - h - 40);
        paintHeatBar(p, QRect(x, y, barWidth, h), palette().color(QPalette::WindowText));
        auto label = [&](double magnitude, Qt::Alignment align) {
            double value = metric_ == Metric::Cosine ? 1 - magnitude
                           : metric_ == Metric::Sqnr ? -20 * std::log10(magnitude)
                                                     : magnitude;
            QString text = QString::fromStdString(formatMetric(value, metric_));
            double t = std::log(magnitude / low_) / std::log(high_ / low_);
            int at = x + static_cast<int>(std::clamp(t, 0.0, 1.0) * barWidth);
            int w = fm.horizontalAdvance(text);
            int left = align == Qt::AlignLeft ? at : align == Qt::AlignRight ? at - w : at - w / 2;
            p.drawText(std::clamp(left, x, x + barWidth - w), y + h + fm.ascent() + 2, text);
            return at;
        };
        label(low_, Qt::AlignLeft);
        label(high_, Qt::AlignRight);
        double t = asMagnitude(metric_, threshold_);
        if (t > low_ && t < high_) {
            int at = label(t, Qt::AlignHCenter);
            p.setPen(QPen(palette().color(QPalette::WindowText), 2));
            p.drawLine(at, y - 1, at, y + h + 1);
        }
        x += barWidth + 12;
        swatch(kBroken, tr("not finite"));
    }

private:
    double low_ = 1e-8, high_ = 1, threshold_ = 1e-3;
    Metric metric_ = Metric::RelL2;
};

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent) {
    title_ = new QLabel(tr("No comparison yet: Run ▸ Compare Runs… runs B beside A."), this);
    title_->setWordWrap(true);
    metricBox_ = new QComboBox(this);
    for (int m = 0; m < kMetricCount; ++m)
        metricBox_->addItem(metricTitle(static_cast<Metric>(m)), m);
    metricBox_->setCurrentIndex(static_cast<int>(Metric::RelL2));
    metricBox_->setToolTip(tr("The metric the graph is coloured by and divergence is judged by"));
    thresholdEdit_ = new QLineEdit(this);
    thresholdEdit_->setValidator(new QDoubleValidator(thresholdEdit_));
    thresholdEdit_->setMaximumWidth(90);
    thresholdEdit_->setToolTip(tr("Diverged past this (below it for cosine and SQNR)"));
    firstButton_ = new QPushButton(tr("Go to First Divergence"), this);
    clearButton_ = new QPushButton(tr("Clear"), this);
    legend_ = new ComparisonLegend(this);
    table_ = new QTableWidget(0, NoteColumn + 1, this);
    QStringList headers = {tr("Node"), tr("Op")};
    for (int m = 0; m < kMetricCount; ++m)
        headers << metricTitle(static_cast<Metric>(m));
    headers << tr("Note");
    table_->setHorizontalHeaderLabels(headers);
    setUpNodeTable(table_, NodeColumn, Qt::AscendingOrder, NoteColumn);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Colour by"), this));
    controls->addWidget(metricBox_);
    controls->addWidget(new QLabel(tr("diverged past"), this));
    controls->addWidget(thresholdEdit_);
    controls->addWidget(firstButton_);
    controls->addWidget(legend_, 1);
    controls->addWidget(clearButton_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(title_);
    layout->addLayout(controls);
    layout->addWidget(table_, 1);
    layout->addWidget(status_);
    setThreshold(threshold_);

    connect(metricBox_, &QComboBox::activated, this, [this](int index) {
        setMetric(static_cast<Metric>(metricBox_->itemData(index).toInt()));
    });
    connect(thresholdEdit_, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        double value = QLocale().toDouble(thresholdEdit_->text(), &ok);
        if (ok && std::isfinite(value))
            setThreshold(value);
    });
    connect(firstButton_, &QPushButton::clicked, this, [this] { goToFirstDivergence(); });
    connect(clearButton_, &QPushButton::clicked, this, [this] {
        clear();
        emit cleared();
    });
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        QList<QTableWidgetItem*> items = table_->selectedItems();
        if (!items.isEmpty())
            emit nodeChosen(table_->item(items.first()->row(), NodeColumn)->text());
    });
    clear();
}

// The table's selection changes as it is taken apart: no row is chosen then.
ComparisonPanel::~ComparisonPanel() {
    table_->disconnect(this);
}

void ComparisonPanel::setReport(const ComparisonReport& report, Metric metric, double threshold) {
    report_ = report;
    hasReport_ = true;
    metric_ = metric;
    threshold_ = threshold;
    metricBox_->setCurrentIndex(static_cast<int>(metric));
    thresholdEdit_->setText(QString::fromStdString(formatMetric(threshold, metric)));
    title_->setText(
        tr("A: %1, %2\nB: %3, %4\n%5")
            .arg(QString::fromStdString(report.modelA), QString::fromStdString(report.runA),
                 QString::fromStdString(report.modelB), QString::fromStdString(report.runB),
                 report.local ? tr("Local: each of B's nodes fed A's values (its own "
                                   "error)")
                              : tr("Accumulated: each run on its own")));
    for (QWidget* w :
         std::initializer_list<QWidget*>{metricBox_, thresholdEdit_, firstButton_, clearButton_})
        w->setEnabled(true);
    updateScale();
    fillTable();
}

void ComparisonPanel::clear() {
    report_ = {};
    hasReport_ = false;
    table_->setRowCount(0);
    status_->clear();
    title_->setText(tr("No comparison yet: Run ▸ Compare Runs… runs B beside A."));
    for (QWidget* w :
         std::initializer_list<QWidget*>{metricBox_, thresholdEdit_, firstButton_, clearButton_})
        w->setEnabled(false);
}

void ComparisonPanel::setMetric(Metric metric) {
    metric_ = metric;
    metricBox_->setCurrentIndex(static_cast<int>(metric));
    setThreshold(defaultThreshold(metric));
}

void ComparisonPanel::setThreshold(double threshold) {
    threshold_ = threshold;
    thresholdEdit_->setText(QString::fromStdString(formatMetric(threshold, metric_)));
    if (!hasReport_)
        return;
    updateScale();
    fillTable();
    emit marksChanged();
}

double ComparisonPanel::magnitude(const NodeDifference& node) const {
    return asMagnitude(metric_, node.metric(metric_));
}

void ComparisonPanel::updateScale() {
    double low = INFINITY, high = 0;
    for (const NodeDifference& n : report_.nodes) {
        double m = magnitude(n);
        if (!n.compared || !std::isfinite(m) || m <= 0)
            continue;
        low = std::min(low, m);
        high = std::max(high, m);
    }
    double t = asMagnitude(metric_, threshold_);
    if (!(high > 0)) // nothing differs: a scale around the threshold
        low = t / 100, high = t * 100;
    low = std::min(low, t > 0 ? t : low);
    high = std::max({high, low * 10, t});
    low_ = low;
    high_ = high;
    legend_->setScale(low_, high_, threshold_, metric_);
}

QColor ComparisonPanel::colourOf(const NodeDifference& node) const {
    if (node.mismatch)
        return kBroken;
    if (!node.compared)
        return {};
    double m = magnitude(node);
    if (std::isnan(m) || (std::isinf(m) && !(metric_ == Metric::Sqnr && m == 0)))
        return kBroken;
    if (m <= 0)
        return kEqual;
    return heatColour(std::log(m / low_) / std::log(high_ / low_));
}

QList<QPair<QString, QColor>> ComparisonPanel::nodeMarks() const {
    std::vector<const NodeDifference*> order;
    for (const NodeDifference& n : report_.nodes)
        if (colourOf(n).isValid())
            order.push_back(&n);
    auto rank = [this](const NodeDifference* n) {
        double m = magnitude(*n);
        return n->mismatch || std::isnan(m) ? INFINITY : m;
    };
    std::stable_sort(
        order.begin(), order.end(),
        [&](const NodeDifference* a, const NodeDifference* b) { return rank(a) < rank(b); });
    QList<QPair<QString, QColor>> marks;
    for (const NodeDifference* n : order)
        marks.append({QString::fromStdString(n->node), colourOf(*n)});
    return marks;
}

void ComparisonPanel::fillTable() {
    table_->setSortingEnabled(false);
    table_->setRowCount(static_cast<int>(report_.nodes.size()));
    int first = report_.firstDivergence(metric_, threshold_);
    for (int row = 0; row < static_cast<int>(report_.nodes.size()); ++row) {
        const NodeDifference& n = report_.nodes[static_cast<std::size_t>(row)];
        QString name = QString::fromStdString(n.node);
        if (n.nodeB != n.node)
            name += QString::fromStdString(" ~ " + n.nodeB);
        auto* nameItem = new NumberItem(QString::fromStdString(n.node), row); // graph order
        nameItem->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        nameItem->setToolTip(name + "\n" + QString::fromStdString(n.shapeA + " " + n.dtypeA) +
                             " | " + QString::fromStdString(n.shapeB + " " + n.dtypeB));
        QColor colour = colourOf(n);
        if (colour.isValid())
            nameItem->setData(Qt::DecorationRole, colour);
        if (row == first) {
            QFont bold = nameItem->font();
            bold.setBold(true);
            nameItem->setFont(bold);
        }
        table_->setItem(row, NodeColumn, nameItem);
        table_->setItem(row, OpColumn, new QTableWidgetItem(QString::fromStdString(n.op)));
        for (int m = 0; m < kMetricCount; ++m) {
            auto metric = static_cast<Metric>(m);
            double value = n.compared ? n.metric(metric) : NAN;
            QString text = n.compared ? QString::fromStdString(formatMetric(value, metric)) : "-";
            // Sorted by how different, whatever the metric: cosine and SQNR fall as runs part.
            auto* item = new NumberItem(text, n.compared ? asMagnitude(metric, value) : NAN);
            if (metric == metric_ && colour.isValid())
                item->setBackground(colour);
            if (metric == metric_ && colour.isValid())
                item->setForeground(QColor(Qt::black));
            table_->setItem(row, FirstMetricColumn + m, item);
        }
        QString note = QString::fromStdString(n.note);
        if (n.diverges(metric_, threshold_))
            note = note.isEmpty() ? tr("diverges") : tr("diverges: %1").arg(note);
        table_->setItem(row, NoteColumn, new QTableWidgetItem(note));
    }
    table_->setSortingEnabled(true);
    // The order the person chose (graph order at first: the Node column sorts by it).
    table_->sortByColumn(table_->horizontalHeader()->sortIndicatorSection(),
                         table_->horizontalHeader()->sortIndicatorOrder());
    table_->resizeColumnsToContents();
    status_->setText(statusText());
}

QString ComparisonPanel::statusText() const {
    if (!hasReport_)
        return {};
    QStringList lines;
    lines << QString::fromStdString(divergenceLine(report_, metric_, threshold_));
    auto names = [](const std::vector<std::string>& list) {
        QStringList out;
        for (const std::string& n : list)
            out << QString::fromStdString(n);
        return out.join(", ");
    };
    if (!report_.onlyA.empty())
        lines << tr("Only in A: %1").arg(names(report_.onlyA));
    if (!report_.onlyB.empty())
        lines << tr("Only in B: %1").arg(names(report_.onlyB));
    if (!report_.failure.empty())
        lines << QString::fromStdString(report_.failure);
    return lines.join("\n");
}

void ComparisonPanel::showNode(const QString& node) {
    QSignalBlocker quiet(table_);
    table_->clearSelection();
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, NodeColumn)->text() == node) {
            table_->selectRow(row);
            table_->scrollToItem(table_->item(row, NodeColumn));
            return;
        }
}

bool ComparisonPanel::goToFirstDivergence() {
    int first = report_.firstDivergence(metric_, threshold_);
    if (first < 0) {
        status_->setText(statusText());
        return false;
    }
    QString node = QString::fromStdString(report_.nodes[static_cast<std::size_t>(first)].node);
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, NodeColumn)->text() == node) {
            table_->clearSelection();
            table_->selectRow(row); // nodeChosen, through the selection
            table_->scrollToItem(table_->item(row, NodeColumn));
            break;
        }
    return true;
}

} // namespace fxview
