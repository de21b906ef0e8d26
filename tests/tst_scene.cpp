// The graph scene offscreen: one item per node, edge and cluster, sizes measured with the
// scene's font, and a run's states and shapes shown without laying the graph out again.

#include <QApplication>

#include "ClusterItem.h"
#include "EdgeItem.h"
#include "GraphScene.h"
#include "Interpreter.h"
#include "NodeItem.h"
#include "TestSupport.h"

using namespace fxview;

class TestScene : public QObject {
    Q_OBJECT
private slots:
    void oneItemPerNodeAndEdge();
    void runShowsStatesWithoutRelayout();
    void splineBecomesCubicPath();
};

void TestScene::oneItemPerNodeAndEdge() {
    LoadResult loaded = loadModel("example:smallcnn");
    TraceResult traced = traceModel(*loaded.model);
    GraphScene scene;
    QCOMPARE(scene.setGraph(traced.graph), QString());
    QCOMPARE(scene.nodeCount(), traced.graph.nodeCount());
    QCOMPARE(scene.edgeItems().size(), 18);   // every use of a value, as in the fx graph
    QCOMPARE(scene.clusterItems().size(), 1); // the ResidualBlock "block"
    int nodes = 0, edges = 0, clusters = 0;
    for (QGraphicsItem* item : scene.items()) {
        nodes += dynamic_cast<NodeItem*>(item) ? 1 : 0;
        edges += dynamic_cast<EdgeItem*>(item) ? 1 : 0;
        clusters += dynamic_cast<ClusterItem*>(item) ? 1 : 0;
    }
    QCOMPARE(nodes, scene.nodeCount());
    QCOMPARE(edges, 18);
    QCOMPARE(clusters, 1);
    // Boxes are as wide as their text needs with the scene's font (Graphviz rounds to points).
    const Node* conv = traced.graph.find("block_conv1");
    QSizeF wanted = NodeItem::sizeFor(*conv, SceneStyle(scene.font()));
    QSizeF got = scene.nodeItem("block_conv1")->boundingRect().adjusted(10, 3, -3, -3).size();
    QVERIFY(std::abs(got.width() - wanted.width()) <= 1 &&
            std::abs(got.height() - wanted.height()) <= 1);
}

void TestScene::runShowsStatesWithoutRelayout() {
    LoadResult loaded = loadModel("example:tinynet");
    TraceResult traced = traceModel(*loaded.model);
    GraphScene scene;
    scene.setGraph(traced.graph);
    QPointF before = scene.nodeItem("fc2")->pos();
    Interpreter run(loaded.model, traceModel(*loaded.model));
    InputSpec spec;
    std::string error;
    parseInputSpec("3x4", spec, error);
    run.setInputs({spec});
    run.runTo("relu");
    auto lookup = [&](const std::string& n) { return run.record(n); };
    scene.syncRun(lookup, "relu");
    QCOMPARE(scene.nodeItem("x")->runState(), NodeItem::State::Done);
    QCOMPARE(scene.nodeItem("relu")->runState(), NodeItem::State::Current);
    QCOMPARE(scene.nodeItem("fc2")->runState(), NodeItem::State::Idle);
    QCOMPARE(scene.nodeItem("fc1")->shapeText(), QString("[3, 8] float32"));
    run.runToEnd();
    scene.syncRun(lookup, "");
    QCOMPARE(scene.nodeItem("fc2")->shapeText(), QString("[3, 2] float32"));
    QCOMPARE(scene.nodeItem("fc2")->pos(), before); // room for the shape was there from the start
    scene.clearRun();
    QCOMPARE(scene.nodeItem("fc2")->runState(), NodeItem::State::Idle);
}

void TestScene::splineBecomesCubicPath() {
    QPainterPath path = EdgeItem::toPainterPath({{0, 0}, {0, 10}, {10, 10}, {10, 20}});
    QCOMPARE(path.elementCount(), 4); // moveTo + one cubicTo (three elements)
    QCOMPARE(path.elementAt(1).type, QPainterPath::CurveToElement);
    QCOMPARE(path.currentPosition(), QPointF(10, 20));
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestScene test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_scene.moc"
