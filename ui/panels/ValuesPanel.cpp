#include "panels/ValuesPanel.h"

#include <QAbstractTableModel>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "panels/ValuePictures.h"

namespace fxview {

namespace {

// The table shows at most this window of a slice; the first row and column pick where it starts.
constexpr std::int64_t kTableRows = 512, kTableColumns = 128;

QString shapeText(const std::vector<std::int64_t>& shape) {
    return QString::fromStdString(formatShape(shape));
}

} // namespace

// The table's cells: one plane of a slice, its text as PyTorch would print the element, its
// background by value, the element's full index and (quantized) integer in the tooltip.
class ValueTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setSlice(std::shared_ptr<const ValueSlice> slice) {
        beginResetModel();
        slice_ = std::move(slice);
        range_ = slice_ ? ValueRange::of(*slice_) : ValueRange{};
        endResetModel();
    }
    int rowCount(const QModelIndex& = {}) const override {
        return slice_ ? static_cast<int>(slice_->request.rowCount) : 0;
    }
    int columnCount(const QModelIndex& = {}) const override {
        return slice_ ? static_cast<int>(slice_->request.colCount) : 0;
    }
    QVariant data(const QModelIndex& index, int role) const override {
        if (!slice_ || !index.isValid())
            return {};
        const int row = index.row(), col = index.column();
        switch (role) {
        case Qt::DisplayRole:
            return QString::fromStdString(slice_->text(0, row, col));
        case Qt::BackgroundRole:
            return cellColor(slice_->number(0, row, col), range_);
        case Qt::ForegroundRole:
            return QColor(Qt::black); // on the light cell colours in either theme
        case Qt::TextAlignmentRole:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ToolTipRole: {
            const ValueSliceRequest& r = slice_->request;
            std::vector<std::int64_t> at = r.index;
            if (r.rowAxis >= 0)
                at[static_cast<std::size_t>(r.rowAxis)] = r.rowStart + row;
            if (r.colAxis >= 0)
                at[static_cast<std::size_t>(r.colAxis)] = r.colStart + col;
            if (r.planeAxis >= 0)
                at[static_cast<std::size_t>(r.planeAxis)] = r.planeStart;
            QString tip = QString("value%1 = %2")
                              .arg(shapeText(at).mid(1).prepend("["),
                                   QString::fromStdString(slice_->text(0, row, col)));
            std::size_t offset = static_cast<std::size_t>(row * r.colCount + col);
            if (!slice_->summary.qscheme.empty() && offset < slice_->ints.size())
                tip += QString("\nstored integer %1").arg(slice_->ints[offset]);
            return tip;
        }
        default:
            return {};
        }
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
        if (role != Qt::DisplayRole || !slice_)
            return {};
        const ValueSliceRequest& r = slice_->request;
        return QString::number((orientation == Qt::Horizontal ? r.colStart : r.rowStart) + section);
    }

private:
    std::shared_ptr<const ValueSlice> slice_;
    ValueRange range_;
};

ValuesPanel::ValuesPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel("Select a node to see its values.");
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(title_);

    auto* pick = new QHBoxLayout;
    source_ = new QComboBox;
    source_->setToolTip("The node's output, an item of it, or a tensor its module holds");
    rows_ = new QComboBox;
    rows_->setToolTip("The dimension shown as rows");
    columns_ = new QComboBox;
    columns_->setToolTip("The dimension shown as columns");
    for (QComboBox* box : {source_, rows_, columns_})
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pick->addWidget(source_);
    pick->addWidget(new QLabel("rows"));
    pick->addWidget(rows_);
    pick->addWidget(new QLabel("columns"));
    pick->addWidget(columns_);
    pick->addStretch();
    layout->addLayout(pick);

    indexBox_ = new QWidget;
    indexLayout_ = new QHBoxLayout(indexBox_);
    indexLayout_->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(indexBox_);

    tabs_ = new QTabWidget;
    auto* tablePage = new QWidget;
    auto* tableLayout = new QVBoxLayout(tablePage);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    auto* window = new QHBoxLayout;
    firstRow_ = new QSpinBox;
    firstColumn_ = new QSpinBox;
    firstRow_->setToolTip(QString("The table shows %1 rows from here").arg(kTableRows));
    firstColumn_->setToolTip(QString("The table shows %1 columns from here").arg(kTableColumns));
    window->addWidget(new QLabel("from row"));
    window->addWidget(firstRow_);
    window->addWidget(new QLabel("column"));
    window->addWidget(firstColumn_);
    window->addStretch();
    tableLayout->addLayout(window);
    table_ = new QTableView;
    model_ = new ValueTableModel(table_);
    table_->setModel(model_);
    table_->horizontalHeader()->setResizeContentsPrecision(64);
    table_->verticalHeader()->setDefaultSectionSize(20);
    tableLayout->addWidget(table_);
    tabs_->addTab(tablePage, "Table");
    picture_ = new ValuePicture;
    tabs_->addTab(picture_, "Picture");
    layout->addWidget(tabs_, 1);

    note_ = new QLabel;
    note_->setWordWrap(true);
    note_->setVisible(false);
    layout->addWidget(note_);

    auto* buttons = new QHBoxLayout;
    auto* copy = new QPushButton("Copy Slice");
    copy->setToolTip("The numbers shown, tab-separated, for a spreadsheet or a script");
    auto* save = new QPushButton("Save Value…");
    save->setToolTip("The whole value as .pt (torch.load reads it) or .npy (numpy.load)");
    buttons->addStretch();
    buttons->addWidget(copy);
    buttons->addWidget(save);
    layout->addLayout(buttons);

    connect(copy, &QPushButton::clicked, this, &ValuesPanel::copySlice);
    connect(save, &QPushButton::clicked, this, &ValuesPanel::chooseFile);
    connect(source_, QOverload<int>::of(&QComboBox::activated), this, &ValuesPanel::sourceChosen);
    for (QComboBox* axis : {rows_, columns_})
        connect(axis, QOverload<int>::of(&QComboBox::activated), this, [this] {
            rebuildPickers(false);
            requestSlice();
        });
    for (QSpinBox* first : {firstRow_, firstColumn_})
        connect(first, QOverload<int>::of(&QSpinBox::valueChanged), this,
                &ValuesPanel::requestSlice);
    connect(tabs_, &QTabWidget::currentChanged, this, &ValuesPanel::requestSlice);
    clear();
}

void ValuesPanel::clear() {
    node_.clear();
    slice_.reset();
    shapeKnown_ = false;
    model_->setSlice(nullptr);
    picture_->show(nullptr, {});
    title_->setText("Select a node to see its values.");
    note_->setVisible(false);
    source_->clear();
    shape_.clear();
    rebuildPickers(true);
}

void ValuesPanel::showNode(const QString& frame, const Node& node, const NodeRecord* record) {
    const bool same = frame == frame_ && node.name == node_;
    frame_ = frame;
    node_ = node.name;
    weights_.clear();
    for (const HeldTensor& t : node.tensors)
        if (node.op == Op::CallModule)
            weights_.push_back(t.name);
    // Sources: the output, its items (a tuple), the module's tensors; kept when it is the same.
    const int keep = same ? source_->currentIndex() : 0;
    source_->clear();
    source_->addItem("output", QVariant());
    if (record && record->state == NodeState::Done)
        for (std::size_t i = 0; i < record->value.items.size(); ++i)
            source_->addItem(QString("output[%1]").arg(i), QVariant::fromValue(int(i)));
    for (const std::string& w : weights_)
        source_->addItem(QString::fromStdString(w), QString::fromStdString(w));
    source_->setCurrentIndex(keep < source_->count() ? keep : 0);

    std::vector<std::int64_t> shape;
    bool known = false;
    if (record && record->state == NodeState::Done && record->value.type == "Tensor") {
        shape = record->value.shape;
        known = true;
    }
    QString what =
        known ? QString("%1 %2").arg(shapeText(shape), QString::fromStdString(record->value.dtype))
        : record ? QString()
                 : QString("not run yet");
    title_->setText(
        QString("<b>%1</b> %2")
            .arg(QString::fromStdString(node.name).toHtmlEscaped(), what.toHtmlEscaped()));
    if (!same || !known || shape != shape_ || !shapeKnown_) {
        shape_ = shape;
        shapeKnown_ = known;
        rebuildPickers(!same); // another node's value: its last two dimensions
    }
    requestSlice();
}

void ValuesPanel::sourceChosen() {
    shapeKnown_ = false; // an item or a weight has a shape of its own: the answer brings it
    shape_.clear();
    rebuildPickers(true);
    requestSlice();
}

// The pickers for shape_: rows and columns among its dimensions (by default the last two), an
// index for each other dimension.
void ValuesPanel::rebuildPickers(bool defaults) {
    const int rank = static_cast<int>(shape_.size());
    int row = defaults ? rank - 2 : rows_->currentData().toInt();
    int column = defaults ? rank - 1 : columns_->currentData().toInt();
    if (row >= rank || column >= rank || (row == column && row >= 0)) {
        row = rank - 2;
        column = rank - 1;
    }
    for (QComboBox* axis : {rows_, columns_}) {
        QSignalBlocker block(axis);
        axis->clear();
        axis->addItem("—", -1);
        for (int d = 0; d < rank; ++d)
            axis->addItem(QString("dim %1 (%2)").arg(d).arg(shape_[static_cast<std::size_t>(d)]),
                          d);
    }
    rows_->setCurrentIndex(rows_->findData(row));
    columns_->setCurrentIndex(columns_->findData(column));
    rows_->setEnabled(rank >= 2);
    columns_->setEnabled(rank >= 1);

    std::vector<std::int64_t> kept;
    for (QSpinBox* s : indexes_)
        kept.push_back(s->value());
    for (QSpinBox* s : indexes_)
        s->deleteLater();
    indexes_.clear();
    while (QLayoutItem* item = indexLayout_->takeAt(0)) {
        if (item->widget())
            item->widget()->deleteLater();
        delete item;
    }
    for (int d = 0; d < rank; ++d) {
        auto* spin = new QSpinBox;
        spin->setRange(0, static_cast<int>(
                              std::max<std::int64_t>(0, shape_[static_cast<std::size_t>(d)] - 1)));
        spin->setPrefix(QString("dim %1 = ").arg(d));
        spin->setValue(d < static_cast<int>(kept.size())
                           ? static_cast<int>(kept[static_cast<std::size_t>(d)])
                           : 0);
        spin->setVisible(d != row && d != column);
        connect(spin, QOverload<int>::of(&QSpinBox::valueChanged), this,
                &ValuesPanel::requestSlice);
        indexLayout_->addWidget(spin);
        indexes_.push_back(spin);
    }
    indexLayout_->addStretch();
    QSignalBlocker b1(firstRow_), b2(firstColumn_);
    firstRow_->setRange(0, row >= 0 ? static_cast<int>(std::max<std::int64_t>(
                                          0, shape_[static_cast<std::size_t>(row)] - 1))
                                    : 0);
    firstColumn_->setRange(0, column >= 0 ? static_cast<int>(std::max<std::int64_t>(
                                                0, shape_[static_cast<std::size_t>(column)] - 1))
                                          : 0);
}

ValueSliceRequest ValuesPanel::currentRequest() const {
    ValueSliceRequest r;
    r.frame = frame_.toStdString();
    r.node = node_;
    QVariant source = source_->currentData();
    if (source.typeId() == QMetaType::Int)
        r.item = {source.toInt()};
    else if (source.typeId() == QMetaType::QString)
        r.weight = source.toString().toStdString();
    if (!shapeKnown_)
        return r; // one element: the answer brings the value's shape, then the pickers ask
    const bool picture = tabs_->currentIndex() == 1;
    const int rank = static_cast<int>(shape_.size());
    r.index.assign(shape_.size(), 0);
    for (int d = 0; d < rank && d < static_cast<int>(indexes_.size()); ++d)
        r.index[static_cast<std::size_t>(d)] = indexes_[static_cast<std::size_t>(d)]->value();
    r.rowAxis = rows_->currentData().toInt();
    r.colAxis = columns_->currentData().toInt();
    auto size = [&](std::int64_t axis) {
        return axis >= 0 ? shape_[static_cast<std::size_t>(axis)] : 1;
    };
    if (picture) {
        r.rowCount = size(r.rowAxis);
        r.colCount = size(r.colAxis);
        // The channels: the innermost other dimension (C of N, C, H, W).
        for (int d = rank - 1; d >= 0 && r.rowAxis >= 0; --d)
            if (d != r.rowAxis && d != r.colAxis) {
                r.planeAxis = d;
                r.planeCount = size(d);
                break;
            }
    } else {
        r.rowStart = firstRow_->value();
        r.colStart = firstColumn_->value();
        r.rowCount = std::min(kTableRows, size(r.rowAxis) - (r.rowAxis >= 0 ? r.rowStart : 0));
        r.colCount = std::min(kTableColumns, size(r.colAxis) - (r.colAxis >= 0 ? r.colStart : 0));
    }
    return r;
}

void ValuesPanel::requestSlice() {
    if (node_.empty())
        return;
    asked_ = currentRequest();
    // The shown dimensions have no index of their own (a picture's channels are all drawn).
    for (std::size_t d = 0; d < indexes_.size(); ++d) {
        const auto axis = static_cast<std::int64_t>(d);
        indexes_[d]->setVisible(axis != asked_.rowAxis && axis != asked_.colAxis &&
                                axis != asked_.planeAxis);
    }
    emit sliceWanted(asked_);
}

void ValuesPanel::showSlice(std::shared_ptr<const ValueSlice> slice) {
    // Only the answer to the latest question: the pickers may have moved since.
    if (!slice || slice->request.node != asked_.node || slice->request.frame != asked_.frame ||
        slice->request.weight != asked_.weight || slice->request.item != asked_.item)
        return;
    slice_ = slice;
    const bool failed = !slice->error.empty();
    if (!failed && (!shapeKnown_ || slice->summary.shape != shape_)) {
        // The first answer for a value whose shape was not known: pickers for it, and the slice
        // the pickers make.
        shape_ = slice->summary.shape;
        shapeKnown_ = true;
        rebuildPickers(true);
        requestSlice();
        return;
    }
    model_->setSlice(failed ? nullptr : slice);
    table_->resizeColumnsToContents(); // from the first rows (setResizeContentsPrecision)
    picture_->show(failed ? nullptr : slice, slice->request.planeAxis >= 0
                                                 ? QString("dim %1").arg(slice->request.planeAxis)
                                                 : QString());
    QString note = QString::fromStdString(failed ? slice->error : slice->note);
    if (!failed && !slice->summary.qscheme.empty())
        note = (note.isEmpty() ? "" : note + " ") +
               "Dequantized values; the stored integers are "
               "in each cell's tooltip (" +
               QString::fromStdString(quantizationDescription(slice->summary)) + ").";
    note_->setText(note);
    note_->setVisible(!note.isEmpty());
}

QString ValuesPanel::noteText() const {
    return note_->isHidden() ? QString() : note_->text();
}

QString ValuesPanel::sliceText() const {
    if (!slice_ || !slice_->error.empty())
        return {};
    const ValueSliceRequest& r = slice_->request;
    QString text;
    for (std::int64_t p = 0; p < r.planeCount; ++p) {
        if (r.planeCount > 1)
            text += QString("%1# plane %2\n").arg(p ? "\n" : "").arg(r.planeStart + p);
        for (std::int64_t y = 0; y < r.rowCount; ++y) {
            for (std::int64_t x = 0; x < r.colCount; ++x)
                text += (x ? "\t" : "") + QString::fromStdString(slice_->text(p, y, x));
            text += "\n";
        }
    }
    return text;
}

void ValuesPanel::copySlice() {
    if (QString text = sliceText(); !text.isEmpty())
        QApplication::clipboard()->setText(text);
}

void ValuesPanel::chooseFile() {
    if (node_.empty())
        return;
    QString path =
        QFileDialog::getSaveFileName(this, "Save Value", QString::fromStdString(node_) + ".pt",
                                     "PyTorch (torch.save) (*.pt);;NumPy (*.npy)");
    if (!path.isEmpty())
        saveTo(path);
}

void ValuesPanel::saveTo(const QString& path) {
    SaveValueRequest request;
    request.value = currentRequest();
    request.format = path.endsWith(".npy", Qt::CaseInsensitive) ? ValueFileFormat::Npy
                                                                : ValueFileFormat::TorchSave;
    emit saveWanted(request, path);
}

} // namespace fxview
