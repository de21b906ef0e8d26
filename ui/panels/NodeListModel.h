#pragma once
// The Nodes dock's rows as a Qt item model: a row per shown node under a row per module scope,
// a .pt2's lifted weights under one "weights" heading. The rows are plain data made once per
// graph; a node's shape and the bold of the current row are asked of the run's records when a
// row is drawn, so that a step costs the rows on screen, not the graph's 27,000 nodes.

#include <QAbstractItemModel>
#include <QHash>
#include <functional>
#include <string>
#include <vector>

#include "Graph.h"
#include "RunRecord.h"
#include "ScopeTree.h"

namespace fxview {

class NodeListModel : public QAbstractItemModel {
    Q_OBJECT
public:
    using RecordOf = std::function<const NodeRecord*(const std::string&)>;
    enum class Kind { Node, Scope, Weights };

    using QAbstractItemModel::QAbstractItemModel;

    // Rows for `graph`'s visible nodes, under `scopes`' rows when given. Returns whether any row
    // can have children (scopes or the weights' heading: the view then draws the tree's arrows).
    bool fill(const Graph& graph, const ScopeTree* scopes);
    // The shape column and the current row's bold come from `recordOf` (kept, and asked again
    // whenever a row is drawn, until the next call) and `current`. Nothing is told: the view
    // repaints what it shows (rowShown), every other row is asked when it is drawn.
    void setRecords(RecordOf recordOf, const QString& current);
    // Tells the views that `row` (on screen) may read otherwise now.
    void rowShown(const QModelIndex& row);

    // The row of the node named `name`, else of the scope with that path; invalid if neither.
    QModelIndex rowOf(const QString& name) const;
    QModelIndex nodeRow(const QString& name) const;
    QModelIndex scopeRow(const QString& path) const;
    Kind kindAt(const QModelIndex& index) const;
    QString nameAt(const QModelIndex& index) const; // node name or scope path
    // Every scope row's path and index, for the view to expand as the picture shows.
    const QHash<QString, int>& scopeRows() const { return scopeRows_; }
    QModelIndex indexOfRow(int row, int column = 0) const;
    // Hides every row that neither matches `text` (in its op, name or target, any case) nor has
    // a row under it that does: `hide(row, hidden)` is told only where that changes.
    void filter(const QString& text, const std::function<void(const QModelIndex&, bool)>& hide);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& index) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        Row(QString op, QString name, QString target, Kind kind = Kind::Node)
            : op(std::move(op)), name(std::move(name)), target(std::move(target)), kind(kind) {}
        QString op, name, target;
        Kind kind = Kind::Node;
        int parent = -1;     // index into rows_, -1 for a top row
        int position = 0;    // its place among its parent's children
        bool hidden = false; // by the filter
        std::vector<int> children;
    };
    int addRow(Row row);
    const std::vector<int>& childrenOf(int row) const {
        return row < 0 ? top_ : rows_[row].children;
    }

    std::vector<Row> rows_;
    std::vector<int> top_;
    QHash<QString, int> nodeRows_, scopeRows_; // by node name and scope path
    RecordOf recordOf_;
    QString current_;
};

} // namespace fxview
