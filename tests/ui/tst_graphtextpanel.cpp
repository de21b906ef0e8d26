// The "Graph as text" dock on its own: the text kept for export, a node's line found, selected and
// marked, and a click on a node's line telling the window which node.

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>

#include "panels/GraphTextPanel.h"

using namespace fxview;

namespace {

const std::string kText = "graph():\n"
                          "    %x : [num_users=1] = placeholder[target=x]\n"
                          "    %relu : [num_users=1] = call_function[target=torch.relu](args = "
                          "(%x,), kwargs = {})\n"
                          "    return relu\n";

} // namespace

class TestGraphTextPanel : public QObject {
    Q_OBJECT
private slots:
    void keepsTheTextItShows();
    void aNodesLineIsSelectedAndMarked();
    void aClickOnANodesLineNamesTheNode();
};

void TestGraphTextPanel::keepsTheTextItShows() {
    GraphTextPanel panel;
    panel.setGraphText(kText);
    QCOMPARE(panel.graphText(), kText);
    QCOMPARE(panel.toPlainText(), QString::fromStdString(kText));
    QCOMPARE(GraphTextPanel::nodeOfLine("    %relu : [num_users=1] = call_function"),
             QString("relu"));
    QVERIFY(GraphTextPanel::nodeOfLine("    return relu").isEmpty());
}

void TestGraphTextPanel::aNodesLineIsSelectedAndMarked() {
    GraphTextPanel panel;
    panel.setGraphText(kText);
    panel.showNodeLine("relu");
    QVERIFY(panel.textCursor().selectedText().startsWith("    %relu : "));
    panel.showNodeLine({}); // nothing selected: no line stays selected
    QVERIFY(!panel.textCursor().hasSelection());
    panel.showNodeLine("nowhere"); // not in this graph: nothing changes
    QVERIFY(!panel.textCursor().hasSelection());

    panel.markCurrentLine("x", Qt::yellow);
    QCOMPARE(panel.extraSelections().size(), 1);
    QCOMPARE(panel.extraSelections()[0].cursor.block().text(),
             QString("    %x : [num_users=1] = placeholder[target=x]"));
    QCOMPARE(panel.textCursor().blockNumber(), 1);
    panel.markCurrentLine({}, Qt::yellow);
    QVERIFY(panel.extraSelections().isEmpty());
}

void TestGraphTextPanel::aClickOnANodesLineNamesTheNode() {
    GraphTextPanel panel;
    panel.resize(600, 300);
    panel.setGraphText(kText);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy clicked(&panel, &GraphTextPanel::nodeClicked);
    auto lineCenter = [&](int block) {
        QTextCursor at(panel.document()->findBlockByNumber(block));
        return panel.cursorRect(at).center() + QPoint(20, 0);
    };
    QTest::mouseClick(panel.viewport(), Qt::LeftButton, {}, lineCenter(2));
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked[0][0].toString(), QString("relu"));
    QTest::mouseClick(panel.viewport(), Qt::LeftButton, {}, lineCenter(3)); // `return relu`
    QCOMPARE(clicked.size(), 1);
}

QTEST_MAIN(TestGraphTextPanel)
#include "tst_graphtextpanel.moc"
