// The module hierarchy (issue 14): core's scope tree and collapsed view on a graph made by hand,
// then the main window, offscreen, on the language models of tests/fixtures/lm_models.py: boxes
// that open and close by double-click, merged edges with shapes, collapse to depth, stepping over
// and into a closed scope, a scope breakpoint, Find opening a path, the state remembered.

#include <QApplication>
#include <QFile>
#include <QGraphicsView>
#include <QJsonArray>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeView>
#include <memory>

#include "FxText.h"
#include "GraphBuilding.h"
#include "ScopeView.h"
#include "WindowSupport.h"
#include "panels/LoadProgress.h"
#include "panels/NodeListPanel.h"
#include "scene/ClusterItem.h"
#include "scene/EdgeItem.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"

using namespace fxview;

namespace {

// x -> a (fc, relu) -> b (inner (mul), add of mul and relu) -> output.
Graph nested() {
    Graph g;
    g.nodes.push_back(scopedNode(Op::Placeholder, "x", ""));
    g.nodes.push_back(scopedNode(Op::CallModule, "fc", "a", {"x"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "relu", "a", {"fc"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "mul", "b.inner", {"relu"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "add", "b", {"mul", "relu"}));
    g.nodes.push_back(scopedNode(Op::Output, "output", "", {"add"}));
    g.nodes[1].scopeType = "__torch__.Block";
    g.recomputeUsers();
    return g;
}

QGraphicsView* viewOf(MainWindow& window) {
    return window.scene()->views().value(0);
}

// A double-click where `scenePoint` is on screen, as a person does it.
void doubleClick(MainWindow& window, QPointF scenePoint) {
    QGraphicsView* view = viewOf(window);
    if (!view->viewport()->rect().contains(view->mapFromScene(scenePoint)))
        view->centerOn(scenePoint);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(scenePoint));
}

QString boxOf(MainWindow& window, const std::string& scope) {
    return QString::fromStdString(window.scene()->scopeView()->boxFor(scope));
}

std::string scopeOf(MainWindow& window, const QString& node) {
    const Node* n = window.model().graph.find(node.toStdString());
    return n ? n->scope : "?";
}

// Steps (F10) until the next node to run is inside a closed scope's box; that box's name.
QString stepToABox(MainWindow& window) {
    for (int i = 0; i < 40; ++i) {
        std::string next = window.run().next;
        const ScopeView* view = window.scene()->scopeView();
        if (view && view->boxOf.count(next))
            return QString::fromStdString(view->boxOf.at(next));
        press(window, QKeySequence(Qt::Key_F10));
        if (!waitFor(&window, SIGNAL(runShown())) || !settle(window))
            return {};
    }
    return {};
}

} // namespace

class TestScopes : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    // core
    void treeCountsAndDepths();
    void collapsedViewMergesEdges();
    void boxRunStateFromMembers();
    void weightsFoldIntoTheirBox();
    void aScopeCalledTwiceIsTwoBoxes();
    void aBoxStopsBeforeItsGuard();
    // the window
    void bigModelOpensCollapsed();
    void doubleClickOpensAndCloses();
    void collapseToDepthAndExpandAll();
    void stepOverAndIntoAClosedScope();
    void scopeBreakpointStopsBeforeItsFirstNode();
    void findOpensThePath();
    void nodeListIsTheTree();
    void stateSurvivesAReopen();
    void openingKeepsTheRestInPlace();
    void expandingABigModelRunsInTheBackground();
    void exportsDrawTheBoxes();

private:
    std::unique_ptr<MainWindow> window_;
};

void TestScopes::init() {
    QSettings().clear(); // each test from the default state; a reopen within one remembers
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void TestScopes::cleanup() {
    window_.reset();
}

void TestScopes::treeCountsAndDepths() {
    ScopeTree tree(nested());
    QCOMPARE(tree.size(), 3);
    QCOMPARE(tree.roots(), (std::vector<std::string>{"a", "b"}));
    QCOMPARE(tree.maxDepth(), 2);
    QCOMPARE(tree.find("b.inner")->parent, std::string("b"));
    QCOMPARE(tree.find("b")->nodeCount, 2);
    QCOMPARE(tree.find("b")->firstNode, std::string("mul"));
    QCOMPARE(tree.find("b")->lastNode, std::string("add"));
    QCOMPARE(tree.find("a")->type, std::string("__torch__.Block"));
    QCOMPARE(tree.drawnCount({}), 4);                  // x, a, b, output
    QCOMPARE(tree.drawnCount(tree.openToDepth(1)), 6); // x, fc, relu, inner, add, output
    QCOMPARE(tree.drawnCount(tree.allOpen()), 6);
    QCOMPARE(tree.defaultOpen(), tree.allOpen()); // small: everything open
    QCOMPARE(ScopeTree::closedAround("b.inner", {"b"}), std::string("b.inner"));
    QCOMPARE(ScopeTree::closedAround("b.inner", {"b", "b.inner"}), std::string());
}

void TestScopes::collapsedViewMergesEdges() {
    Graph g = nested();
    ScopeTree tree(g);
    ScopeView view = collapseScopes(g, tree, {});
    std::vector<std::string> names;
    for (const Node& n : view.graph.nodes)
        names.push_back(n.name);
    QCOMPARE(names, (std::vector<std::string>{"x", "a", "b", "output"}));
    const Node* b = view.graph.find("b");
    QCOMPARE(b->op, Op::CallModule);
    QCOMPARE(b->target, std::string("b"));
    QCOMPARE(b->collapsedNodes, 2);
    // add takes mul and relu, mul takes relu: one edge a -> b, carrying relu.
    QCOMPARE(b->args.size(), std::size_t(1));
    QCOMPARE(b->args[0].text, std::string("a"));
    QCOMPARE(view.valuesOf("a", "b"), (std::vector<std::string>{"relu"}));
    QCOMPARE(view.graph.find("output")->args[0].text, std::string("b"));
    QCOMPARE(view.shownName("mul"), std::string("b"));
    QCOMPARE(view.box("b")->outputs, (std::vector<std::string>{"add"}));
    // torch.fx's own text of the view: a box is a call_module of its path.
    std::string text = formatGraph(view.graph);
    QVERIFY2(text.find("%b : [num_users=1] = call_module[target=b](args = (%a,), kwargs = {})") !=
                 std::string::npos,
             text.c_str());
    // Opening b keeps b.inner a box, now inside b's frame; a name taken by a node gets a suffix.
    g.nodes[4].name = "b_inner";
    g.nodes[5].args[0].text = "b_inner";
    g.recomputeUsers();
    ScopeView open = collapseScopes(g, ScopeTree(g), {"b"});
    QVERIFY(open.graph.find("b_inner_1"));
    QCOMPARE(open.graph.find("b_inner_1")->scope, std::string("b"));
    QCOMPARE(open.boxFor("b.inner"), std::string("b_inner_1"));
    // Everything open: the graph itself.
    QCOMPARE(formatGraph(collapseScopes(g, ScopeTree(g), ScopeTree(g).allOpen()).graph),
             formatGraph(g));
}

void TestScopes::boxRunStateFromMembers() {
    Graph g = nested();
    ScopeView view = collapseScopes(g, ScopeTree(g), {});
    std::map<std::string, NodeRecord> records;
    auto recordOf = [&](const std::string& n) -> const NodeRecord* {
        auto it = records.find(n);
        return it == records.end() ? nullptr : &it->second;
    };
    QCOMPARE(scopeRun(*view.box("b"), recordOf, false).state, ScopeRun::State::NotRun);
    NodeRecord done;
    done.state = NodeState::Done;
    done.value.type = "Tensor";
    done.value.shape = {2, 3};
    records["relu"] = done;
    records["mul"] = done;
    ScopeRun running = scopeRun(*view.box("b"), recordOf, true);
    QCOMPARE(running.state, ScopeRun::State::Running);
    QCOMPARE(running.shapes, std::string("[2, 3] → ?"));
    records["add"] = done;
    records["add"].value.shape = {2, 4};
    ScopeRun finished = scopeRun(*view.box("b"), recordOf, false);
    QCOMPARE(finished.state, ScopeRun::State::Done);
    QCOMPARE(finished.shapes, std::string("[2, 3] → [2, 4]"));
    records["add"].state = NodeState::Failed;
    QCOMPARE(scopeRun(*view.box("b"), recordOf, true).state, ScopeRun::State::Failed);
}

void TestScopes::weightsFoldIntoTheirBox() {
    // A .pt2's weights are placeholders at the top, outside every scope.
    Graph g = nested();
    Node weight = scopedNode(Op::Placeholder, "p_w", "");
    weight.placeholderKind = PlaceholderKind::Parameter;
    Node shared = scopedNode(Op::Placeholder, "p_shared", "");
    shared.placeholderKind = PlaceholderKind::Parameter;
    g.nodes.insert(g.nodes.begin() + 1, {weight, shared});
    g.nodes[5].args.push_back(Argument::ofNode("p_w"));      // mul, in b.inner
    g.nodes[5].args.push_back(Argument::ofNode("p_shared")); // and fc, in a
    g.nodes[3].args.push_back(Argument::ofNode("p_shared"));
    g.recomputeUsers();
    ScopeTree tree(g);
    ScopeView closed = collapseScopes(g, tree, {});
    QVERIFY(!closed.graph.find("p_w"));
    QCOMPARE(closed.shownName("p_w"), std::string("b"));
    QCOMPARE(closed.box("b")->weights, (std::vector<std::string>{"p_w"}));
    QVERIFY(closed.graph.find("p_shared")); // read by two boxes: drawn, feeding both
    QCOMPARE(closed.graph.find("x")->name, std::string("x"));
    QCOMPARE(closed.graph.nodes.front().name, std::string("x")); // order kept
    ScopeView open = collapseScopes(g, tree, {"b"});
    QCOMPARE(open.shownName("p_w"), open.boxFor("b.inner"));
    QVERIFY(!collapseScopes(g, tree, tree.allOpen()).collapsed());
}

void TestScopes::aScopeCalledTwiceIsTwoBoxes() {
    // x -> act (call 1) -> mid -> act (call 2) -> output: one box would take mid's output and
    // give it its input, a cycle; torch.fx records two calls.
    Graph g;
    g.nodes.push_back(scopedNode(Op::Placeholder, "x", ""));
    g.nodes.push_back(scopedNode(Op::CallFunction, "gelu", "act", {"x"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "mid", "", {"gelu"}));
    g.nodes.push_back(scopedNode(Op::CallFunction, "gelu_1", "act", {"mid"}));
    g.nodes.push_back(scopedNode(Op::Output, "output", "", {"gelu_1"}));
    g.recomputeUsers();
    ScopeView view = collapseScopes(g, ScopeTree(g), {});
    std::vector<std::string> names;
    for (const Node& n : view.graph.nodes)
        names.push_back(n.name);
    QCOMPARE(names, (std::vector<std::string>{"x", "act", "mid", "act_1", "output"}));
    QCOMPARE(view.graph.find("mid")->args[0].text, std::string("act"));
    QCOMPARE(view.graph.find("act_1")->args[0].text, std::string("mid"));
    QCOMPARE(view.box("act_1")->first, std::string("gelu_1"));
    QCOMPARE(view.boxFor("act"), std::string("act"));
    QCOMPARE(view.boxRunning("gelu_1"), view.box("act_1"));
}

void TestScopes::aBoxStopsBeforeItsGuard() {
    // A scripted module's forward often starts with an argument check, hidden, that runs with
    // the next shown node: a breakpoint on its box stops before the guard, and stepping over it
    // runs to its last shown node (no run stops after a hidden one).
    Graph g = nested();
    Node guard = scopedNode(Op::CallFunction, "check", "b", {"relu"});
    guard.hidden = true;
    g.nodes.insert(g.nodes.begin() + 3, guard);
    Node tail = scopedNode(Op::CallFunction, "check_1", "b", {"add"});
    tail.hidden = true;
    g.nodes.insert(g.nodes.begin() + 6, tail);
    g.recomputeUsers();
    ScopeTree tree(g);
    ScopeView view = collapseScopes(g, tree, {});
    QCOMPARE(view.box("b")->first, std::string("check"));
    QCOMPARE(view.box("b")->last, std::string("add"));
    QCOMPARE(view.box("b")->shownMembers, 2);
    QCOMPARE(tree.find("b")->firstNode, std::string("check"));
    QCOMPARE(tree.find("b")->lastNode, std::string("add"));
}

void TestScopes::bigModelOpensCollapsed() {
    QVERIFY(open(*window_, "lm.pt"));
    // 5,000-odd nodes: collapsed to the deepest depth drawing at most 150, here layers.N.
    QVERIFY(window_->model().graph.nodeCount() > 5000);
    QCOMPARE(window_->openScopes(), QStringList({"layers", "norm"}));
    const ScopeView* view = window_->scene()->scopeView();
    QCOMPARE(view->boxes.size(), std::size_t(96));
    for (int i = 0; i < 96; ++i) {
        NodeItem* box = window_->scene()->nodeItem(boxOf(*window_, "layers." + std::to_string(i)));
        QVERIFY(box && box->isScopeBox());
    }
    QVERIFY(window_->scene()->nodeCount() <= 150);
    QVERIFY2(window_->statusText().contains(QString("%1 nodes (%2 drawn)")
                                                .arg(window_->model().graph.nodeCount())
                                                .arg(window_->scene()->nodeCount())),
             qPrintable(window_->statusText()));
}

void TestScopes::doubleClickOpensAndCloses() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    press(*window_, QKeySequence(Qt::Key_F5)); // run it all: edges and boxes take shapes
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())) && settle(*window_));
    QVERIFY(window_->run().finished);
    QString box0 = boxOf(*window_, "layers.0"), box1 = boxOf(*window_, "layers.1");
    QVERIFY(!box0.isEmpty() && !box1.isEmpty());
    // One merged edge between two boxes, carrying the residual stream's shape.
    int between = 0;
    for (EdgeItem* e : window_->scene()->edgeItems())
        if (e->from() == box0 && e->to() == box1) {
            ++between;
            QCOMPARE(e->label(), QString("[1, 16, 32]"));
        }
    QCOMPARE(between, 1);
    NodeItem* item = window_->scene()->nodeItem(box1);
    QCOMPARE(item->runState(), NodeItem::State::Done);
    QCOMPARE(item->shapeText(), QString("[1, 16, 32] → [1, 16, 32]"));

    // Double-click on the box: it opens where it was, its sub-scopes boxes inside its frame.
    viewOf(*window_)->centerOn(item);
    const QPointF onScreen = viewOf(*window_)->mapFromScene(item->sceneBoundingRect().topLeft());
    doubleClick(*window_, item->sceneBoundingRect().center());
    QVERIFY(window_->openScopes().contains("layers.1"));
    ClusterItem* frame = window_->scene()->clusterItem("layers.1");
    QVERIFY(frame);
    QVERIFY(window_->scene()->nodeItem(boxOf(*window_, "layers.1.attn")));
    QVERIFY(!window_->scene()->nodeItem(box1));
    // (A picture this small cannot scroll to put the frame's corner exactly there, as the 96-layer
    // one does in openingKeepsTheRestInPlace: the frame covers where the box was.)
    const QRect frameAt = viewOf(*window_)->mapFromScene(frame->sceneBoundingRect()).boundingRect();
    QVERIFY2(frameAt.contains(onScreen.toPoint() + QPoint(2, 2)),
             qPrintable(QString("box at %1,%2").arg(onScreen.x()).arg(onScreen.y())));
    // Shapes are back on the new items at once: the run's records stay.
    QCOMPARE(window_->scene()->nodeItem(boxOf(*window_, "layers.1.mlp"))->runState(),
             NodeItem::State::Done);

    // Double-click on the frame's title: closed again.
    doubleClick(*window_, frame->sceneBoundingRect().topLeft() + QPointF(4, 4));
    QVERIFY(!window_->openScopes().contains("layers.1"));
    QVERIFY(window_->scene()->nodeItem(box1));
    QVERIFY(!window_->scene()->clusterItem("layers.1"));
}

void TestScopes::collapseToDepthAndExpandAll() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    const int all = window_->scene()->nodeCount();
    // Under 300 nodes: all open, each weight one node reads drawn inside that node's box.
    Graph drawn = window_->model().graph;
    const int inside = drawWeightsInside(drawn);
    QVERIFY(inside > 0);
    QCOMPARE(all, drawn.nodeCount() - inside);
    window_->collapseToDepth(0);
    QCOMPARE(window_->openScopes(), QStringList());
    QVERIFY(window_->scene()->nodeItem(boxOf(*window_, "layers")));
    QVERIFY(window_->scene()->nodeCount() < 12);
    window_->collapseToDepth(2);
    QVERIFY(window_->openScopes().contains("layers.2"));
    QVERIFY(window_->scene()->nodeItem(boxOf(*window_, "layers.2.attn")));
    window_->expandAll();
    QCOMPARE(window_->scene()->nodeCount(), all);
    QVERIFY(!window_->scene()->scopeView()->collapsed());
}

void TestScopes::stepOverAndIntoAClosedScope() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    const QString box = stepToABox(*window_);
    QCOMPARE(box, boxOf(*window_, "layers.0"));
    // Step over: the whole scope runs, as a call_module does; its box is the current one.
    press(*window_, QKeySequence(Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())) && settle(*window_));
    QCOMPARE(window_->currentNode().toStdString(),
             window_->model().scopes.find("layers.0")->lastNode);
    NodeItem* item = window_->scene()->nodeItem(box);
    QCOMPARE(item->runState(), NodeItem::State::Current);
    QCOMPARE(item->shapeText(), QString("[1, 16, 32] → [1, 16, 32]"));
    // The next one: Step Into opens it and runs its first node, now drawn and current.
    QCOMPARE(stepToABox(*window_), boxOf(*window_, "layers.1"));
    press(*window_, QKeySequence(Qt::Key_F11));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())) && settle(*window_));
    QVERIFY(window_->openScopes().contains("layers.1"));
    const QString current = window_->currentNode();
    QVERIFY(QString::fromStdString(scopeOf(*window_, current)).startsWith("layers.1"));
    QVERIFY(window_->scene()->nodeItem(current));
    QCOMPARE(window_->scene()->nodeItem(current)->runState(), NodeItem::State::Current);
}

void TestScopes::scopeBreakpointStopsBeforeItsFirstNode() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    const QString box = boxOf(*window_, "layers.2");
    window_->toggleBreakpoint(box);
    QVERIFY(window_->scene()->nodeItem(box)->hasBreakpoint());
    press(*window_, QKeySequence(Qt::Key_F5));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())) && settle(*window_));
    QVERIFY(!window_->run().finished);
    QCOMPARE(window_->run().next, window_->model().scopes.find("layers.2")->firstNode);
    QCOMPARE(scopeOf(*window_, window_->currentNode()).rfind("layers.1", 0), std::size_t(0));
    // Opened, the breakpoint is on that first node's own box.
    window_->setScopeOpen("layers.2", true);
    QString first = QString::fromStdString(window_->model().scopes.find("layers.2")->firstNode);
    NodeItem* drawn = window_->scene()->nodeItem(window_->drawnAs(first));
    QVERIFY(drawn && drawn->hasBreakpoint());
    // Run to Cursor on a box runs until its scope has run whole.
    window_->collapseToDepth(1);
    window_->selectNode(box);
    window_->toggleBreakpoint(box); // off again
    QVERIFY(!window_->scene()->nodeItem(box)->hasBreakpoint());
    press(*window_, QKeySequence(Qt::CTRL | Qt::Key_F10));
    QVERIFY(waitFor(window_.get(), SIGNAL(runShown())) && settle(*window_));
    QCOMPARE(window_->currentNode().toStdString(),
             window_->model().scopes.find("layers.2")->lastNode);
}

void TestScopes::findOpensThePath() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(0);
    QString target;
    for (const Node& n : window_->model().graph.nodes)
        if (n.scope == "layers.1.attn" && n.op == Op::CallModule && target.isEmpty())
            target = QString::fromStdString(n.name);
    QVERIFY(!target.isEmpty());
    QVERIFY(!window_->scene()->nodeItem(target));
    QVERIFY(window_->findNode(target));
    QCOMPARE(window_->selectedNode(), target);
    QVERIFY(window_->scene()->nodeItem(target));
    for (const char* scope : {"layers", "layers.1", "layers.1.attn"})
        QVERIFY2(window_->openScopes().contains(scope), scope);
    QVERIFY(!window_->openScopes().contains("layers.0"));
}

void TestScopes::nodeListIsTheTree() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    QTreeView* list = window_->nodeList()->tree();
    const QModelIndex layers = window_->nodeList()->rowOf("layers");
    QVERIFY(layers.isValid());
    QVERIFY(!layers.parent().isValid());
    QCOMPARE(list->model()->rowCount(layers), 3);
    QVERIFY(list->isExpanded(layers));
    const QModelIndex second = list->model()->index(1, 0, layers);
    QCOMPARE(second.siblingAtColumn(1).data().toString(), QString("layers.1"));
    QVERIFY(!list->isExpanded(second));
    // Expanding its row opens the scope in the picture, as a person's click on its arrow does.
    list->setExpanded(second, true);
    QVERIFY(window_->openScopes().contains("layers.1"));
    QVERIFY(window_->scene()->clusterItem("layers.1"));
    // Closing it in the picture closes the row.
    window_->setScopeOpen("layers.1", false);
    QVERIFY(!list->isExpanded(second));
    // The graph text is the view's: a closed scope is one call_module line, as torch.fx prints
    // it when that module is a leaf (the fixture: symbolic_trace with DecoderLayer a leaf).
    const QString text = window_->findChild<QPlainTextEdit*>()->toPlainText();
    int boxes = 0;
    for (const QString& line :
         QString::fromUtf8(readFile(fixture("lm_nested_layers_as_leaves.txt"))).split('\n'))
        if (line.contains("call_module[target=layers.") || line.contains("%embed :")) {
            QVERIFY2(text.contains(line), qPrintable(line + "\nnot in\n" + text.left(600)));
            ++boxes;
        }
    QCOMPARE(boxes, 4);
}

void TestScopes::stateSurvivesAReopen() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    window_->setScopeOpen("layers.2.mlp", true);
    const QStringList state = window_->openScopes();
    QVERIFY(state.contains("layers.2") && state.contains("layers.2.mlp"));
    window_ = std::make_unique<MainWindow>();
    QVERIFY(open(*window_, "lm_nested.pt"));
    QCOMPARE(window_->openScopes(), state);
    QVERIFY(window_->scene()->nodeItem(boxOf(*window_, "layers.0")));
    QVERIFY(window_->scene()->clusterItem("layers.2.mlp"));
}

void TestScopes::openingKeepsTheRestInPlace() {
    QVERIFY(open(*window_, "lm.pt"));
    auto at = [this](const std::string& scope) {
        NodeItem* item = window_->scene()->nodeItem(boxOf(*window_, scope));
        return item ? item->scenePos() : QPointF(-1, -1);
    };
    const QPointF first = at("layers.0"), before = at("layers.49");
    const int reused = window_->model().layoutCache->reused();
    NodeItem* box = window_->scene()->nodeItem(boxOf(*window_, "layers.50"));
    viewOf(*window_)->centerOn(box);
    const QPointF onScreen = viewOf(*window_)->mapFromScene(box->sceneBoundingRect().topLeft());
    doubleClick(*window_, box->sceneBoundingRect().center());
    QVERIFY(window_->scene()->clusterItem("layers.50"));
    // The pieces above the change come from the cache: not a point moved.
    QVERIFY(window_->model().layoutCache->reused() > reused);
    QCOMPARE(at("layers.0"), first);
    QCOMPARE(at("layers.49"), before);
    // Where the box was on screen, its frame is now (as far as the narrow picture can scroll
    // sideways: the frame is wider than the box was).
    QPointF frame = viewOf(*window_)->mapFromScene(
        window_->scene()->clusterItem("layers.50")->sceneBoundingRect().topLeft());
    QVERIFY2(std::abs(frame.y() - onScreen.y()) < 3 && frame.x() <= onScreen.x() + 2,
             qPrintable(QString("box at %1,%2, frame at %3,%4")
                            .arg(onScreen.x())
                            .arg(onScreen.y())
                            .arg(frame.x())
                            .arg(frame.y())));
}

// lm.pt's 5,000-odd nodes opened all at once: laid out off the GUI thread, with progress and
// Cancel; cancelled, the picture stays; let run, every node is drawn.
void TestScopes::expandingABigModelRunsInTheBackground() {
    QVERIFY(open(*window_, "lm.pt"));
    const QStringList before = window_->openScopes();
    const int drawn = window_->scene()->nodeCount();
    window_->expandAll();
    QVERIFY(window_->layingOut());
    QVERIFY2(window_->loadProgress()->stage().startsWith("Laying out "),
             qPrintable(window_->loadProgress()->stage()));
    QVERIFY(window_->cancelLayout());
    QVERIFY(!window_->layingOut() && window_->loadProgress()->stage().isEmpty());
    QTest::qWait(300); // a result that was on its way is dropped
    QCOMPARE(window_->openScopes(), before);
    QCOMPARE(window_->scene()->nodeCount(), drawn);

    QSignalSpy shown(window_.get(), SIGNAL(scopesShown()));
    window_->expandAll();
    QVERIFY(shown.wait(120000));
    QVERIFY(!window_->layingOut() && window_->loadProgress()->stage().isEmpty());
    QVERIFY(!window_->scene()->scopeView()->collapsed());
    QVERIFY(window_->scene()->nodeCount() > 5000);
}

void TestScopes::exportsDrawTheBoxes() {
    QVERIFY(open(*window_, "lm_nested.pt"));
    window_->collapseToDepth(1);
    window_->setScopeOpen("layers.1", true);
    QTemporaryDir dir;
    const QString svg = dir.filePath("lm.svg"), json = dir.filePath("lm.json"),
                  dot = dir.filePath("lm.dot");
    QCOMPARE(window_->exportTo(svg), QString());
    QCOMPARE(window_->exportTo(json), QString());
    QCOMPARE(window_->exportTo(dot), QString());
    // The text as the dock shows it after the scopes changed: the boxes as calls.
    const QString txt = dir.filePath("lm.txt");
    QCOMPARE(window_->exportTo(txt), QString());
    QCOMPARE(QString::fromUtf8(readFile(txt.toStdString())).trimmed(),
             QString::fromStdString(formatGraph(window_->scene()->scopeView()->graph)).trimmed());
    QString picture = QString::fromUtf8(readFile(svg.toStdString()));
    for (const char* title : {">layers.0<", ">layers.2<", ">layers.1.attn<", ">layers.1.mlp<"})
        QVERIFY2(picture.contains(title), title);
    QVERIFY(!picture.contains(">layers.0.attn<"));
    QVERIFY(QString::fromUtf8(readFile(dot.toStdString())).contains("layers_0"));
    QJsonObject doc = QJsonDocument::fromJson(readFile(json.toStdString())).object();
    std::map<QString, QJsonObject> scopes;
    for (const QJsonValue& s : doc["scopes"].toArray())
        scopes[s["path"].toString()] = s.toObject();
    QVERIFY(scopes["layers.0"]["box"].toBool());
    QVERIFY(scopes["layers.1"]["open"].toBool());
    QVERIFY(scopes["layers.1.attn"]["box"].toBool());
    QVERIFY(scopes.count("layers.0.attn")); // in the tree, though inside a box: not drawn at all
    QVERIFY(!scopes["layers.0.attn"]["box"].toBool() && !scopes["layers.0.attn"]["open"].toBool());
    QCOMPARE(scopes["layers.1"]["parent"].toString(), QString("layers"));
    // JSON keeps every node: the data, not the picture.
    QCOMPARE(doc["nodes"].toArray().size(),
             static_cast<qsizetype>(window_->model().graph.nodes.size()));
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // remembered scopes go to a test-only place
    QApplication app(argc, argv);
    QSettings().clear();
    TestScopes test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_scopes.moc"
