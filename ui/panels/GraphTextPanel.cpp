#include "panels/GraphTextPanel.h"

#include <QMouseEvent>
#include <QRegularExpression>
#include <QTextBlock>

namespace fxview {

GraphTextPanel::GraphTextPanel(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFont("DejaVu Sans Mono", 9));
    viewport()->installEventFilter(this); // a read-only editor still takes the click
}

void GraphTextPanel::setGraphText(const std::string& text) {
    text_ = text;
    setPlainText(QString::fromStdString(text));
}

QString GraphTextPanel::nodeOfLine(const QString& line) {
    static const QRegularExpression nodeLine("^\\s*%(\\w+)\\s*:");
    QRegularExpressionMatch m = nodeLine.match(line);
    return m.hasMatch() ? m.captured(1) : QString();
}

QTextCursor GraphTextPanel::lineOf(const QString& node) const {
    return node.isEmpty() ? QTextCursor() : document()->find("%" + node + " ");
}

void GraphTextPanel::showNodeLine(const QString& node) {
    QTextCursor found = lineOf(node);
    if (found.isNull()) {
        if (node.isEmpty()) {
            QTextCursor cursor = textCursor();
            cursor.clearSelection();
            setTextCursor(cursor);
        }
        return;
    }
    found.movePosition(QTextCursor::StartOfBlock);
    found.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    setTextCursor(found);
    centerCursor();
}

void GraphTextPanel::markCurrentLine(const QString& node, const QColor& color) {
    QList<QTextEdit::ExtraSelection> marks;
    QTextCursor found = lineOf(node);
    if (!found.isNull()) {
        QTextEdit::ExtraSelection mark;
        mark.cursor = found;
        mark.cursor.clearSelection();
        mark.format.setBackground(color);
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks.append(mark);
        setTextCursor(mark.cursor);
    }
    setExtraSelections(marks);
}

bool GraphTextPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == viewport() && event->type() == QEvent::MouseButtonRelease) {
        auto* click = static_cast<QMouseEvent*>(event);
        QString node = nodeOfLine(cursorForPosition(click->position().toPoint()).block().text());
        if (!node.isEmpty())
            emit nodeClicked(node);
    }
    return QPlainTextEdit::eventFilter(watched, event);
}

} // namespace fxview
