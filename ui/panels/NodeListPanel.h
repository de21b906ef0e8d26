#pragma once
// The Nodes dock: one row per shown node (op, name, target, and after a run its value's shape),
// under a row per module scope when the graph is the model's own, so that it shows the tree the
// picture shows; a .pt2's lifted weights under one closed "weights" row; a filter by name, op or
// target. It follows the window (fill, syncScopes, showRecords, showSelected) and tells it what
// the person did (nodeChosen, scopeChosen, scopeToggled). Its rows are a NodeListModel's, drawn
// by a QTreeView: only the rows on screen are asked for their text.

#include <QWidget>
#include <functional>
#include <set>
#include <string>

#include "Graph.h"
#include "RunRecord.h"
#include "ScopeTree.h"
#include "panels/NodeListModel.h"

class QLineEdit;
class QModelIndex;
class QTreeView;

namespace fxview {

class NodeListPanel : public QWidget {
    Q_OBJECT
public:
    explicit NodeListPanel(QWidget* parent = nullptr);

    // Rows for `graph`'s visible nodes, under `scopes`' rows when given (open as `open` says);
    // the filter is cleared.
    void fill(const Graph& graph, const ScopeTree* scopes, const std::set<std::string>& open);
    // The scope rows expanded as `open` says, without that counting as the person's doing.
    void syncScopes(const std::set<std::string>& open);
    // Each row's shape column from its node's record; `current`'s row in bold. `recordOf` is
    // kept and asked again whenever a row is drawn, until the next call.
    void showRecords(const std::function<const NodeRecord*(const std::string&)>& recordOf,
                     const QString& current);
    // The row of `node`, or of `scope` when the node is a closed scope's box; "" clears.
    void showSelected(const QString& node, const QString& scope = {});

    QTreeView* tree() const { return tree_; }
    QLineEdit* filter() const { return filter_; }
    // The row of the node named `name`, else of the scope with that path (column 0).
    QModelIndex rowOf(const QString& name) const;

signals:
    void nodeChosen(const QString& node);
    void scopeChosen(const QString& scope);
    void scopeToggled(const QString& scope, bool open);

private:
    void applyFilter(const QString& text);

    NodeListModel* rows_;
    QTreeView* tree_;
    QLineEdit* filter_;
    bool syncing_ = false; // the tree follows the window: its expand signals are not the user's
};

} // namespace fxview
