// The Compile panel on its own: a compile session's JSON (as python/fxview/dynamo_live.py sends
// it) listed as graphs (AOTAutograd's under theirs), breaks with counts and recompiles; the graph
// open in bold; activating a row asks for the graph it names; a damaged session is refused with
// a sentence and the panel keeps what it showed.

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include "panels/CompilePanel.h"

using namespace fxview;

namespace {

const char* kSession = R"json({
 "format": "fxview.compile_session", "version": 1, "open": "python:compile:1",
 "graphs": [
  {"index": 0, "compile_id": "0/0", "nodes": 3, "calls": 1, "ended_by": "print",
   "frame": {"file": "/m/model.py", "line": 61, "function": "forward", "code": ""}, "aot": [],
   "passes": [{"name": "relu_to_gelu", "added": ["gelu_1"], "removed": [], "retargeted": ["relu"],
               "error": "", "outputs_equal": false, "first_divergence": "relu"},
              {"name": "raising_pass", "added": [], "removed": [], "retargeted": [],
               "error": "RuntimeError: no", "outputs_equal": null, "first_divergence": null}]},
  {"index": 1, "compile_id": "2/0", "nodes": 4, "calls": 2, "ended_by": "return_value",
   "frame": {"file": "/m/model.py", "line": 54, "function": "torch_dynamo_resume_in__noisy_at_54",
             "code": ""},
   "aot": [{"kind": "forward", "nodes": 9, "calls": 1}, {"kind": "backward", "nodes": 7, "calls": 1}],
   "saved": [{"forward": "relu", "backward": "relu"}], "joint": {"nodes": 14, "calls": 1}}],
 "breaks": [{"reason": "Failed to trace builtin operator", "detail": "Failed to trace builtin operator\n  Explanation: print",
   "where": {"file": "/m/model.py", "line": 54, "function": "_noisy", "code": "print(x)"},
   "stack": [], "instruction": "CALL 1", "count": 2, "graphs": [0, 1]}],
 "recompiles": [{"function": {"file": "/m/model.py", "line": 67, "function": "scaled", "code": ""},
   "guard": "0/1: G['SCALE'] == 2.0", "reasons": ["0/1: G['SCALE'] == 2.0"],
   "where": {"file": "/m/model.py", "line": 68, "function": "scaled", "code": "return x * SCALE"},
   "graph": 1}],
 "notes": ["a note"]
})json";

QTreeWidgetItem* top(CompilePanel& panel, int i) {
    return panel.tree()->topLevelItem(i);
}

} // namespace

class TestCompilePanel : public QObject {
    Q_OBJECT
private slots:
    void listsGraphsBreaksAndRecompiles();
    void activatingARowAsksForItsGraph();
    void aDamagedSessionIsRefused();
    void aPassShowsWhatItChangedAndColoursIt();
};

void TestCompilePanel::listsGraphsBreaksAndRecompiles() {
    CompilePanel panel;
    QCOMPARE(panel.setSession(kSession), QString());
    QVERIFY(panel.hasSession());
    QCOMPARE(panel.tree()->topLevelItemCount(), 3);
    QCOMPARE(top(panel, 0)->text(0), QString("Graphs (2)"));
    QCOMPARE(top(panel, 0)->childCount(), 2);
    QTreeWidgetItem* second = top(panel, 0)->child(1);
    QCOMPARE(second->text(0), QString("graph 1  [2/0]"));
    QCOMPARE(second->text(1), QString("model.py:54"));
    QVERIFY(second->text(2).contains("called 2×"));
    QVERIFY(second->font(0).bold()); // the graph open
    QVERIFY(!top(panel, 0)->child(0)->font(0).bold());
    QCOMPARE(second->childCount(), 3); // its forward, backward, and both as one
    QCOMPARE(second->child(1)->text(0), QString("backward"));
    QCOMPARE(second->child(2)->text(2), QString("14 nodes · 1 saved activations as edges"));
    QCOMPARE(top(panel, 1)->text(0), QString("Graph breaks (2)")); // one break met twice
    QCOMPARE(top(panel, 1)->child(0)->text(0), QString("×2  CALL 1"));
    QVERIFY(top(panel, 1)->child(0)->toolTip(0).contains("Explanation: print"));
    QCOMPARE(top(panel, 2)->text(0), QString("Recompiles (1)"));
    QCOMPARE(top(panel, 2)->child(0)->text(1), QString("model.py:68"));
    QCOMPARE(top(panel, 2)->child(0)->text(2), QString("0/1: G['SCALE'] == 2.0"));
}

void TestCompilePanel::activatingARowAsksForItsGraph() {
    CompilePanel panel;
    QCOMPARE(panel.setSession(kSession), QString());
    QSignalSpy asked(&panel, &CompilePanel::graphRequested);
    auto activate = [&](QTreeWidgetItem* item) {
        emit panel.tree()->itemActivated(item, 0);
        return asked.isEmpty() ? QString() : asked.takeFirst().at(0).toString();
    };
    QCOMPARE(activate(top(panel, 0)->child(0)), QString("python:compile:0"));
    QCOMPARE(activate(top(panel, 0)->child(1)->child(0)), QString("python:compile:1:forward"));
    QCOMPARE(activate(top(panel, 0)->child(1)->child(2)), QString("python:compile:1:joint"));
    QCOMPARE(activate(top(panel, 1)->child(0)), QString("python:compile:0")); // the graph it ended
    QCOMPARE(activate(top(panel, 2)->child(0)), QString("python:compile:1")); // the one it made
    QCOMPARE(activate(top(panel, 0)), QString());                             // a heading: none
}

void TestCompilePanel::aDamagedSessionIsRefused() {
    CompilePanel panel;
    QCOMPARE(panel.setSession(kSession), QString());
    QString said = panel.setSession("{\"format\": \"fxview.comparison\"}");
    QVERIFY2(said.contains("could not be read"), qPrintable(said));
    QVERIFY(!panel.setSession("{not json").isEmpty());
    QCOMPARE(top(panel, 0)->text(0), QString("Graphs (2)")); // what it showed stays
}

void TestCompilePanel::aPassShowsWhatItChangedAndColoursIt() {
    CompilePanel panel;
    QCOMPARE(panel.setSession(kSession), QString());
    QTreeWidgetItem* first = top(panel, 0)->child(0);
    QCOMPARE(first->childCount(), 2);
    QCOMPARE(first->child(0)->text(0), QString("after relu_to_gelu"));
    QCOMPARE(first->child(0)->text(2), QString("+1 −0 ~1 · values part at relu"));
    QVERIFY(first->child(1)->text(2).startsWith("failed: RuntimeError"));
    QVERIFY(panel.openMarks().isEmpty()); // graph 1 is open, not a pass's
    QSignalSpy asked(&panel, &CompilePanel::graphRequested);
    emit panel.tree()->itemActivated(first->child(0), 0);
    QCOMPARE(asked.takeFirst().at(0).toString(), QString("python:compile:0:pass:0"));
    emit panel.tree()->itemActivated(first->child(1), 0); // a failed pass has no graph
    QVERIFY(asked.isEmpty());

    QByteArray opened = QByteArray(kSession).replace("\"open\": \"python:compile:1\"",
                                                     "\"open\": \"python:compile:0:pass:0\"");
    QCOMPARE(panel.setSession(opened), QString());
    auto marks = panel.openMarks();
    QCOMPARE(marks.size(), 2);
    QCOMPARE(marks[0].first, QString("gelu_1")); // added
    QCOMPARE(marks[1].first, QString("relu"));   // retargeted
    QVERIFY(marks[0].second != marks[1].second);
}

QTEST_MAIN(TestCompilePanel)
#include "tst_compilepanel.moc"
