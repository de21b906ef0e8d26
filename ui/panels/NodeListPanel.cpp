#include "panels/NodeListPanel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fxview {

NodeListPanel::NodeListPanel(QWidget* parent)
    : QWidget(parent), tree_(new QTreeWidget), filter_(new QLineEdit) {
    tree_->setColumnCount(4);
    tree_->setHeaderLabels({"op", "name", "target", "shape"});
    tree_->setRootIsDecorated(false);
    tree_->setUniformRowHeights(true);
    filter_->setPlaceholderText("Filter by name, op or target");
    filter_->setClearButtonEnabled(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(filter_);
    layout->addWidget(tree_);
    connect(filter_, &QLineEdit::textChanged, this, &NodeListPanel::applyFilter);
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item || item == weightsRow_)
            return;
        const QString name = item->text(1);
        if (scopeRows_.value(name) == item)
            emit scopeChosen(name);
        else
            emit nodeChosen(name);
    });
    auto toggled = [this](QTreeWidgetItem* row, bool open) {
        if (!syncing_ && scopeRows_.value(row->text(1)) == row)
            emit scopeToggled(row->text(1), open);
    };
    connect(tree_, &QTreeWidget::itemExpanded, this,
            [toggled](QTreeWidgetItem* row) { toggled(row, true); });
    connect(tree_, &QTreeWidget::itemCollapsed, this,
            [toggled](QTreeWidgetItem* row) { toggled(row, false); });
}

// A scope's row stays while anything under it matches.
void NodeListPanel::applyFilter(const QString& text) {
    std::function<bool(QTreeWidgetItem*)> filter = [&](QTreeWidgetItem* item) {
        bool kept = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive) ||
                    item->text(1).contains(text, Qt::CaseInsensitive) ||
                    item->text(2).contains(text, Qt::CaseInsensitive);
        for (int i = 0; i < item->childCount(); ++i)
            kept = filter(item->child(i)) || kept;
        item->setHidden(!kept);
        return kept;
    };
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        filter(tree_->topLevelItem(i));
}

void NodeListPanel::fill(const Graph& graph, const ScopeTree* scopes,
                         const std::set<std::string>& open) {
    tree_->clear();
    nodeRows_.clear();
    scopeRows_.clear();
    const bool withScopes = scopes && !scopes->empty();
    tree_->setRootIsDecorated(withScopes);
    std::function<QTreeWidgetItem*(const std::string&)> rowOf =
        [&](const std::string& scope) -> QTreeWidgetItem* {
        if (scope.empty())
            return nullptr;
        QString path = QString::fromStdString(scope);
        if (QTreeWidgetItem* row = scopeRows_.value(path))
            return row;
        const Scope* s = scopes->find(scope);
        auto* row = new QTreeWidgetItem(
            {"module", path, s ? QString::fromStdString(shortClassName(s->type)) : QString(), {}});
        QFont font = row->font(1);
        font.setItalic(true);
        row->setFont(1, font);
        if (QTreeWidgetItem* parent = rowOf(s ? s->parent : std::string()))
            parent->addChild(row);
        else
            tree_->addTopLevelItem(row);
        scopeRows_.insert(path, row);
        return row;
    };
    // A .pt2 lifts every parameter, buffer and constant to a placeholder before the inputs:
    // under one row, closed, they leave the first screen to the inputs and the work.
    weightsRow_ = nullptr;
    int weights = 0;
    graph.forEachNode([&](const Node& n, int) {
        if (n.hidden)
            return;
        auto* item = new QTreeWidgetItem({opName(n.op), QString::fromStdString(n.name),
                                          QString::fromStdString(n.target), QString()});
        if (n.op == Op::Placeholder && !n.isInput()) {
            if (!weightsRow_) {
                weightsRow_ = new QTreeWidgetItem({QString(), "weights", QString(), QString()});
                QFont font = weightsRow_->font(1);
                font.setItalic(true);
                weightsRow_->setFont(1, font);
                tree_->addTopLevelItem(weightsRow_);
                tree_->setRootIsDecorated(true);
            }
            weightsRow_->addChild(item);
            ++weights;
        } else if (QTreeWidgetItem* parent = withScopes ? rowOf(n.scope) : nullptr) {
            parent->addChild(item);
        } else {
            tree_->addTopLevelItem(item);
        }
        nodeRows_.insert(item->text(1), item);
    });
    if (weightsRow_)
        weightsRow_->setText(2, QString("%1 parameter%2, buffer%2 and constant%2")
                                    .arg(weights)
                                    .arg(weights == 1 ? "" : "s"));
    syncScopes(open);
    tree_->header()->resizeSections(QHeaderView::ResizeToContents);
    filter_->clear();
}

void NodeListPanel::syncScopes(const std::set<std::string>& open) {
    syncing_ = true;
    for (auto it = scopeRows_.begin(); it != scopeRows_.end(); ++it)
        it.value()->setExpanded(open.count(it.key().toStdString()) > 0);
    syncing_ = false;
}

void NodeListPanel::showRecords(
    const std::function<const NodeRecord*(const std::string&)>& recordOf, const QString& current) {
    for (QTreeWidgetItem* item : std::as_const(nodeRows_)) {
        const NodeRecord* r = recordOf(item->text(1).toStdString());
        item->setText(3, r && r->state == NodeState::Done
                             ? QString::fromStdString(shortDescription(r->value))
                             : QString());
        // The current node's row in bold, as the graph draws its box in the current colour.
        QFont font = item->font(0);
        if (font.bold() != (item->text(1) == current)) {
            font.setBold(item->text(1) == current);
            for (int column = 0; column < tree_->columnCount(); ++column)
                item->setFont(column, font);
        }
    }
}

void NodeListPanel::showSelected(const QString& node, const QString& scope) {
    if (node.isEmpty()) {
        tree_->setCurrentItem(nullptr);
        tree_->clearSelection();
        return;
    }
    QTreeWidgetItem* row = scope.isEmpty() ? nodeRows_.value(node) : scopeRows_.value(scope);
    if (row)
        tree_->setCurrentItem(row);
}

} // namespace fxview
