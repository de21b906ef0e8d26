#include "panels/NodeListModel.h"

#include <QFont>

namespace fxview {

namespace {

constexpr int kColumns = 4; // op, name, target, shape

} // namespace

int NodeListModel::addRow(Row row) {
    const int at = static_cast<int>(rows_.size());
    std::vector<int>& siblings = row.parent < 0 ? top_ : rows_[row.parent].children;
    row.position = static_cast<int>(siblings.size());
    siblings.push_back(at);
    rows_.push_back(std::move(row));
    return at;
}

bool NodeListModel::fill(const Graph& graph, const ScopeTree* scopes) {
    beginResetModel();
    rows_.clear();
    top_.clear();
    nodeRows_.clear();
    scopeRows_.clear();
    rows_.reserve(graph.nodes.size() + (scopes ? 64 : 0));
    const bool withScopes = scopes && !scopes->empty();
    // A scope's row is made when the first node under it is, after its parent's (a loop, not
    // recursion: the depth is the graph's).
    auto scopeRow = [&](const std::string& scope) -> int {
        std::vector<std::pair<QString, const Scope*>> missing; // innermost first
        int parent = -1;
        for (std::string at = scope; !at.empty();) {
            const QString path = QString::fromStdString(at);
            if (auto found = scopeRows_.constFind(path); found != scopeRows_.constEnd()) {
                parent = *found;
                break;
            }
            const Scope* s = scopes->find(at);
            missing.emplace_back(path, s);
            at = s ? s->parent : std::string();
        }
        for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
            const auto& [path, s] = *it;
            Row row("module", path, s ? QString::fromStdString(shortClassName(s->type)) : QString(),
                    Kind::Scope);
            row.parent = parent;
            parent = addRow(std::move(row));
            scopeRows_.insert(path, parent);
        }
        return parent;
    };
    // A .pt2 lifts every parameter, buffer and constant to a placeholder before the inputs:
    // under one row, closed, they leave the first screen to the inputs and the work.
    int weightsRow = -1, weights = 0;
    graph.forEachNode([&](const Node& n, int) {
        if (n.hidden)
            return;
        Row row(opName(n.op), QString::fromStdString(n.name), QString::fromStdString(n.target));
        if (n.op == Op::Placeholder && !n.isInput()) {
            if (weightsRow < 0)
                weightsRow = addRow(Row(QString(), "weights", QString(), Kind::Weights));
            row.parent = weightsRow;
            ++weights;
        } else if (withScopes) {
            row.parent = scopeRow(n.scope);
        }
        const QString name = row.name;
        nodeRows_.insert(name, addRow(std::move(row)));
    });
    if (weightsRow >= 0)
        rows_[weightsRow].target = QString("%1 parameter%2, buffer%2 and constant%2")
                                       .arg(weights)
                                       .arg(weights == 1 ? "" : "s");
    endResetModel();
    return withScopes || weightsRow >= 0;
}

void NodeListModel::setRecords(RecordOf recordOf, const QString& current) {
    recordOf_ = std::move(recordOf);
    current_ = current;
}

void NodeListModel::rowShown(const QModelIndex& row) {
    if (row.isValid())
        emit dataChanged(row.siblingAtColumn(0), row.siblingAtColumn(kColumns - 1),
                         {Qt::DisplayRole, Qt::FontRole});
}

QModelIndex NodeListModel::indexOfRow(int row, int column) const {
    if (row < 0 || row >= static_cast<int>(rows_.size()))
        return {};
    return createIndex(rows_[row].position, column, static_cast<quintptr>(row));
}

QModelIndex NodeListModel::nodeRow(const QString& name) const {
    return indexOfRow(nodeRows_.value(name, -1));
}

QModelIndex NodeListModel::scopeRow(const QString& path) const {
    return indexOfRow(scopeRows_.value(path, -1));
}

QModelIndex NodeListModel::rowOf(const QString& name) const {
    const QModelIndex node = nodeRow(name);
    return node.isValid() ? node : scopeRow(name);
}

NodeListModel::Kind NodeListModel::kindAt(const QModelIndex& index) const {
    return index.isValid() ? rows_[index.internalId()].kind : Kind::Weights;
}

QString NodeListModel::nameAt(const QModelIndex& index) const {
    return index.isValid() ? rows_[index.internalId()].name : QString();
}

void NodeListModel::filter(const QString& text,
                           const std::function<void(const QModelIndex&, bool)>& hide) {
    // A scope's row stays while anything under it matches.
    std::function<bool(int)> kept = [&](int row) {
        Row& r = rows_[row];
        bool keep = text.isEmpty() || r.op.contains(text, Qt::CaseInsensitive) ||
                    r.name.contains(text, Qt::CaseInsensitive) ||
                    r.target.contains(text, Qt::CaseInsensitive);
        for (int child : r.children)
            keep = kept(child) || keep;
        if (r.hidden == keep) {
            r.hidden = !keep;
            hide(indexOfRow(row), r.hidden);
        }
        return keep;
    };
    for (int row : top_)
        kept(row);
}

QModelIndex NodeListModel::index(int row, int column, const QModelIndex& parent) const {
    const std::vector<int>& siblings = childrenOf(parent.isValid() ? int(parent.internalId()) : -1);
    if (row < 0 || row >= static_cast<int>(siblings.size()) || column < 0 || column >= kColumns)
        return {};
    return createIndex(row, column, static_cast<quintptr>(siblings[row]));
}

QModelIndex NodeListModel::parent(const QModelIndex& index) const {
    return index.isValid() ? indexOfRow(rows_[index.internalId()].parent) : QModelIndex();
}

int NodeListModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(childrenOf(parent.isValid() ? int(parent.internalId()) : -1).size());
}

int NodeListModel::columnCount(const QModelIndex&) const {
    return kColumns;
}

QVariant NodeListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const Row& row = rows_[index.internalId()];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case 0:
            return row.op;
        case 1:
            return row.name;
        case 2:
            return row.target;
        default: {
            const NodeRecord* r =
                row.kind == Kind::Node && recordOf_ ? recordOf_(row.name.toStdString()) : nullptr;
            return r && r->state == NodeState::Done
                       ? QString::fromStdString(shortDescription(r->value))
                       : QString();
        }
        }
    }
    if (role == Qt::FontRole) {
        // Headings' names in italics; the current node's row in bold, as the graph draws its
        // box in the current colour.
        const bool italic = row.kind != Kind::Node && index.column() == 1;
        const bool bold = row.kind == Kind::Node && !current_.isEmpty() && row.name == current_;
        if (!italic && !bold)
            return {};
        QFont font;
        font.setItalic(italic);
        font.setBold(bold);
        return font;
    }
    return {};
}

QVariant NodeListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    static const char* const titles[kColumns] = {"op", "name", "target", "shape"};
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 &&
        section < kColumns)
        return QString(titles[section]);
    return {};
}

} // namespace fxview
