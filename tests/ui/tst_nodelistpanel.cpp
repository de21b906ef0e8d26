// The Nodes dock on its own: rows under their scopes, a .pt2's weights under one row, the filter,
// a run's shapes and the current row, and what a person's clicks and expands ask the window for.

#include <QApplication>
#include <QFont>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include "GraphBuilding.h"
#include "panels/NodeListPanel.h"

using namespace fxview;

namespace {

// A lifted weight, the input x, a (fc, relu), b.inner (mul), output.
Graph nested() {
    Graph g;
    g.nodes.push_back(scopedNode(Op::Placeholder, "p_fc_weight", ""));
    g.nodes.back().placeholderKind = PlaceholderKind::Parameter;
    g.nodes.push_back(scopedNode(Op::Placeholder, "x", ""));
    g.nodes.push_back(scopedNode(Op::CallModule, "fc", "a", {"x"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "relu", "a", {"fc"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "mul", "b.inner", {"relu"}));
    g.nodes.push_back(scopedNode(Op::Output, "output", "", {"mul"}));
    g.recomputeUsers();
    return g;
}

// A row's cell, as the view shows it.
QString cell(const QModelIndex& row, int column) {
    return row.siblingAtColumn(column).data().toString();
}

bool bold(const QModelIndex& row) {
    return row.siblingAtColumn(1).data(Qt::FontRole).value<QFont>().bold();
}

} // namespace

class TestNodeListPanel : public QObject {
    Q_OBJECT
private slots:
    void rowsSitUnderTheirScopesAndWeightsUnderOneRow();
    void withoutScopesEveryNodeIsATopRow();
    void aDeepScopeIsARowInEachOfItsParents();
    void filterKeepsAScopeWhileAnythingUnderItMatches();
    void recordsFillShapesAndBoldTheCurrentRow();
    void clicksAndExpandsAreTold();
};

void TestNodeListPanel::rowsSitUnderTheirScopesAndWeightsUnderOneRow() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {"b"});
    QCOMPARE(panel.rowOf("fc").parent(), panel.rowOf("a"));
    QCOMPARE(panel.rowOf("mul").parent(), panel.rowOf("b.inner"));
    QCOMPARE(panel.rowOf("b.inner").parent(), panel.rowOf("b"));
    const QModelIndex weights = panel.rowOf("p_fc_weight").parent();
    QCOMPARE(cell(weights, 1), QString("weights"));
    QCOMPARE(cell(weights, 2), QString("1 parameter, buffer and constant"));
    QVERIFY(weights.siblingAtColumn(1).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(panel.tree()->isExpanded(panel.rowOf("b")));
    QVERIFY(!panel.tree()->isExpanded(panel.rowOf("a")));
    QVERIFY(!panel.rowOf("x").parent().isValid());
    QCOMPARE(cell(panel.rowOf("fc"), 0), QString("call_module"));
    QCOMPARE(panel.tree()->model()->rowCount(), 5); // weights, x, a, b, output
}

void TestNodeListPanel::withoutScopesEveryNodeIsATopRow() {
    NodeListPanel panel;
    Graph graph = nested();
    panel.fill(graph, nullptr, {});
    QVERIFY(!panel.rowOf("a").isValid());
    QVERIFY(panel.rowOf("fc").isValid());
    QVERIFY(!panel.rowOf("fc").parent().isValid());
}

// 256 modules deep (the most a program is read with): a row per module, each in its parent's.
void TestNodeListPanel::aDeepScopeIsARowInEachOfItsParents() {
    QStringList chain{"m0"}; // every scope from the outermost in
    for (int i = 1; i < 256; ++i)
        chain << chain.last() + ".m" + QString::number(i);
    Graph graph;
    graph.nodes.push_back(scopedNode(Op::Placeholder, "x", ""));
    graph.nodes.push_back(scopedNode(Op::CallFunction, "relu", chain.last().toStdString(), {"x"}));
    graph.nodes.push_back(scopedNode(Op::CallFunction, "neg", "m0.m1", {"relu"}));
    graph.nodes.push_back(scopedNode(Op::Output, "output", "", {"neg"}));
    graph.recomputeUsers();
    ScopeTree scopes(graph);
    NodeListPanel panel;
    panel.fill(graph, &scopes, {});
    QStringList above;
    for (QModelIndex up = panel.rowOf("relu").parent(); up.isValid(); up = up.parent())
        above.prepend(cell(up, 1));
    QCOMPARE(above, chain);
    QCOMPARE(panel.rowOf("neg").parent(), panel.rowOf("m0.m1"));
    QCOMPARE(panel.tree()->model()->rowCount(panel.rowOf("m0.m1")), 2); // m0.m1.m2 and neg
}

void TestNodeListPanel::filterKeepsAScopeWhileAnythingUnderItMatches() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {});
    auto hidden = [&](const char* name) {
        const QModelIndex row = panel.rowOf(name);
        return panel.tree()->isRowHidden(row.row(), row.parent());
    };
    panel.filter()->setText("mul");
    QVERIFY(!hidden("mul"));
    QVERIFY(!hidden("b"));
    QVERIFY(!hidden("b.inner"));
    QVERIFY(hidden("a"));
    QVERIFY(hidden("x"));
    panel.filter()->setText("MODULE"); // every scope's op column: case does not matter
    QVERIFY(!hidden("a"));
    QVERIFY(hidden("x"));
    panel.fill(graph, &scopes, {}); // a new graph: the filter is cleared
    QVERIFY(panel.filter()->text().isEmpty());
    QVERIFY(!hidden("x"));
    QVERIFY(!hidden("a"));
}

void TestNodeListPanel::recordsFillShapesAndBoldTheCurrentRow() {
    NodeListPanel panel;
    panel.show(); // the rows on screen are the ones told of a change
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    Graph graph = nested();
    panel.fill(graph, nullptr, {});
    NodeRecord done;
    done.state = NodeState::Done;
    done.value.type = "Tensor";
    done.value.shape = {3, 4};
    done.value.dtype = "float32";
    panel.showRecords([&](const std::string& n) { return n == "x" || n == "fc" ? &done : nullptr; },
                      "fc");
    QCOMPARE(cell(panel.rowOf("fc"), 3), QString::fromStdString(shortDescription(done.value)));
    QVERIFY(!cell(panel.rowOf("fc"), 3).isEmpty());
    QVERIFY(cell(panel.rowOf("relu"), 3).isEmpty());
    QVERIFY(bold(panel.rowOf("fc")));
    QVERIFY(!bold(panel.rowOf("x")));
    // The view is told: a shown panel repaints the rows whose records changed.
    QSignalSpy changed(panel.tree()->model(), &QAbstractItemModel::dataChanged);
    // Reset, then a step: every row is on screen, the weights' heading and five nodes.
    panel.showRecords([](const std::string&) { return nullptr; }, "relu");
    QCOMPARE(changed.size(), 6);
    QVERIFY(!bold(panel.rowOf("fc")));
    QVERIFY(bold(panel.rowOf("relu")));
    QVERIFY(cell(panel.rowOf("fc"), 3).isEmpty());
}

void TestNodeListPanel::clicksAndExpandsAreTold() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {});
    QSignalSpy chosen(&panel, &NodeListPanel::nodeChosen);
    QSignalSpy scope(&panel, &NodeListPanel::scopeChosen);
    QSignalSpy toggled(&panel, &NodeListPanel::scopeToggled);
    panel.tree()->setCurrentIndex(panel.rowOf("relu"));
    QCOMPARE(chosen.value(0).value(0).toString(), QString("relu"));
    panel.tree()->setCurrentIndex(panel.rowOf("a"));
    QCOMPARE(scope.value(0).value(0).toString(), QString("a"));
    panel.tree()->setCurrentIndex(panel.rowOf("p_fc_weight").parent()); // a heading
    QCOMPARE(chosen.size() + scope.size(), 2);
    panel.tree()->setExpanded(panel.rowOf("b"), true);
    QCOMPARE(toggled.size(), 1);
    QCOMPARE(toggled.value(0).value(0).toString(), QString("b"));
    QVERIFY(toggled.value(0).value(1).toBool());
    panel.syncScopes({"a"}); // the window's own doing: not the person's
    QCOMPARE(toggled.size(), 1);
    QVERIFY(panel.tree()->isExpanded(panel.rowOf("a")));
    QVERIFY(!panel.tree()->isExpanded(panel.rowOf("b")));
    panel.showSelected("mul", "b");
    QCOMPARE(panel.tree()->currentIndex(), panel.rowOf("b"));
    panel.showSelected("mul");
    QCOMPARE(panel.tree()->currentIndex(), panel.rowOf("mul"));
    panel.showSelected({});
    QVERIFY(!panel.tree()->currentIndex().isValid());
}

QTEST_MAIN(TestNodeListPanel)
#include "tst_nodelistpanel.moc"
