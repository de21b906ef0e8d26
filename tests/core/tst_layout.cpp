// Graphviz's layout as plain data: order top to bottom, edges that start and end on their
// boxes, clusters around their scope's nodes, and DOT that Graphviz itself reads back.

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <cmath>
#include <set>

#include "ChainGraph.h"
#include "GraphLayout.h"
#include "GraphvizFastNode.h"
#include "LayoutSegments.h"
#include "Model.h"
#include "TestModels.h"
#include "TestSupport.h"
#include "Tracer.h"

using namespace fxview;

namespace {

// A source is a fixture or example, or "chain:N" for a generated chain of N nodes.
Graph graphOf(const QString& source) {
    if (source.startsWith("chain:"))
        return chainWithSkips(source.mid(6).toInt());
    return tracedGraph(source.toStdString());
}

GraphLayout laidOut(const Graph& g) {
    GraphLayout layout = layoutGraph(g, [](const Node& n) {
        return PointF{60.0 + 6.0 * static_cast<double>(n.name.size()), 44};
    });
    if (!layout.ok())
        qFatal("%s", layout.error.c_str());
    return layout;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT
private slots:
    void tinyNetTopToBottom();
    void edgesStartAndEndOnTheirBoxes_data();
    void edgesStartAndEndOnTheirBoxes();
    void clustersContainTheirNodes_data();
    void clustersContainTheirNodes();
    void blocksBecomeClusters();
    void dotIsReadByGraphviz();
    void bigGraphsAreLaidOutInPieces();
    void dotUsesFxviewsFastNodeRemoval();
    void denseEdgesSkipPlacementIterations();
};

void TestLayout::tinyNetTopToBottom() {
    GraphLayout layout = laidOut(tracedGraph("example:tinynet"));
    QCOMPARE(layout.nodes.size(), std::size_t(5));
    QCOMPARE(layout.edges.size(), std::size_t(4));
    const char* order[] = {"x", "fc1", "relu", "fc2", "output"};
    for (int i = 0; i + 1 < 5; ++i) {
        const NodeBox *upper = layout.node(order[i]), *lower = layout.node(order[i + 1]);
        QVERIFY(upper && lower);
        QVERIFY2(upper->box.y + upper->box.height <= lower->box.y, order[i]);
    }
    // The boxes are the sizes asked for, to Graphviz's precision: 14 keeps a node's size to a
    // ten-thousandth of an inch (84 pt comes back as 84.0024).
    QVERIFY(std::abs(layout.node("relu")->box.width - (60.0 + 6 * 4)) < 0.01);
    QVERIFY(std::abs(layout.node("relu")->box.height - 44.0) < 0.01);
    QVERIFY(layout.bounds.contains(layout.node("output")->box));
}

void TestLayout::edgesStartAndEndOnTheirBoxes_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("tinynet") << "example:tinynet";
    QTest::newRow("smallcnn") << "example:smallcnn";
    QTest::newRow("branchy") << "example:branchy";
    QTest::newRow("resnet18") << QString::fromStdString(fixture("resnet18_traced.pt"));
    QTest::newRow("chain of 600, in pieces") << "chain:600";
    // In pieces, with dot's x placement not iterated (dense edges).
    QTest::newRow("densenet121") << QString::fromStdString(fixture("densenet121_scripted.pt"));
}

void TestLayout::edgesStartAndEndOnTheirBoxes() {
    QFETCH(QString, source);
    GraphLayout layout = laidOut(graphOf(source));
    QVERIFY(!layout.edges.empty());
    for (const EdgePath& e : layout.edges) {
        QVERIFY(e.spline.size() >= 4);
        QCOMPARE((e.spline.size() - 1) % 3, std::size_t(0)); // start + 3 points per cubic
        const RectF& from = layout.node(e.from)->box;
        const RectF& to = layout.node(e.to)->box;
        const double onBorder = 1.5; // Graphviz clips splines at the box outline
        QVERIFY2(from.contains(e.spline.front(), onBorder), (e.from + "->" + e.to).c_str());
        QVERIFY(e.hasArrow);
        QVERIFY2(to.contains(e.arrowTip, onBorder), (e.from + "->" + e.to).c_str());
    }
}

void TestLayout::clustersContainTheirNodes_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("smallcnn") << "example:smallcnn";
    QTest::newRow("resnet18") << QString::fromStdString(fixture("resnet18_scripted.pt"));
    QTest::newRow("chain of 600, in pieces") << "chain:600";
}

void TestLayout::clustersContainTheirNodes() {
    QFETCH(QString, source);
    Graph g = graphOf(source);
    GraphLayout layout = laidOut(g);
    QVERIFY(!layout.clusters.empty());
    int checked = 0;
    g.forEachNode([&](const Node& n, int) {
        if (n.scope.empty())
            return;
        // Every enclosing scope: layer1.0 sits in layer1 too.
        for (std::size_t dot = 0; dot != std::string::npos; dot = n.scope.find('.', dot + 1)) {
            std::string scope =
                dot == 0 ? n.scope.substr(0, n.scope.find('.')) : n.scope.substr(0, dot);
            auto cluster = std::find_if(layout.clusters.begin(), layout.clusters.end(),
                                        [&](const ClusterBox& c) { return c.id == scope; });
            QVERIFY2(cluster != layout.clusters.end(), scope.c_str());
            QVERIFY2(cluster->box.contains(layout.node(n.name)->box),
                     (n.name + " in " + scope).c_str());
            ++checked;
        }
    });
    QVERIFY(checked > 5);
}

void TestLayout::blocksBecomeClusters() {
    Graph g = tracedGraph("example:branchy");
    GraphLayout layout = laidOut(g);
    auto block = [&](const std::string& id) {
        return std::find_if(layout.clusters.begin(), layout.clusters.end(),
                            [&](const ClusterBox& c) { return c.id == id && c.isBlock; });
    };
    QVERIFY(block("cond/true") != layout.clusters.end());
    QVERIFY(block("cond/false") != layout.clusters.end());
    QVERIFY(block("cond/true")->box.contains(layout.node("relu")->box));
    QVERIFY(block("cond/false")->box.contains(layout.node("neg")->box));
    QVERIFY(block("loop/body")->box.contains(layout.node("tanh")->box));
    QVERIFY(!layout.node("raise_exception")); // hidden guards are not drawn
}

void TestLayout::dotIsReadByGraphviz() {
    QTemporaryDir dir;
    QString path = dir.filePath("smallcnn.dot");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(graphToDot(tracedGraph("example:smallcnn"))));
    file.close();
    QProcess dot;
    dot.start("dot", {"-Tplain", path});
    QVERIFY(dot.waitForFinished(60000));
    QCOMPARE(dot.exitCode(), 0);
    QString plain = QString::fromUtf8(dot.readAllStandardOutput());
    QVERIFY(plain.startsWith("graph "));
    QCOMPARE(plain.count("\nnode "), 18);
    QVERIFY(plain.contains("\"block_conv1\\ncall_module\\nblock.conv1\""));
}

// A big graph with cuts is laid out in pieces stacked at their shared node: every node once,
// none overlapping another, every producer above its user, the whole inside the bounds.
void TestLayout::bigGraphsAreLaidOutInPieces() {
    Graph g = chainWithSkips(600);
    GraphSegments segments = splitAtCuts(g, {}, 60);
    QVERIFY(segments.parts.size() >= 3);
    QCOMPARE(segments.cuts.size() + 1, segments.parts.size());
    for (std::size_t k = 0; k + 1 < segments.parts.size(); ++k) {
        QCOMPARE(segments.parts[k].nodes.back().name, segments.cuts[k]);      // ends at the cut
        QCOMPARE(segments.parts[k + 1].nodes.front().name, segments.cuts[k]); // next starts there
    }
    GraphLayout layout = laidOut(g);
    QCOMPARE(static_cast<int>(layout.nodes.size()), g.nodeCount());
    std::set<std::string> names;
    for (const NodeBox& n : layout.nodes) {
        QVERIFY2(names.insert(n.name).second, n.name.c_str());
        QVERIFY(layout.bounds.contains(n.box));
    }
    for (std::size_t i = 0; i < layout.nodes.size(); ++i)
        for (std::size_t j = i + 1; j < layout.nodes.size(); ++j) {
            const RectF &a = layout.nodes[i].box, &b = layout.nodes[j].box;
            bool apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y ||
                         b.y + b.height <= a.y;
            QVERIFY2(apart, (layout.nodes[i].name + " overlaps " + layout.nodes[j].name).c_str());
        }
    for (const EdgePath& e : layout.edges)
        QVERIFY2(layout.node(e.from)->box.y < layout.node(e.to)->box.y,
                 (e.from + "->" + e.to).c_str());
    // Each edge once, none lost or doubled at a cut: x->n0 ... n599->output, and a skip into
    // every fourth node from n7 on.
    QCOMPARE(static_cast<int>(layout.edges.size()), 601 + 149);
}

// Dot must call fxview's delete_fast_node (GraphvizFastNode.cpp), not its own, whose assertion
// walks every node per call: if the executable stopped exporting it, nothing would fail but speed.
void TestLayout::dotUsesFxviewsFastNodeRemoval() {
    const long before = graphvizFastNodeDeletions();
    GraphLayout layout = laidOut(tracedGraph(fixture("resnet18_scripted.pt")));
    QVERIFY(!layout.clusters.empty()); // rank leaders of clusters are what dot removes
    QVERIFY(graphvizFastNodeDeletions() > before);
}

// Only a graph whose edges run past many ranks (densenet's concatenations) gives up dot's x
// placement iterations; a residual net keeps dot's defaults and a long chain its short ones.
void TestLayout::denseEdgesSkipPlacementIterations() {
    auto nslimit = [](const Graph& g) {
        QRegularExpressionMatch m = QRegularExpression(R"(\bnslimit=([0-9.]+))")
                                        .match(QString::fromStdString(graphToDot(g)));
        return m.hasMatch() ? m.captured(1) : QString("default");
    };
    QCOMPARE(nslimit(tracedGraph(fixture("densenet121_scripted.pt"))), QString("0"));
    QCOMPARE(nslimit(tracedGraph(fixture("resnet18_scripted.pt"))), QString("default"));
    QCOMPARE(nslimit(chainWithSkips(600)), QString("0.3"));
}

QTEST_APPLESS_MAIN(TestLayout)
#include "tst_layout.moc"
