#pragma once
// The Compile panel: what torch.compile saw, as a compile session served from Python lists it
// (fxview.backend; docs/compile-session.md): Dynamo's graphs in the order they were made, with
// AOTAutograd's forward and backward under each where they were recorded, the graph breaks
// deduplicated with their counts, the recompiles with the guard that failed. Activating a graph
// (or the break that ended one, or the recompile that made one) asks for it to be opened.

#include <QColor>
#include <QHash>
#include <QList>
#include <QPair>
#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace fxview {

class CompilePanel : public QWidget {
    Q_OBJECT
public:
    explicit CompilePanel(QWidget* parent = nullptr);

    // Shows a session (the CompileSession message's JSON); returns "" or the sentence saying
    // why it could not be read (the panel then keeps what it showed).
    QString setSession(const QByteArray& json);
    bool hasSession() const { return hasSession_; }
    // The nodes to colour on the graph open: after a pass, those it added (green) and
    // retargeted (orange); none for other graphs.
    QList<QPair<QString, QColor>> openMarks() const { return marks_.value(open_); }
    // The source of the graph the pass whose graph is open was given (Dynamo's graph, or the
    // graph after the pass before it); "" when the graph open is not a pass's.
    QString openPassBefore() const { return before_.value(open_); }
    QTreeWidget* tree() const { return tree_; }

    // The source that opens graph `index` ("python:compile:3"), or its AOTAutograd graph `kind`
    // ("forward", "backward").
    static QString graphSource(int index, const QString& kind = {});

signals:
    void graphRequested(const QString& source);

private:
    void activated(QTreeWidgetItem* item);

    QTreeWidget* tree_;
    QLabel* notes_;
    bool hasSession_ = false;
    QString open_;                                        // the source open
    QHash<QString, QList<QPair<QString, QColor>>> marks_; // by a pass graph's source
    QHash<QString, QString> before_;                      // by a pass graph's source
};

} // namespace fxview
