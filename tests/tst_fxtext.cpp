// The printers' building blocks against Python's and torch.fx's own behaviour.

#include "FxTargets.h"
#include "FxText.h"
#include "NodeNamer.h"
#include "TestSupport.h"

using namespace fxview;

class TestFxText : public QObject {
    Q_OBJECT
private slots:
    void floatRepr_data();
    void floatRepr();
    void namer();
    void snakeCase();
    void formatArguments();
    void graphText();
    void callSpelling_data();
    void callSpelling();
    void functionalNames();
};

void TestFxText::floatRepr_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("python"); // repr(value) in CPython 3.11
    QTest::newRow("one") << 1.0 << "1.0";
    QTest::newRow("half") << 0.5 << "0.5";
    QTest::newRow("tenth") << 0.1 << "0.1";
    QTest::newRow("eps") << 1e-05 << "1e-05";
    QTest::newRow("small") << 0.0001 << "0.0001";
    QTest::newRow("million") << 1e6 << "1000000.0";
    QTest::newRow("big") << 1e16 << "1e+16";
    QTest::newRow("third") << 1.0 / 3 << "0.3333333333333333";
    QTest::newRow("negative") << -2.5 << "-2.5";
    QTest::newRow("momentum") << 0.1 * 3 << "0.30000000000000004";
    QTest::newRow("big fraction") << 123456.789 << "123456.789";
}

void TestFxText::floatRepr() {
    QFETCH(double, value);
    QFETCH(QString, python);
    QCOMPARE(QString::fromStdString(pythonFloatRepr(value)), python);
}

void TestFxText::namer() {
    NodeNamer namer;
    QCOMPARE(namer.create("layer1.0.conv1"), std::string("layer1_0_conv1"));
    QCOMPARE(namer.create("add"), std::string("add"));
    QCOMPARE(namer.create("add"), std::string("add_1"));
    QCOMPARE(namer.create("add"), std::string("add_2"));
    // Names that would shadow Python builtins or keywords get a suffix, as in torch.fx.
    QCOMPARE(namer.create("sum"), std::string("sum_1"));
    QCOMPARE(namer.create("input"), std::string("input_1"));
    QCOMPARE(namer.create("if"), std::string("if_1"));
    // A numeric suffix in the candidate is kept and counted on from.
    QCOMPARE(namer.create("features.0.0"), std::string("features_0_0"));
    QCOMPARE(namer.create("features_0_0"), std::string("features_0_1"));
    QCOMPARE(namer.create("0weird-name"), std::string("_0weird_name"));
}

void TestFxText::snakeCase() {
    QCOMPARE(NodeNamer::snakeCase("pascalCase"), std::string("pascal_case"));
    QCOMPARE(NodeNamer::snakeCase("ALL_CAPS"), std::string("all_caps"));
    QCOMPARE(NodeNamer::snakeCase("snake_case"), std::string("snake_case"));
}

void TestFxText::formatArguments() {
    Argument one = Argument::ofTuple({Argument::ofNode("x")});
    QCOMPARE(formatArgument(one), std::string("(%x,)"));
    Argument mixed = Argument::ofTuple(
        {Argument::ofNode("a"), Argument::ofInt(1),
         Argument::ofList({Argument::ofFloat(0.5), Argument::none()}), Argument::ofString("it's"),
         Argument::ofBool(false), Argument::ofRepr("torch.float32")});
    QCOMPARE(formatArgument(mixed),
             std::string("(%a, 1, [0.5, None], it's, False, torch.float32)"));
    QCOMPARE(formatArgument(Argument::ofTuple({})), std::string("()"));
}

void TestFxText::graphText() {
    Graph g;
    Node x;
    x.op = Op::Placeholder;
    x.name = x.target = "x";
    Node relu;
    relu.op = Op::CallFunction;
    relu.name = "relu";
    relu.target = "torch.relu";
    relu.args = {Argument::ofNode("x")};
    Node guard; // a hidden node and its user count must not show
    guard.op = Op::CallFunction;
    guard.name = "guard";
    guard.target = "prim::If";
    guard.args = {Argument::ofNode("x")};
    guard.hidden = true;
    Node out;
    out.op = Op::Output;
    out.name = out.target = "output";
    out.args = {Argument::ofTuple({Argument::ofNode("relu"), Argument::ofNode("x")})};
    g.nodes = {x, relu, guard, out};
    g.recomputeUsers();

    QCOMPARE(g.find("x")->users, (std::vector<std::string>{"relu", "guard", "output"}));
    QCOMPARE(formatGraph(g),
             std::string("graph():\n"
                         "    %x : [num_users=2] = placeholder[target=x]\n"
                         "    %relu : [num_users=1] = call_function[target=torch.relu]"
                         "(args = (%x,), kwargs = {})\n"
                         "    return (relu, x)\n"));
    FxTextOptions all;
    all.showHidden = true;
    QVERIFY(formatGraph(g, all).find("%x : [num_users=3]") != std::string::npos);
    QCOMPARE(formatNodeList(g), std::string("placeholder x\ncall_function relu\noutput output\n"
                                            "Node count: 3\n"));
    QCOMPARE(g.nodeCount(true), 4);
}

void TestFxText::callSpelling_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("wholeLine"); // a traced archive's file line, not a call's range
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("spelling");
    const int unknown = 0, method = 1, function = 2;
    QTest::newRow("method callee") << "x.mean" << false << "mean" << method;
    QTest::newRow("function callee") << "torch.mean" << false << "mean" << function;
    QTest::newRow("functional") << "F.relu(x)" << false << "relu" << function;
    QTest::newRow("method on a call")
        << "self.avgpool(x).flatten(1)" << false << "flatten" << method;
    QTest::newRow("method on an index") << "outs[-1].permute" << false << "permute" << method;
    QTest::newRow("bare name") << "flatten(x, 1)" << false << "flatten" << function;
    QTest::newRow("operator") << "x + y" << false << "add" << unknown;
    QTest::newRow("operator around a call") << "x + torch.add(a, b)" << false << "add" << unknown;
    QTest::newRow("other name") << "x.sum" << false << "mean" << unknown;
    QTest::newRow("line, method") << "        x = x.mean([2, 3])" << true << "mean" << method;
    QTest::newRow("line, function")
        << "    x = torch.flatten(x, 1)" << true << "flatten" << function;
    QTest::newRow("line, disagreeing")
        << "    y = torch.mean(x) + x.mean(1)" << true << "mean" << unknown;
    QTest::newRow("line, F in-place")
        << "        out = F.relu(features, inplace=True)" << true << "relu_" << 3;
    QTest::newRow("line, torch in-place")
        << "        out = torch.relu_(features)" << true << "relu_" << function;
    QTest::newRow("line, a def") << "    def mean(self, x):" << true << "mean" << unknown;
}

void TestFxText::callSpelling() {
    QFETCH(QString, text);
    QFETCH(bool, wholeLine);
    QFETCH(QString, op);
    QFETCH(int, spelling);
    Spelling got = wholeLine ? spellingInLine(text.toStdString(), op.toStdString())
                             : spellingOf(text.toStdString(), op.toStdString());
    QCOMPARE(static_cast<int>(got), spelling);
}

void TestFxText::functionalNames() {
    QCOMPARE(functionalName("__torch__.torch.nn.functional.relu"), std::string("relu"));
    // boolean_dispatch: F.max_pool2d compiles to _max_pool2d (inception_v3's case).
    QCOMPARE(functionalName("__torch__.torch.nn.functional._max_pool2d"),
             std::string("max_pool2d"));
    QCOMPARE(functionalName("__torch__.torch.nn.functional._pad"), std::string("_pad"));
    QCOMPARE(functionalName("__torch__.torchvision.ops.x"), std::string());
    QCOMPARE(fxWrappedFunction("__torch__.torchvision.ops.stochastic_depth.stochastic_depth"),
             std::string("torchvision.ops.stochastic_depth.stochastic_depth"));
    QCOMPARE(fxWrappedFunction("__torch__.torchvision.models.swin_transformer.___torch_mangle_7."
                               "shifted_window_attention"),
             std::string("torchvision.models.swin_transformer.shifted_window_attention"));
    QCOMPARE(fxWrappedFunction("__torch__.mymodel.helper"), std::string());
}

QTEST_APPLESS_MAIN(TestFxText)
#include "tst_fxtext.moc"
