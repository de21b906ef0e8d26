#include "panels/CostPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStringList>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "panels/PeakList.h"
#include "panels/TableParts.h"

namespace fxview {

namespace {

const QColor kNothing(0xe4, 0xe4, 0xe4); // a box whose figure is 0: no FLOPs, a view

enum Column {
    NodeColumn,
    OpColumn,
    ScopeColumn,
    TimeColumn,
    SpreadColumn,
    ShareColumn,
    OperatorsColumn,
    MemoryColumn,
    LiveColumn,
    FlopsColumn,
    ColumnCount
};

// "106.9 – 723.9 µs": a spread in the unit of its larger end.
QString spread(double low, double high) {
    return high < 1000
               ? QString("%1 – %2 µs").arg(low, 0, 'f', 1).arg(high, 0, 'f', 1)
               : QString("%1 – %2 ms").arg(low / 1000, 0, 'f', 2).arg(high / 1000, 0, 'f', 2);
}

QString microseconds(double us) {
    return us < 1000 ? QString("%1 µs").arg(us, 0, 'f', 1)
                     : QString("%1 ms").arg(us / 1000, 0, 'f', 2);
}

QString bytes(std::int64_t n) {
    return QString::fromStdString(formatBytes(n));
}

QString flops(std::int64_t n) {
    return QString::fromStdString(formatFlops(n));
}

// A node's operators as its Operators cell's tooltip: "aten::addmm  20.1 µs", a line each.
QString operatorList(const std::vector<OperatorTime>& operators) {
    QStringList lines;
    for (const OperatorTime& o : operators)
        lines << QString("%1  %2%3%4")
                     .arg(QString::fromStdString(o.name), microseconds(o.selfUs),
                          o.deviceUs > 0
                              ? QString(" + %1 on the device").arg(microseconds(o.deviceUs))
                              : QString(),
                          o.calls > 1 ? QString(" (%1 calls)").arg(o.calls) : QString());
    return lines.join('\n');
}

// The smallest figure above 0 and the largest, the colour scale's ends.
std::pair<double, double> scaleOf(const QList<QPair<QString, double>>& figures) {
    double low = 0, high = 0;
    for (const auto& f : figures)
        if (f.second > 0) {
            low = low > 0 ? std::min(low, f.second) : f.second;
            high = std::max(high, f.second);
        }
    return {low, high};
}

double position(double figure, double low, double high) {
    return high > low ? std::log(figure / low) / std::log(high / low) : 1.0;
}

} // namespace

// The colours' meaning in one line: grey for 0, then the scale from the smallest figure to the
// largest (log).
class CostLegend : public QWidget {
public:
    explicit CostLegend(QWidget* parent) : QWidget(parent) {
        setMinimumHeight(fontMetrics().height() * 2 + 6);
        setMinimumWidth(300);
    }
    const QString& zero() const { return zero_; }
    void setScale(const QString& zero, const QString& low, const QString& high) {
        zero_ = zero;
        low_ = low;
        high_ = high;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        if (low_.isEmpty())
            return;
        QPainter p(this);
        QFontMetrics fm = fontMetrics();
        int h = fm.height(), y = 2, x = 0;
        p.fillRect(x, y, h, h, kNothing);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawRect(x, y, h, h);
        p.drawText(x + h + 4, y + fm.ascent(), zero_);
        x += h + 16 + fm.horizontalAdvance(zero_);
        int barWidth = std::max(120, width() - x - 8);
        paintHeatBar(p, QRect(x, y, barWidth, h), palette().color(QPalette::WindowText));
        p.drawText(x, y + h + fm.ascent() + 2, low_);
        p.drawText(x + barWidth - fm.horizontalAdvance(high_), y + h + fm.ascent() + 2, high_);
    }

private:
    QString zero_, low_, high_;
};

CostPanel::CostPanel(QWidget* parent) : QWidget(parent) {
    title_ = new QLabel(tr("No run yet: step or Continue, or Run ▸ Profile… for times over "
                           "several runs."),
                        this);
    title_->setWordWrap(true);
    measureBox_ = new QComboBox(this);
    measureBox_->addItem(tr("Nothing"), static_cast<int>(CostMeasure::None));
    measureBox_->addItem(tr("Time"), static_cast<int>(CostMeasure::Time));
    measureBox_->addItem(tr("Memory"), static_cast<int>(CostMeasure::Memory));
    measureBox_->addItem(tr("Live set"), static_cast<int>(CostMeasure::LiveSet));
    measureBox_->addItem(tr("FLOPs"), static_cast<int>(CostMeasure::Flops));
    measureBox_->addItem(tr("Operators' time"), static_cast<int>(CostMeasure::Operators));
    measureBox_->setToolTip(tr("What the graph's boxes are coloured by; a closed scope shows "
                               "the sum of its nodes (its largest live set)"));
    profileButton_ = new QPushButton(tr("Profile…"), this);
    profileButton_->setToolTip(tr("Run the model several times and take each node's median "
                                  "time (Run ▸ Profile…)"));
    exportButton_ = new QPushButton(tr("Export CSV…"), this);
    traceButton_ = new QPushButton(tr("Export Trace…"), this);
    traceButton_->setToolTip(tr("The torch.profiler run's Chrome trace, each node a range "
                                "fxview::NODE over its operators (Perfetto, chrome://tracing)"));
    traceButton_->setEnabled(false);
    importButton_ = new QPushButton(tr("Import Trace…"), this);
    importButton_->setToolTip(tr("Lay a torch.profiler trace you made of this model's run "
                                 "(prof.export_chrome_trace) onto its nodes: each node's "
                                 "operators and their own time, in the Operators column"));
    legend_ = new CostLegend(this);
    tableWidget_ = new QTableWidget(0, ColumnCount, this);
    tableWidget_->setHorizontalHeaderLabels({tr("Node"), tr("Op"), tr("Scope"), tr("Time"),
                                             tr("Spread"), tr("Share"), tr("Operators"),
                                             tr("Memory"), tr("Live set"), tr("FLOPs")});
    tableWidget_->horizontalHeaderItem(OperatorsColumn)
        ->setToolTip(tr("The own time of the operators torch.profiler recorded inside the node, "
                        "in the one profiled run (hover a cell for them)"));
    tableWidget_->setColumnHidden(OperatorsColumn, true);
    setUpNodeTable(tableWidget_, TimeColumn, Qt::DescendingOrder, // the slowest first
                   NodeColumn);
    tableWidget_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    tableWidget_->setWordWrap(false);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Colour by"), this));
    controls->addWidget(measureBox_);
    controls->addWidget(legend_, 1);
    controls->addWidget(profileButton_);
    controls->addWidget(exportButton_);
    controls->addWidget(importButton_);
    controls->addWidget(traceButton_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(title_);
    layout->addLayout(controls);
    peakList_ = new PeakList(this);
    // Beside the table, not under it: the dock is wide and short.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(tableWidget_);
    split->addWidget(peakList_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    layout->addWidget(status_);

    connect(measureBox_, &QComboBox::activated, this, [this](int index) {
        setMeasure(static_cast<CostMeasure>(measureBox_->itemData(index).toInt()));
    });
    connect(profileButton_, &QPushButton::clicked, this, &CostPanel::profileWanted);
    connect(exportButton_, &QPushButton::clicked, this, &CostPanel::exportWanted);
    connect(traceButton_, &QPushButton::clicked, this, &CostPanel::traceExportWanted);
    connect(importButton_, &QPushButton::clicked, this, &CostPanel::traceImportWanted);
    connect(peakList_, &PeakList::nodeChosen, this, &CostPanel::nodeChosen);
    connect(tableWidget_, &QTableWidget::itemSelectionChanged, this, [this] {
        QList<QTableWidgetItem*> items = tableWidget_->selectedItems();
        if (!items.isEmpty())
            emit nodeChosen(tableWidget_->item(items.first()->row(), NodeColumn)->text());
    });
}

void CostPanel::showRun(const Graph& graph, const RecordLookup& records,
                        const NodeTimesByName& times, int runs) {
    table_ = makeCostTable(graph, records, times, std::max(runs, 1));
    fillTable();
}

void CostPanel::showOperators(const OperatorsByNode& operators, bool traceAvailable) {
    traceButton_->setEnabled(traceAvailable);
    if (operators.empty() && !hasOperators(table_))
        return; // the usual run update: the table is filled already
    addOperators(table_, operators);
    fillTable();
}

void CostPanel::showPeak(const PeakLive& peak, bool shown) {
    table_.peakLive = peak;
    peakList_->showPeak(peak, shown);
}

void CostPanel::setMeasure(CostMeasure measure) {
    measure_ = measure;
    if (int at = measureBox_->findData(static_cast<int>(measure)); at >= 0)
        measureBox_->setCurrentIndex(at);
    fillTable(); // the legend's ends
    emit measureChanged();
}

double CostPanel::figure(const CostRow& row, CostMeasure measure) {
    if (!row.ran && measure != CostMeasure::Operators) // an imported trace's need no run
        return 0;
    switch (measure) {
    case CostMeasure::None:
        return 0;
    case CostMeasure::Time:
        return row.time.median;
    case CostMeasure::Memory:
        return static_cast<double>(row.bytes);
    case CostMeasure::LiveSet:
        return static_cast<double>(row.liveBytes);
    case CostMeasure::Flops:
        return static_cast<double>(row.flops);
    case CostMeasure::Operators:
        return row.operatorUs;
    }
    return 0;
}

QList<QPair<QString, double>>
CostPanel::boxFigures(const std::function<QString(const QString&)>& drawnAs) const {
    QList<QPair<QString, double>> figures;
    QHash<QString, qsizetype> at;
    for (const CostRow& row : table_.rows) {
        if (!row.ran && (measure_ != CostMeasure::Operators || row.operators.empty()))
            continue;
        QString box = drawnAs(QString::fromStdString(row.node));
        if (box.isEmpty())
            continue;
        double f = figure(row, measure_);
        if (auto it = at.find(box); it != at.end()) {
            double& sum = figures[*it].second;
            sum = measure_ == CostMeasure::LiveSet ? std::max(sum, f) : sum + f;
        } else {
            at.insert(box, figures.size());
            figures.append({box, f});
        }
    }
    return figures;
}

QList<QPair<QString, QColor>>
CostPanel::boxMarks(const std::function<QString(const QString&)>& drawnAs) {
    QList<QPair<QString, QColor>> marks;
    if (measure_ == CostMeasure::None)
        return marks;
    const QList<QPair<QString, double>> figures = boxFigures(drawnAs);
    auto [low, high] = scaleOf(figures);
    if (high > 0)
        legend_->setScale(legend_->zero(), describe(low), describe(high));
    for (const auto& [box, f] : figures)
        marks.append({box, f > 0 ? heatColour(position(f, low, high)) : kNothing});
    return marks;
}

QHash<QString, QString>
CostPanel::boxNotes(const std::function<QString(const QString&)>& drawnAs) const {
    QHash<QString, QString> notes;
    if (measure_ != CostMeasure::None)
        for (const auto& [box, f] : boxFigures(drawnAs))
            if (f > 0) // grey says 0 already
                notes.insert(box, describe(f));
    return notes;
}

QString CostPanel::describe(double figure) const {
    switch (measure_) {
    case CostMeasure::Operators:
        return microseconds(figure);
    case CostMeasure::Time: {
        double total = table_.totalUs();
        return microseconds(figure) +
               (total > 0 ? QString(" (%1%)").arg(100 * figure / total, 0, 'f', 1) : QString());
    }
    case CostMeasure::Memory:
    case CostMeasure::LiveSet:
        return bytes(static_cast<std::int64_t>(figure));
    case CostMeasure::Flops:
        return flops(static_cast<std::int64_t>(figure)) + " FLOPs";
    case CostMeasure::None:
        break;
    }
    return {};
}

void CostPanel::fillTable() {
    const double total = table_.totalUs();
    QSignalBlocker quiet(tableWidget_);
    tableWidget_->setSortingEnabled(false);
    tableWidget_->setRowCount(0);
    int ran = 0, shown = 0;
    for (const CostRow& r : table_.rows) {
        if (!r.ran && r.operators.empty()) // a trace imported before any run has its operators
            continue;
        ++shown;
        int row = tableWidget_->rowCount();
        tableWidget_->insertRow(row);
        tableWidget_->setItem(row, NodeColumn,
                              new QTableWidgetItem(QString::fromStdString(r.node)));
        tableWidget_->setItem(row, OpColumn, new QTableWidgetItem(QString::fromStdString(r.op)));
        tableWidget_->setItem(row, ScopeColumn,
                              new QTableWidgetItem(QString::fromStdString(r.scope)));
        tableWidget_->setItem(
            row, TimeColumn,
            new NumberItem(r.ran ? microseconds(r.time.median) : QString(), r.time.median));
        tableWidget_->setItem(
            row, SpreadColumn,
            new NumberItem(r.time.runs > 1 ? spread(r.time.min, r.time.max) : QString(),
                           r.time.max - r.time.min));
        double share = total > 0 ? 100 * r.time.median / total : 0;
        tableWidget_->setItem(
            row, ShareColumn,
            new NumberItem(r.ran ? QString("%1%").arg(share, 0, 'f', 1) : QString(), share));
        auto* operators = new NumberItem(
            r.operators.empty() ? QString() : microseconds(r.operatorUs), r.operatorUs);
        operators->setToolTip(operatorList(r.operators));
        tableWidget_->setItem(row, OperatorsColumn, operators);
        if (!r.ran)
            continue; // its other figures come with a run
        tableWidget_->setItem(row, MemoryColumn,
                              new NumberItem(r.aliasKind.empty()
                                                 ? bytes(r.bytes)
                                                 : QString::fromStdString(r.aliasKind),
                                             static_cast<double>(r.bytes)));
        tableWidget_->setItem(row, LiveColumn,
                              new NumberItem(bytes(r.liveBytes), static_cast<double>(r.liveBytes)));
        tableWidget_->setItem(row, FlopsColumn,
                              new NumberItem(flops(r.flops), static_cast<double>(r.flops)));
        ++ran;
    }
    tableWidget_->setSortingEnabled(true);
    tableWidget_->setColumnHidden(OperatorsColumn, !hasOperators(table_));
    title_->setText(ran == 0 && shown > 0
                        ? tr("No run yet: the operators are the imported trace's; step or "
                             "Continue, or Run ▸ Profile…, for the other figures.")
                    : ran == 0 ? tr("No run yet: step or Continue, or Run ▸ Profile… for times "
                                    "over several runs.")
                    : table_.runs > 1 ? tr("%1 nodes ran; times are each node's median over %2 "
                                           "profiled runs.")
                                            .arg(ran)
                                            .arg(table_.runs)
                                      : tr("%1 nodes ran; times are the last run's (Profile… takes "
                                           "each node's median over several).")
                                            .arg(ran));
    status_->setText(statusText());
    if (measure_ == CostMeasure::None || shown == 0) {
        legend_->setScale({}, {}, {});
        return;
    }
    QList<QPair<QString, double>> figures;
    for (const CostRow& r : table_.rows)
        figures.append({QString(), figure(r, measure_)});
    auto [low, high] = scaleOf(figures);
    legend_->setScale(measure_ == CostMeasure::Memory ? tr("0 (a view, in-place)") : tr("0"),
                      describe(low), describe(high));
}

void CostPanel::showNode(const QString& node) {
    QSignalBlocker quiet(tableWidget_);
    tableWidget_->clearSelection();
    QList<QTableWidgetItem*> found = tableWidget_->findItems(node, Qt::MatchExactly);
    for (QTableWidgetItem* item : found)
        if (item->column() == NodeColumn) {
            tableWidget_->selectRow(item->row());
            tableWidget_->scrollToItem(item);
            return;
        }
}

QString CostPanel::exportCsv(const QString& path) const {
    QSaveFile file(path);
    QByteArray csv = QByteArray::fromStdString(costCsv(table_));
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit())
        return tr("Cannot write %1: %2.").arg(path, file.errorString());
    return {};
}

QString CostPanel::statusText() const {
    int peak = table_.peak();
    if (peak < 0 || !table_.rows[static_cast<std::size_t>(peak)].ran)
        return {};
    const CostRow& p = table_.rows[static_cast<std::size_t>(peak)];
    return tr("Total %1 (%2), %3 FLOPs. Peak live set %4 after %5.")
        .arg(microseconds(table_.totalUs()),
             table_.runs > 1 ? tr("medians over %1 runs").arg(table_.runs) : tr("one run"),
             flops(table_.totalFlops()), bytes(p.liveBytes), QString::fromStdString(p.node));
}

} // namespace fxview
