// The tracer against torch.fx itself: the fixture generator recorded what symbolic_trace gives
// for the same models, and the tracer must give the same nodes, names and targets.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <map>

#include "FxText.h"
#include "GraphJson.h"
#include "Model.h"
#include "SourceLocation.h"
#include "TestModels.h"
#include "TestSession.h"
#include "Tracer.h"

using namespace fxview;

namespace {

const char* const kTinyNetGraph =
    "graph():\n"
    "    %x : [num_users=1] = placeholder[target=x]\n"
    "    %fc1 : [num_users=1] = call_module[target=fc1](args = (%x,), kwargs = {})\n"
    "    %relu : [num_users=1] = call_function[target=torch.relu](args = (%fc1,), kwargs = {})\n"
    "    %fc2 : [num_users=1] = call_module[target=fc2](args = (%relu,), kwargs = {})\n"
    "    return fc2\n";

// The first node with this target that the fx view shows (guards are hidden).
const Node* firstShown(const Graph& g, const std::string& target) {
    const Node* found = nullptr;
    g.forEachNode([&](const Node& n, int) {
        if (!found && !n.hidden && n.target == target)
            found = &n;
    });
    return found;
}

} // namespace

class TestTracer : public QObject {
    Q_OBJECT
private slots:
    void tinyNetPrintsLikeTorchFx_data();
    void tinyNetPrintsLikeTorchFx();
    void nodesEqualSymbolicTrace_data();
    void nodesEqualSymbolicTrace();
    void resnet18TextEqualsTorchFx();
    void printingRulesEqualTorchFx_data();
    void printingRulesEqualTorchFx();
    void tracedAndScriptedAgree_data();
    void tracedAndScriptedAgree();
    void scopesAndModuleTypes();
    void controlFlowKeptAsBlocks();
    void callsOnAModulePickedByAnIfAreBranches();
    void raiseGuardsHiddenByDefault();
    void jsonFormat();
    void nodesKnowTheirSourceLine_data();
    void nodesKnowTheirSourceLine();
    void exportedStackTracesAreKept();
};

void TestTracer::tinyNetPrintsLikeTorchFx_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("example") << "example:tinynet";
    QTest::newRow("scripted") << QString::fromStdString(fixture("tinynet_scripted.pt"));
    QTest::newRow("traced") << QString::fromStdString(fixture("tinynet_traced.pt"));
}

void TestTracer::tinyNetPrintsLikeTorchFx() {
    QFETCH(QString, source);
    std::string text = formatGraph(tracedGraph(source.toStdString()));
    QCOMPARE(text, std::string(kTinyNetGraph));
    // ...and that is what torch.fx printed for the seed's TinyNet in the generator.
    QCOMPARE(text, fxReference("tinynet")["graph_text"].toString().toStdString() + "\n");
}

void TestTracer::nodesEqualSymbolicTrace_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("variant");
    addVisionRows();
}

void TestTracer::nodesEqualSymbolicTrace() {
    QFETCH(QString, model);
    QFETCH(QString, variant);
    Graph graph = tracedGraph(fixture((model + "_" + variant + ".pt").toStdString()));
    QJsonArray expected = fxReference(model.toStdString())["nodes"].toArray();
    std::vector<const Node*> shown = shownNodes(graph);
    QCOMPARE(static_cast<int>(shown.size()), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QJsonObject fx = expected[i].toObject();
        const Node& node = *shown[static_cast<std::size_t>(i)];
        QCOMPARE(QString(opName(node.op)), fx["op"].toString());
        QCOMPARE(QString::fromStdString(node.name), fx["name"].toString());
        if (node.op != Op::Output) // torch.fx's output target is the literal 'output' too
            QCOMPARE(QString::fromStdString(node.target), fx["target"].toString());
    }
}

void TestTracer::resnet18TextEqualsTorchFx() {
    // torch.fx prints `x : torch.Tensor` for resnet's annotated forward: the scripted archive
    // keeps forward's source, and its `def` line says so. A traced archive keeps no source of
    // forward itself, so there that one annotation is set aside.
    QString expected = fxReference("resnet18")["graph_text"].toString() + "\n";
    QCOMPARE(QString::fromStdString(formatGraph(tracedGraph(fixture("resnet18_scripted.pt")))),
             expected);
    expected.replace("%x : torch.Tensor [", "%x : [");
    QCOMPARE(QString::fromStdString(formatGraph(tracedGraph(fixture("resnet18_traced.pt")))),
             expected);
}

// Literals print as torch.fx 2.6 prints them: `kwargs = {approximate: tanh}` (str(), not
// repr()), `return (clamp, 'done')`, `1e-05`.
void TestTracer::printingRulesEqualTorchFx_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("literals") << "printing_rules";
    // The forward's annotations, read from the scripted archive's own source.
    QTest::newRow("annotations") << "annotated";
    // torch.nn.functional calls whole, with the keywords they hand to __torch_function__; an
    // assert's formatted message inside the _assert; no node for a warning.
    QTest::newRow("functional calls") << "functional_calls";
    // Modules passed to methods and functions, in tuples, behind an interface: followed.
    QTest::newRow("modules as values") << "modules_as_values";
    // Dicts built in forward and returned: no node, `return {'out': sub, 'aux': tanh}`.
    QTest::newRow("dict literals") << "dict_literals";
    QTest::newRow("dict returned") << "dict_output";
    // Loops over known ranges, unrolled as Python runs them: fc, fc_1, fc_2, add_2...
    QTest::newRow("range loops") << "range_loops";
    // Buffers and literal tensors run while tracing, a get_attr per use; sizes one by one.
    QTest::newRow("held tensors") << "held_tensors";
    QTest::newRow("held through loops") << "held_through_loops";
    // A parameter's get_attr where Python reads it; a returned tuple indexed: a getitem folded.
    QTest::newRow("access order") << "access_order";
}

void TestTracer::printingRulesEqualTorchFx() {
    QFETCH(QString, model);
    QCOMPARE(QString::fromStdString(
                 formatGraph(tracedGraph(fixture(model.toStdString() + "_scripted.pt")))),
             fxReference(model.toStdString())["graph_text"].toString() + "\n");
}

void TestTracer::tracedAndScriptedAgree_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("tinynet") << "tinynet";
    QTest::newRow("resnet18") << "resnet18";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2";
}

void TestTracer::tracedAndScriptedAgree() {
    QFETCH(QString, model);
    QString scripted = QString::fromStdString(
        formatGraph(tracedGraph(fixture(model.toStdString() + "_scripted.pt"))));
    QString tracedText = QString::fromStdString(
        formatGraph(tracedGraph(fixture(model.toStdString() + "_traced.pt"))));
    // Only the scripted archive keeps forward's `def` line with its annotations, and the text of
    // its calls: mobilenet's `adaptive_avg_pool2d(x, (1, 1))` keeps its tuple there, as in
    // torch.fx, where the traced archive has only TorchScript's int[2].
    scripted.replace("%x : torch.Tensor [", "%x : [");
    scripted.replace("args = (%features_18_2, (1, 1))", "args = (%features_18_2, [1, 1])");
    QCOMPARE(tracedText, scripted);
}

void TestTracer::scopesAndModuleTypes() {
    Graph g = tracedGraph("example:smallcnn");
    const Node* conv = g.find("block_conv1");
    QVERIFY(conv);
    QCOMPARE(conv->scope, std::string("block")); // inlined from the non-leaf ResidualBlock
    QCOMPARE(conv->moduleType, std::string("torch.nn.Conv2d"));
    const Node* add = g.find("add");
    QVERIFY(add);
    QCOMPARE(add->scope, std::string("block"));
    QCOMPARE(add->target, std::string("operator.add"));
    QCOMPARE(g.find("flatten")->scope, std::string(""));
    // flatten(x, 1, -1): the default end_dim is dropped as in torch.fx's record of the call.
    QCOMPARE(formatArgument(Argument::ofTuple(g.find("flatten")->args)), std::string("(%pool, 1)"));
    QCOMPARE(g.find("relu")->users, (std::vector<std::string>{"block_conv1", "add"}));
}

void TestTracer::controlFlowKeptAsBlocks() {
    Graph g = tracedGraph("example:branchy");
    const Node* cond = firstShown(g, "prim::If");
    QVERIFY(cond);
    QCOMPARE(cond->blocks.size(), std::size_t(2));
    QCOMPARE(cond->blocks[0].nodes.size(), std::size_t(1));
    QCOMPARE(cond->blocks[0].nodes.front().name, std::string("relu"));
    QCOMPARE(cond->blocks[1].nodes.size(), std::size_t(1));
    QCOMPARE(cond->blocks[1].nodes.front().target, std::string("operator.neg"));
    const Node* loop = firstShown(g, "prim::Loop");
    QVERIFY(loop);
    QCOMPARE(loop->blocks.size(), std::size_t(1));
    QCOMPARE(loop->blocks[0].params.size(), std::size_t(2)); // the counter and the carried h
    QCOMPARE(loop->args.front(), Argument::ofNode("sub"));   // range(h.size(1) - 1)
    QVERIFY(g.find("tanh"));

    Graph cf = tracedGraph(fixture("control_flow_scripted.pt"));
    int controlNodes = 0;
    cf.forEachNode([&](const Node& n, int) { controlNodes += n.blocks.empty() ? 0 : 1; });
    QVERIFY(controlNodes >= 2);
}

void TestTracer::raiseGuardsHiddenByDefault() {
    Graph g = tracedGraph("example:branchy");
    std::string shown = formatGraph(g);
    QVERIFY(shown.find("RaiseException") == std::string::npos);
    QVERIFY(shown.find("dim") == std::string::npos);
    FxTextOptions all;
    all.showHidden = true;
    std::string everything = formatGraph(g, all);
    QVERIFY(everything.find("prim::RaiseException") != std::string::npos);
    QVERIFY(everything.find("call_method[target=dim]") != std::string::npos);
    QVERIFY(g.nodeCount(true) > g.nodeCount());
}

void TestTracer::jsonFormat() {
    Graph g = tracedGraph("example:tinynet");
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromStdString(graphToJson(g, {"example:tinynet", "__torch__.TinyNet"})),
        &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QJsonObject root = doc.object();
    QCOMPARE(root["format"].toString(), QString("fxview.graph"));
    QCOMPARE(root["version"].toInt(), 1);
    QCOMPARE(root["model"].toObject()["class"].toString(), QString("__torch__.TinyNet"));
    QJsonArray nodes = root["nodes"].toArray();
    QCOMPARE(nodes.size(), 5);
    QJsonObject fc1 = nodes[1].toObject();
    QCOMPARE(fc1["name"].toString(), QString("fc1"));
    QCOMPARE(fc1["op"].toString(), QString("call_module"));
    QCOMPARE(fc1["module_type"].toString(), QString("torch.nn.Linear"));
    QCOMPARE(fc1["args"].toArray()[0].toObject()["node"].toString(), QString("x"));
    QCOMPARE(fc1["users"].toArray()[0].toString(), QString("relu"));
    QVERIFY(!fc1.contains("meta")); // absent before a run
}

// The line of the model's code a node came from, as the inspector shows it: a scripted archive
// keeps the function's text (a node inlined from a submodule: its caller's line as the outer
// frame), a traced one the Python stack (the line read from the file, here the generator's).
void TestTracer::nodesKnowTheirSourceLine_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("inClass"); // of tests/fixtures/generate_fixtures.py
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("frames"); // of the model's own code
    QTest::newRow("scripted call_module") << "tinynet_scripted.pt"
                                          << "fc1"
                                          << "TinyNet"
                                          << "x = self.fc1(x)" << 1;
    QTest::newRow("scripted function") << "tinynet_scripted.pt"
                                       << "relu"
                                       << "TinyNet"
                                       << "x = torch.relu(x)" << 1;
    QTest::newRow("traced function") << "tinynet_traced.pt"
                                     << "relu"
                                     << "TinyNet"
                                     << "x = torch.relu(x)" << 1;
    QTest::newRow("traced call_module") << "tinynet_traced.pt"
                                        << "fc2"
                                        << "TinyNet"
                                        << "x = self.fc2(x)" << 1;
    QTest::newRow("scripted if") << "control_flow_scripted.pt"
                                 << "cond"
                                 << "ControlFlowNet"
                                 << "if x.sum() > 0:" << 1;
    QTest::newRow("inside a branch") << "control_flow_scripted.pt"
                                     << "relu"
                                     << "ControlFlowNet"
                                     << "x = torch.relu(x)" << 1;
    QTest::newRow("inlined Inner, called from the loop") << "control_flow_scripted.pt"
                                                         << "inner_proj"
                                                         << "Inner"
                                                         << "return self.act(self.proj(x))" << 2;
    QTest::newRow("a .pt2's stack_trace") << "tinynet.pt2"
                                          << "linear"
                                          << "TinyNet"
                                          << "x = self.fc1(x)" << 1;
}

void TestTracer::nodesKnowTheirSourceLine() {
    QFETCH(QString, model);
    QFETCH(QString, node);
    QFETCH(QString, inClass);
    QFETCH(QString, text);
    QFETCH(int, frames);
    Graph g = tracedGraph(fixture(model.toStdString()));
    const Node* n = nullptr;
    g.forEachNode([&](const Node& each, int) {
        if (each.name == node.toStdString())
            n = &each;
    });
    QVERIFY(n);
    std::optional<SourceLocation> where = innermostFrame(n->sourceTrace);
    QVERIFY2(where, n->sourceTrace.c_str());
    QVERIFY2(QString::fromStdString(where->file).endsWith("tests/fixtures/generate_fixtures.py"),
             where->file.c_str());
    // The line is the file's: the generator is at that path on this machine.
    int line = lineInClass(where->file, inClass.toStdString(), text.toStdString());
    QVERIFY(line > 0);
    QCOMPARE(where->line, line);
    QCOMPARE(where->text, text.toStdString());
    QCOMPARE(where->function, std::string("forward"));
    int own = 0;
    for (const SourceLocation& f : tracebackFrames(n->sourceTrace))
        own += isTorchInternalFile(f.file) ? 0 : 1;
    QCOMPARE(own, frames); // a traced stack starts at forward, as torch.fx's do
    QCOMPARE(static_cast<int>(modelFrames(n->sourceTrace).size()), frames);
    if (frames == 2) { // the call that inlined it: Inner's caller in ControlFlowNet.forward
        SourceLocation caller = tracebackFrames(n->sourceTrace).front();
        QCOMPARE(caller.text, std::string("x = self.inner(x) + i"));
        QCOMPARE(caller.line, lineInClass(caller.file, "ControlFlowNet", caller.text));
    }
    // Placeholders and the output are made by no line of the model.
    QVERIFY(g.nodes.front().sourceTrace.empty());
    QVERIFY(g.nodes.back().sourceTrace.empty());
}

// A .pt2 keeps each node's stack_trace as PyTorch 2.6 gives it in node.meta.
void TestTracer::exportedStackTracesAreKept() {
    std::string model = fixture("tinynet.pt2");
    QProcess python;
    python.start(FXVIEW_PYTHON_PATH, {"-c",
                                      "import json, sys, torch\n"
                                      "ep = torch.export.load(sys.argv[1])\n"
                                      "print(json.dumps({n.name: n.meta.get('stack_trace') or ''\n"
                                      "                  for n in ep.graph.nodes}))\n",
                                      QString::fromStdString(model)});
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(python.exitCode(), 0);
    QJsonObject expected = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    Graph g = tracedGraph(model);
    QCOMPARE(static_cast<int>(g.nodes.size()), static_cast<int>(expected.size()));
    for (const Node& n : g.nodes)
        QCOMPARE(n.sourceTrace, expected[QString::fromStdString(n.name)].toString().toStdString());
    QVERIFY(!g.find("linear")->sourceTrace.empty());
}

QTEST_APPLESS_MAIN(TestTracer)
#include "tst_tracer.moc"

// `m = self.a if <data> else self.b`: no value of the graph is a module, so each call on m is an
// if on the same condition with a branch per module, as the interpreter's dispatch runs it.
void TestTracer::callsOnAModulePickedByAnIfAreBranches() {
    Graph g = tracedGraph(fixture("module_picked_by_if_scripted.pt"));
    std::vector<const Node*> ifs;
    for (const Node& n : g.nodes)
        if (n.target == "prim::If")
            ifs.push_back(&n);
    QCOMPARE(ifs.size(), std::size_t(2)); // m.forward(x) and m.fc(x)
    for (const Node* n : ifs) {
        QCOMPARE(n->args.size(), std::size_t(1));
        QCOMPARE(n->args[0], ifs[0]->args[0]); // the one condition
        QCOMPARE(n->blocks.size(), std::size_t(2));
    }
    auto targets = [](const Block& b) {
        std::vector<std::string> out;
        for (const Node& n : b.nodes)
            out.push_back(n.target);
        return out;
    };
    QCOMPARE(targets(ifs[0]->blocks[0]), (std::vector<std::string>{"a.fc", "torch.tanh"}));
    QCOMPARE(targets(ifs[0]->blocks[1]), (std::vector<std::string>{"b.fc", "torch.tanh"}));
    QCOMPARE(targets(ifs[1]->blocks[0]), (std::vector<std::string>{"a.fc"}));
    QCOMPARE(targets(ifs[1]->blocks[1]), (std::vector<std::string>{"b.fc"}));
}
