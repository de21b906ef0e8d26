// The Nodes dock on its own: rows under their scopes, a .pt2's weights under one row, the filter,
// a run's shapes and the current row, and what a person's clicks and expands ask the window for.

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

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

QTreeWidgetItem* row(QTreeWidget* tree, const QString& name) {
    QList<QTreeWidgetItem*> found = tree->findItems(name, Qt::MatchExactly | Qt::MatchRecursive, 1);
    return found.value(0);
}

} // namespace

class TestNodeListPanel : public QObject {
    Q_OBJECT
private slots:
    void rowsSitUnderTheirScopesAndWeightsUnderOneRow();
    void withoutScopesEveryNodeIsATopRow();
    void filterKeepsAScopeWhileAnythingUnderItMatches();
    void recordsFillShapesAndBoldTheCurrentRow();
    void clicksAndExpandsAreTold();
};

void TestNodeListPanel::rowsSitUnderTheirScopesAndWeightsUnderOneRow() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {"b"});
    QTreeWidget* tree = panel.tree();
    QCOMPARE(row(tree, "fc")->parent(), row(tree, "a"));
    QCOMPARE(row(tree, "mul")->parent(), row(tree, "b.inner"));
    QCOMPARE(row(tree, "b.inner")->parent(), row(tree, "b"));
    QCOMPARE(row(tree, "p_fc_weight")->parent(), row(tree, "weights"));
    QCOMPARE(row(tree, "weights")->text(2), QString("1 parameter, buffer and constant"));
    QVERIFY(row(tree, "b")->isExpanded());
    QVERIFY(!row(tree, "a")->isExpanded());
    QVERIFY(!row(tree, "x")->parent());
}

void TestNodeListPanel::withoutScopesEveryNodeIsATopRow() {
    NodeListPanel panel;
    Graph graph = nested();
    panel.fill(graph, nullptr, {});
    QVERIFY(!row(panel.tree(), "a"));
    QVERIFY(!row(panel.tree(), "fc")->parent());
}

void TestNodeListPanel::filterKeepsAScopeWhileAnythingUnderItMatches() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {});
    panel.filter()->setText("mul");
    QVERIFY(!row(panel.tree(), "mul")->isHidden());
    QVERIFY(!row(panel.tree(), "b")->isHidden());
    QVERIFY(row(panel.tree(), "a")->isHidden());
    QVERIFY(row(panel.tree(), "x")->isHidden());
    panel.fill(graph, &scopes, {}); // a new graph: the filter is cleared
    QVERIFY(panel.filter()->text().isEmpty());
    QVERIFY(!row(panel.tree(), "x")->isHidden());
}

void TestNodeListPanel::recordsFillShapesAndBoldTheCurrentRow() {
    NodeListPanel panel;
    Graph graph = nested();
    panel.fill(graph, nullptr, {});
    NodeRecord done;
    done.state = NodeState::Done;
    done.value.type = "Tensor";
    done.value.shape = {3, 4};
    done.value.dtype = "float32";
    panel.showRecords([&](const std::string& n) { return n == "x" || n == "fc" ? &done : nullptr; },
                      "fc");
    QCOMPARE(row(panel.tree(), "fc")->text(3),
             QString::fromStdString(shortDescription(done.value)));
    QVERIFY(!row(panel.tree(), "fc")->text(3).isEmpty());
    QVERIFY(row(panel.tree(), "relu")->text(3).isEmpty());
    QVERIFY(row(panel.tree(), "fc")->font(1).bold());
    QVERIFY(!row(panel.tree(), "x")->font(1).bold());
    panel.showRecords([](const std::string&) { return nullptr; }, "relu"); // Reset, then a step
    QVERIFY(!row(panel.tree(), "fc")->font(1).bold());
    QVERIFY(row(panel.tree(), "fc")->text(3).isEmpty());
}

void TestNodeListPanel::clicksAndExpandsAreTold() {
    NodeListPanel panel;
    Graph graph = nested();
    ScopeTree scopes(graph);
    panel.fill(graph, &scopes, {});
    QSignalSpy chosen(&panel, &NodeListPanel::nodeChosen);
    QSignalSpy scope(&panel, &NodeListPanel::scopeChosen);
    QSignalSpy toggled(&panel, &NodeListPanel::scopeToggled);
    panel.tree()->setCurrentItem(row(panel.tree(), "relu"));
    QCOMPARE(chosen.value(0).value(0).toString(), QString("relu"));
    panel.tree()->setCurrentItem(row(panel.tree(), "a"));
    QCOMPARE(scope.value(0).value(0).toString(), QString("a"));
    panel.tree()->setCurrentItem(row(panel.tree(), "weights")); // a heading: nothing to show
    QCOMPARE(chosen.size() + scope.size(), 2);
    row(panel.tree(), "b")->setExpanded(true);
    QCOMPARE(toggled.size(), 1);
    QCOMPARE(toggled.value(0).value(0).toString(), QString("b"));
    QVERIFY(toggled.value(0).value(1).toBool());
    panel.syncScopes({"a"}); // the window's own doing: not the person's
    QCOMPARE(toggled.size(), 1);
    QVERIFY(row(panel.tree(), "a")->isExpanded());
    QVERIFY(!row(panel.tree(), "b")->isExpanded());
    panel.showSelected("mul", "b");
    QCOMPARE(panel.tree()->currentItem(), row(panel.tree(), "b"));
    panel.showSelected({});
    QVERIFY(!panel.tree()->currentItem());
}

QTEST_MAIN(TestNodeListPanel)
#include "tst_nodelistpanel.moc"
