#pragma once
// The "Graph as text" dock: the shown graph printed as torch.fx prints it, the current node's
// line marked as a debugger marks the line it stopped at, the selected node's line scrolled to
// and selected; a click on a node's line asks the window to select that node.

#include <QPlainTextEdit>
#include <string>

namespace fxview {

class GraphTextPanel : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit GraphTextPanel(QWidget* parent = nullptr);

    void setGraphText(const std::string& text);
    // What it shows, for File ▸ Export as .txt.
    const std::string& graphText() const { return text_; }
    // `node`'s line scrolled to the middle and selected, as text is; "" clears the selection.
    void showNodeLine(const QString& node);
    // `node`'s line marked in `color` (full width) and the cursor put there; "" clears the mark.
    void markCurrentLine(const QString& node, const QColor& color);
    // The node whose line `line` is ("%relu : ... = call_function[...]"), or "".
    static QString nodeOfLine(const QString& line);

signals:
    void nodeClicked(const QString& node);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QTextCursor lineOf(const QString& node) const;

    std::string text_;
};

} // namespace fxview
