// The graph scene offscreen: one item per node, edge and cluster, sizes measured with the
// scene's font, and a run's states and shapes shown without laying the graph out again.

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>

#include "Importer.h"
#include "Interpreter.h"
#include "TestSupport.h"
#include "export/SceneExport.h"
#include "scene/ClusterItem.h"
#include "scene/EdgeItem.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"

using namespace fxview;

namespace {

// TinyNet in a scene, run on a 3x4 input until relu and shown so: x and fc1 done, relu current.
struct TinyNetAtRelu {
    LoadResult loaded = loadModel("example:tinynet");
    GraphScene scene;
    Interpreter run{loaded.model, importGraph(*loaded.model)};

    TinyNetAtRelu() {
        scene.setGraph(importGraph(*loaded.model).graph);
        InputSpec spec;
        std::string error;
        parseInputSpec("3x4", spec, error);
        run.setInputs({spec});
        run.runTo("relu");
        scene.syncRun(lookup(), "relu");
    }
    GraphScene::RecordLookup lookup() {
        return [this](const std::string& n) { return run.record(n); };
    }
};

} // namespace

class TestScene : public QObject {
    Q_OBJECT
private slots:
    void oneItemPerNodeAndEdge();
    void runShowsStatesWithoutRelayout();
    void farOutBoxesKeepTheirRunColours();
    void splineBecomesCubicPath();
    void svgLooksLikeThePng();
};

void TestScene::oneItemPerNodeAndEdge() {
    LoadResult loaded = loadModel("example:smallcnn");
    TraceResult traced = importGraph(*loaded.model);
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
    TinyNetAtRelu at;
    GraphScene& scene = at.scene;
    QPointF before = scene.nodeItem("fc2")->pos();
    QCOMPARE(scene.nodeItem("x")->runState(), NodeItem::State::Done);
    QCOMPARE(scene.nodeItem("relu")->runState(), NodeItem::State::Current);
    QCOMPARE(scene.nodeItem("fc2")->runState(), NodeItem::State::Idle);
    QCOMPARE(scene.nodeItem("fc1")->shapeText(), QString("[3, 8] float32"));
    at.run.runToEnd();
    scene.syncRun(at.lookup(), "");
    QCOMPARE(scene.nodeItem("fc2")->shapeText(), QString("[3, 2] float32"));
    QCOMPARE(scene.nodeItem("fc2")->pos(), before); // room for the shape was there from the start
    scene.clearRun();
    QCOMPARE(scene.nodeItem("fc2")->runState(), NodeItem::State::Idle);
}

// Drawn a few pixels per box (the overview, a big graph fitted whole), a node is a plain
// rectangle in the colour of its state: which nodes ran and which is current can still be seen.
void TestScene::farOutBoxesKeepTheirRunColours() {
    TinyNetAtRelu at;
    GraphScene& scene = at.scene;
    auto coloursAt = [&](double scale) {
        QRectF source = scene.sceneRect();
        QImage image((source.size() * scale).toSize(), QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        scene.render(&painter, QRectF(QPointF(), source.size() * scale), source);
        painter.end();
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                colours.insert(image.pixel(x, y));
        return colours;
    };
    QSet<QRgb> far = coloursAt(0.05);
    QVERIFY(far.contains(scene.theme().current.rgb()));                 // relu
    QVERIFY(far.contains(scene.theme().done.rgb()));                    // x, fc1
    QVERIFY(far.contains(scene.theme().fillFor(Op::CallModule).rgb())); // fc2, not yet run
}

void TestScene::splineBecomesCubicPath() {
    QPainterPath path = EdgeItem::toPainterPath({{0, 0}, {0, 10}, {10, 10}, {10, 20}});
    QCOMPARE(path.elementCount(), 4); // moveTo + one cubicTo (three elements)
    QCOMPARE(path.elementAt(1).type, QPainterPath::CurveToElement);
    QCOMPARE(path.currentPosition(), QPointF(10, 20));
}

namespace {

// Share of pixels that differ clearly (by more than a quarter of the range in some channel):
// anti-aliasing at text and curve edges stays far below a few percent.
double differingShare(const QImage& a, const QImage& b) {
    QImage x = a.convertToFormat(QImage::Format_ARGB32),
           y = b.convertToFormat(QImage::Format_ARGB32);
    if (x.size() != y.size())
        return 1;
    qint64 differing = 0;
    for (int row = 0; row < x.height(); ++row) {
        auto* p = reinterpret_cast<const QRgb*>(x.constScanLine(row));
        auto* q = reinterpret_cast<const QRgb*>(y.constScanLine(row));
        for (int col = 0; col < x.width(); ++col)
            differing += std::abs(qRed(p[col]) - qRed(q[col])) > 64 ||
                         std::abs(qGreen(p[col]) - qGreen(q[col])) > 64 ||
                         std::abs(qBlue(p[col]) - qBlue(q[col])) > 64;
    }
    return static_cast<double>(differing) / (static_cast<double>(x.width()) * x.height());
}

} // namespace

// The SVG is written by fxview's own paint engine: drawn by Qt's SVG renderer it must look like
// the PNG the scene paints, text included (same size, same place), for a graph with clusters,
// dashed block borders, a branch not taken and shapes after a run.
void TestScene::svgLooksLikeThePng() {
    LoadResult loaded = loadModel("example:branchy");
    Interpreter run(loaded.model, importGraph(*loaded.model));
    run.setInputs(run.guessInputs().specs);
    run.runToEnd();
    GraphScene scene;
    QCOMPARE(scene.setGraph(run.graph()), QString());
    scene.syncRun([&](const std::string& n) { return run.record(n); }, "");

    QTemporaryDir dir;
    ExportOptions png;
    png.format = ExportFormat::Png;
    png.scale = 1;
    ExportOptions svg;
    svg.format = ExportFormat::Svg;
    QCOMPARE(exportGraph(dir.filePath("g.png"), png, {&scene, {}, {}, {}}), QString());
    QCOMPARE(exportGraph(dir.filePath("g.svg"), svg, {&scene, {}, {}, {}}), QString());
    scene.setTheme(Theme::dark());
    QCOMPARE(exportGraph(dir.filePath("dark.png"), png, {&scene, {}, {}, {}}), QString());

    QImage painted(dir.filePath("g.png")), dark(dir.filePath("dark.png"));
    QSvgRenderer renderer(dir.filePath("g.svg"));
    QVERIFY(renderer.isValid());
    QImage drawn(painted.size(), QImage::Format_ARGB32);
    drawn.fill(Qt::transparent);
    {
        QPainter painter(&drawn);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter);
    }
    double same = differingShare(drawn, painted), other = differingShare(drawn, dark);
    qInfo("pixels differing: SVG vs PNG %.4f, SVG vs dark PNG %.4f", same, other);
    QVERIFY2(same < 0.01, qPrintable(QString::number(same)));
    QVERIFY2(other > 0.5, qPrintable(QString::number(other)));
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestScene test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_scene.moc"
