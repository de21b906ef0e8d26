#include "panels/NodeListPanel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QTreeView>
#include <QVBoxLayout>

namespace fxview {

NodeListPanel::NodeListPanel(QWidget* parent)
    : QWidget(parent), rows_(new NodeListModel(this)), tree_(new QTreeView),
      filter_(new QLineEdit) {
    tree_->setModel(rows_);
    tree_->setRootIsDecorated(false);
    tree_->setUniformRowHeights(true);
    tree_->setAllColumnsShowFocus(true);
    filter_->setPlaceholderText("Filter by name, op or target");
    filter_->setClearButtonEnabled(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(filter_);
    layout->addWidget(tree_);
    connect(filter_, &QLineEdit::textChanged, this, &NodeListPanel::applyFilter);
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& row) {
                if (!row.isValid())
                    return;
                switch (rows_->kindAt(row)) {
                case NodeListModel::Kind::Node:
                    emit nodeChosen(rows_->nameAt(row));
                    break;
                case NodeListModel::Kind::Scope:
                    emit scopeChosen(rows_->nameAt(row));
                    break;
                case NodeListModel::Kind::Weights: // a heading: nothing to show
                    break;
                }
            });
    auto toggled = [this](const QModelIndex& row, bool open) {
        if (!syncing_ && rows_->kindAt(row) == NodeListModel::Kind::Scope)
            emit scopeToggled(rows_->nameAt(row), open);
    };
    connect(tree_, &QTreeView::expanded, this,
            [toggled](const QModelIndex& row) { toggled(row, true); });
    connect(tree_, &QTreeView::collapsed, this,
            [toggled](const QModelIndex& row) { toggled(row, false); });
}

QModelIndex NodeListPanel::rowOf(const QString& name) const {
    return rows_->rowOf(name);
}

void NodeListPanel::applyFilter(const QString& text) {
    rows_->filter(text, [this](const QModelIndex& row, bool hidden) {
        tree_->setRowHidden(row.row(), row.parent(), hidden);
    });
}

void NodeListPanel::fill(const Graph& graph, const ScopeTree* scopes,
                         const std::set<std::string>& open) {
    {
        const QSignalBlocker quiet(filter_); // the rows are new: none is hidden
        filter_->clear();
    }
    tree_->setRootIsDecorated(rows_->fill(graph, scopes));
    syncScopes(open);
    tree_->header()->resizeSections(QHeaderView::ResizeToContents);
}

void NodeListPanel::syncScopes(const std::set<std::string>& open) {
    syncing_ = true;
    for (auto it = rows_->scopeRows().begin(); it != rows_->scopeRows().end(); ++it)
        tree_->setExpanded(rows_->indexOfRow(it.value()), open.count(it.key().toStdString()) > 0);
    syncing_ = false;
}

void NodeListPanel::showRecords(
    const std::function<const NodeRecord*(const std::string&)>& recordOf, const QString& current) {
    rows_->setRecords(recordOf, current);
    // Only the rows on screen are told (a dataChanged per parent cost 80 ms at 27,000 nodes:
    // the tree view looks each range up among its shown rows); the others are asked when drawn.
    const int bottom = tree_->viewport()->height();
    for (QModelIndex row = tree_->indexAt(QPoint(0, 0));
         row.isValid() && tree_->visualRect(row).top() < bottom; row = tree_->indexBelow(row))
        rows_->rowShown(row);
}

void NodeListPanel::showSelected(const QString& node, const QString& scope) {
    if (node.isEmpty()) {
        tree_->setCurrentIndex({});
        tree_->clearSelection();
        return;
    }
    const QModelIndex row = scope.isEmpty() ? rows_->nodeRow(node) : rows_->scopeRow(scope);
    if (row.isValid())
        tree_->setCurrentIndex(row);
}

} // namespace fxview
