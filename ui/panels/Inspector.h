#pragma once
// The inspector dock: everything about one node. Its op, target, module type and the shapes of
// its parameters, scope, the line of the model's code that made it (file:line, the text; the
// full path as the file's tooltip), args and kwargs with links to the nodes they name, users; after
// a run its value (shape, dtype, stride, numel, bytes, min/max/mean/std, NaN/Inf) with a small
// histogram of its values, and its time. A click on a link asks for that node.

#include <QTextBrowser>

#include "Graph.h"
#include "RunRecord.h"

namespace fxview {

class Inspector : public QTextBrowser {
    Q_OBJECT
public:
    explicit Inspector(QWidget* parent = nullptr);

    // `detailNote`: why the record's std and histogram are not there (a live run makes them
    // when asked), or "" while they are being made.
    void showNode(const Node& node, const NodeRecord* record, const QColor& barColor,
                  const QString& detailNote = {});

    // The histogram as the inspector draws it: one bar per bin, scaled to the fullest.
    static QImage histogramImage(const std::vector<std::int64_t>& bins, const QColor& color,
                                 const QSize& size);

signals:
    void nodeLinkClicked(const QString& node);
};

} // namespace fxview
