#include "panels/PeakList.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include "CostTable.h"
#include "panels/TableParts.h"

namespace fxview {

namespace {

enum Column { ValueColumn, BytesColumn, ShareColumn, ColumnCount };

} // namespace

PeakList::PeakList(QWidget* parent) : QWidget(parent) {
    heading_ = new QLabel(this);
    heading_->setWordWrap(true);
    heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setHorizontalHeaderLabels({tr("Alive at the peak"), tr("Memory"), tr("Share")});
    setUpNodeTable(table_, BytesColumn, Qt::DescendingOrder, ValueColumn);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->setWordWrap(false);
    table_->setToolTip(tr("Every value a later node still reads once the peak's node has run; "
                          "a value that shares an earlier one's storage holds 0 more"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading_);
    layout->addWidget(table_, 1);
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        QList<QTableWidgetItem*> items = table_->selectedItems();
        if (!items.isEmpty())
            emit nodeChosen(table_->item(items.first()->row(), ValueColumn)->text());
    });
    showPeak({});
}

void PeakList::showPeak(const PeakLive& peak, bool shown) {
    QSignalBlocker quiet(table_);
    table_->setSortingEnabled(false);
    table_->setRowCount(0);
    if (peak.values.empty() || peak.bytes <= 0) {
        heading_->setText(tr("What is alive at the live set's peak shows once a node has run."));
        return;
    }
    heading_->setText(
        (shown ? tr("Peak live set %1 after %2: %3 alive there, the largest first.")
               : tr("The model's peak live set %1 after %2 (the graph shown is a module stepped "
                    "into): %3 alive there."))
            .arg(QString::fromStdString(formatBytes(peak.bytes)), QString::fromStdString(peak.node),
                 peak.values.size() == 1 ? tr("1 value")
                                         : tr("%1 values").arg(peak.values.size())));
    table_->setRowCount(static_cast<int>(peak.values.size()));
    int row = 0;
    for (const LiveValue& v : peak.values) {
        table_->setItem(row, ValueColumn, new QTableWidgetItem(QString::fromStdString(v.node)));
        table_->setItem(row, BytesColumn,
                        new NumberItem(QString::fromStdString(formatBytes(v.bytes)),
                                       static_cast<double>(v.bytes)));
        const double share = 100.0 * static_cast<double>(v.bytes) / static_cast<double>(peak.bytes);
        table_->setItem(row, ShareColumn,
                        new NumberItem(QString("%1%").arg(share, 0, 'f', 1), share));
        ++row;
    }
    table_->setSortingEnabled(true);
    table_->resizeColumnToContents(ValueColumn);
    table_->resizeColumnToContents(BytesColumn);
}

QString PeakList::heading() const {
    return heading_->text();
}

} // namespace fxview
