#include "panels/CompilePanel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

namespace fxview {

namespace {

constexpr int kSourceRole = Qt::UserRole + 1; // the source a row opens, "" for none

// "model.py:54", the file named as short as it reads (the whole path in the tooltip).
QString place(const QJsonValue& where) {
    if (!where.isObject())
        return {};
    QJsonObject w = where.toObject();
    return QFileInfo(w["file"].toString()).fileName() + ":" + QString::number(w["line"].toInt());
}

QString fullPlace(const QJsonValue& where) {
    if (!where.isObject())
        return {};
    QJsonObject w = where.toObject();
    QString text = w["file"].toString() + ":" + QString::number(w["line"].toInt());
    if (!w["function"].toString().isEmpty())
        text += " in " + w["function"].toString();
    if (!w["code"].toString().isEmpty())
        text += "\n    " + w["code"].toString();
    return text;
}

QTreeWidgetItem* row(QTreeWidgetItem* parent, const QStringList& columns, const QString& source,
                     const QString& tip) {
    auto* item = new QTreeWidgetItem(parent, columns);
    item->setData(0, kSourceRole, source);
    for (int c = 0; c < columns.size(); ++c)
        item->setToolTip(c, tip);
    return item;
}

} // namespace

CompilePanel::CompilePanel(QWidget* parent) : QWidget(parent) {
    tree_ = new QTreeWidget;
    tree_->setObjectName("compileTree");
    tree_->setColumnCount(3);
    tree_->setHeaderLabels({"What", "Where", "Detail"});
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree_->setUniformRowHeights(true);
    connect(tree_, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { activated(item); });
    notes_ = new QLabel;
    notes_->setWordWrap(true);
    notes_->setForegroundRole(QPalette::PlaceholderText);
    notes_->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tree_);
    layout->addWidget(notes_);
}

QString CompilePanel::graphSource(int index, const QString& kind) {
    return "python:compile:" + QString::number(index) + (kind.isEmpty() ? "" : ":" + kind);
}

QString CompilePanel::setSession(const QByteArray& json) {
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject() || doc.object()["format"].toString() != "fxview.compile_session")
        return "The compile session the live engine sent could not be read (" +
               (doc.isObject() ? QString("not an fxview.compile_session") : error.errorString()) +
               ").";
    QJsonObject session = doc.object();
    const QString open = session["open"].toString();
    tree_->clear();
    marks_.clear();
    before_.clear();
    QJsonArray graphs = session["graphs"].toArray();
    auto* graphsItem = new QTreeWidgetItem(
        tree_, {QString("Graphs (%1)").arg(graphs.size()), "", "in the order Dynamo made them"});
    for (const QJsonValue& value : graphs) {
        QJsonObject g = value.toObject();
        const int index = g["index"].toInt();
        QString what = QString("graph %1  [%2]").arg(index).arg(g["compile_id"].toString());
        QString detail = QString("%1 · %2 nodes · called %3×")
                             .arg(g["frame"].toObject()["function"].toString())
                             .arg(g["nodes"].toInt())
                             .arg(g["calls"].toInt());
        if (!g["ended_by"].toString().isEmpty())
            detail += " · ends: " + g["ended_by"].toString();
        QTreeWidgetItem* item = row(graphsItem, {what, place(g["frame"]), detail},
                                    graphSource(index), fullPlace(g["frame"]));
        for (const QJsonValue& aot : g["aot"].toArray()) {
            QJsonObject a = aot.toObject();
            const QString kind = a["kind"].toString();
            row(item,
                {kind, "",
                 QString(kind.endsWith("-grad") ? "Inductor · %1 nodes · called %2×"
                                                : "AOTAutograd · %1 nodes · called %2×")
                     .arg(a["nodes"].toInt())
                     .arg(a["calls"].toInt())},
                graphSource(index, kind), {});
        }
        if (g["joint"].isObject())
            row(item,
                {"forward + backward", "",
                 QString("%1 nodes · %2 saved activations as edges")
                     .arg(g["joint"].toObject()["nodes"].toInt())
                     .arg(g["saved"].toArray().size())},
                graphSource(index, "joint"), {});
        QJsonArray passes = g["passes"].toArray();
        QString given = graphSource(index); // the graph the next pass is given
        for (int k = 0; k < passes.size(); ++k) {
            QJsonObject p = passes[k].toObject();
            QStringList added, retargeted;
            for (const QJsonValue& n : p["added"].toArray())
                added << n.toString();
            for (const QJsonValue& n : p["retargeted"].toArray())
                retargeted << n.toString();
            QString detail = !p["error"].toString().isEmpty()
                                 ? "failed: " + p["error"].toString()
                                 : QString("+%1 −%2 ~%3")
                                       .arg(added.size())
                                       .arg(p["removed"].toArray().size())
                                       .arg(retargeted.size());
            if (p["outputs_equal"].isBool())
                detail += p["outputs_equal"].toBool()
                              ? " · outputs equal"
                              : " · values part at " + p["first_divergence"].toString();
            QString source = graphSource(index, "pass:" + QString::number(k));
            row(item, {"after " + p["name"].toString(), "", detail},
                p["error"].toString().isEmpty() ? source : QString(),
                "added: " + added.join(", ") +
                    "\nremoved: " + p["removed"].toVariant().toStringList().join(", ") +
                    "\nretargeted: " + retargeted.join(", "));
            // Coloured on the graph after the pass when it is open: added, retargeted.
            QList<QPair<QString, QColor>> marks;
            for (const QString& n : added)
                marks.append({n, QColor(0x2e, 0xa0, 0x43)});
            for (const QString& n : retargeted)
                marks.append({n, QColor(0xe0, 0x8a, 0x00)});
            marks_[source] = marks;
            // A pass that failed was skipped: the next one is given the same graph.
            if (p["error"].toString().isEmpty()) {
                before_[source] = given;
                given = source;
            }
        }
        if (!g["saved"].toArray().isEmpty())
            item->setToolTip(2, QString("%1 saved activations pass from the forward to the "
                                        "backward")
                                    .arg(g["saved"].toArray().size()));
    }
    QJsonArray breaks = session["breaks"].toArray();
    int occurrences = 0;
    for (const QJsonValue& b : breaks)
        occurrences += b.toObject()["count"].toInt();
    auto* breaksItem = new QTreeWidgetItem(
        tree_,
        {QString("Graph breaks (%1)").arg(occurrences),
         breaks.size() == occurrences ? QString() : QString("%1 distinct").arg(breaks.size()), ""});
    for (const QJsonValue& value : breaks) {
        QJsonObject b = value.toObject();
        QJsonArray ended = b["graphs"].toArray();
        QString tip = fullPlace(b["where"]) + "\n\n" + b["detail"].toString().trimmed();
        row(breaksItem,
            {QString("×%1  %2").arg(b["count"].toInt()).arg(b["instruction"].toString()),
             place(b["where"]), b["reason"].toString()},
            ended.isEmpty() ? QString() : graphSource(ended.first().toInt()), tip);
    }
    QJsonArray recompiles = session["recompiles"].toArray();
    auto* recompilesItem =
        new QTreeWidgetItem(tree_, {QString("Recompiles (%1)").arg(recompiles.size()), "", ""});
    for (const QJsonValue& value : recompiles) {
        QJsonObject r = value.toObject();
        QString where = r["where"].isObject() ? place(r["where"]) : place(r["function"]);
        QStringList reasons;
        for (const QJsonValue& reason : r["reasons"].toArray())
            reasons << reason.toString().trimmed();
        QString tip = (r["where"].isObject() ? "the guard was made at " + fullPlace(r["where"])
                                             : "in " + fullPlace(r["function"])) +
                      "\n\nguards that failed:\n" + reasons.join("\n");
        row(recompilesItem,
            {r["function"].toObject()["function"].toString(), where, r["guard"].toString()},
            graphSource(r["graph"].toInt()), tip);
    }
    // The graph open now, in bold and in view.
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->data(0, kSourceRole).toString() == open && (*it)->parent() &&
            ((*it)->parent() == graphsItem || (*it)->parent()->parent() == graphsItem)) {
            for (int c = 0; c < 3; ++c) {
                QFont font = (*it)->font(c);
                font.setBold(true);
                (*it)->setFont(c, font);
            }
            tree_->scrollToItem(*it);
        }
    tree_->expandAll();
    QStringList notes;
    for (const QJsonValue& n : session["notes"].toArray())
        notes << n.toString();
    notes_->setText(notes.join("\n"));
    notes_->setVisible(!notes.isEmpty());
    hasSession_ = true;
    open_ = open;
    return {};
}

void CompilePanel::activated(QTreeWidgetItem* item) {
    QString source = item->data(0, kSourceRole).toString();
    if (!source.isEmpty())
        emit graphRequested(source);
}

} // namespace fxview
