// The printers' building blocks against Python's and torch.fx's own behaviour.

#include <cmath>
#include <limits>

#include <QJsonArray>

#include "FxTargets.h"
#include "FxText.h"
#include "NodeNamer.h"
#include "SourceLocation.h"
#include "TestSupport.h"

using namespace fxview;

class TestFxText : public QObject {
    Q_OBJECT
private slots:
    void floatRepr_data();
    void floatRepr();
    void complexRepr_data();
    void complexRepr();
    void namer();
    void snakeCase();
    void namesAsTorchFxNamesThem();
    void formatArguments();
    void formatDicts();
    void graphText();
    void callSpelling_data();
    void callSpelling();
    void functionalNames();
    void innermostFrame_data();
    void innermostFrame();
    void tracebackRoundTrip();
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

void TestFxText::complexRepr_data() {
    QTest::addColumn<double>("real");
    QTest::addColumn<double>("imag");
    QTest::addColumn<QString>("python"); // repr(complex(real, imag)) in CPython 3.11
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("1+2j") << 1.0 << 2.0 << "(1+2j)";
    QTest::newRow("2j: a real part of +0 is left out") << 0.0 << 2.0 << "2j";
    QTest::newRow("-2j is complex(-0.0, -2.0)") << -0.0 << -2.0 << "(-0-2j)";
    QTest::newRow("0.5-0.25j") << 0.5 << -0.25 << "(0.5-0.25j)";
    QTest::newRow("exponents") << 1e16 << 1.0 << "(1e+16+1j)";
    QTest::newRow("small imaginary") << 0.1 << 1e-05 << "(0.1+1e-05j)";
    QTest::newRow("no imaginary") << -1.5 << 0.0 << "(-1.5+0j)";
    QTest::newRow("non-finite") << std::nan("") << inf << "(nan+infj)";
}

// What torch.fx prints for an as_complex argument (mul.Tensor(%x, (0.5-0.25j))).
void TestFxText::complexRepr() {
    QFETCH(double, real);
    QFETCH(double, imag);
    QFETCH(QString, python);
    QCOMPARE(QString::fromStdString(pythonComplexRepr(real, imag)), python);
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

// The names this root's torch.fx._Namespace gave a run of candidates (generate_fixtures.py's
// NAME_CANDIDATES, written as namespace.json), given by NodeNamer in the same order.
void TestFxText::namesAsTorchFxNamesThem() {
    const QJsonObject want = QJsonDocument::fromJson(readFile(fixture("namespace.json"))).object();
    const QJsonArray candidates = want["candidates"].toArray();
    const QJsonArray names = want["names"].toArray();
    QVERIFY(!candidates.isEmpty());
    QCOMPARE(names.size(), candidates.size());
    NodeNamer namer;
    for (qsizetype i = 0; i < candidates.size(); ++i)
        QCOMPARE(QString::fromStdString(namer.create(candidates[i].toString().toStdString())),
                 names[i].toString());
}

void TestFxText::snakeCase() {
    QCOMPARE(NodeNamer::snakeCase("pascalCase"), std::string("pascal_case"));
    QCOMPARE(NodeNamer::snakeCase("ALL_CAPS"), std::string("all_caps"));
    QCOMPARE(NodeNamer::snakeCase("snake_case"), std::string("snake_case"));
}

// A dict literal prints as torch.fx's _format_arg (`{out: %x}`) in args and as str() of the
// dict when returned; an entry that is no (key, value) pair, which only a malformed engine frame
// makes, prints whole instead of failing.
void TestFxText::formatDicts() {
    Argument dict = Argument::ofDict({{Argument::ofString("out"), Argument::ofNode("x")},
                                      {Argument::ofInt(2), Argument::ofFloat(0.5)}});
    QCOMPARE(formatArgument(dict), std::string("{out: %x, 2: 0.5}"));
    Graph g;
    Node out;
    out.op = Op::Output;
    out.name = out.target = "output";
    out.args = {dict};
    g.nodes.push_back(out);
    QVERIFY(formatGraph(g).find("return {'out': x, 2: 0.5}") != std::string::npos);
    Argument malformed = dict;
    malformed.items[0].items.pop_back();
    malformed.items[1] = Argument::ofInt(7);
    QCOMPARE(formatArgument(malformed), std::string("{(out,), 7}"));
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

// Python tracebacks as a .pt2's stack_trace keeps them (traceback.format_list: outermost first)
// and as the TorchScript tracer writes them: the frame shown is the model's own line.
void TestFxText::innermostFrame_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("file"); // "" for no frame at all
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("function");
    QTest::addColumn<QString>("text");
    const QString linear = "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", "
                           "line 125, in forward\n    return F.linear(input, self.weight, "
                           "self.bias)\n";
    QTest::newRow("one frame, as torch.export wrote tinynet's linear")
        << "  File \"/work/main/tests/fixtures/generate_fixtures.py\", line 114, in forward\n"
           "    x = self.fc1(x)\n"
        << "/work/main/tests/fixtures/generate_fixtures.py" << 114 << "forward"
        << "x = self.fc1(x)";
    QTest::newRow("nested modules: the innermost")
        << "  File \"/tmp/m.py\", line 20, in forward\n    y = self.block(x)\n"
           "  File \"/tmp/m.py\", line 8, in forward\n    return self.fc(x) * 2\n"
        << "/tmp/m.py" << 8 << "forward"
        << "return self.fc(x) * 2";
    QTest::newRow("PyTorch's own frames are not the model's line")
        << "  File \"/tmp/m.py\", line 8, in forward\n    return self.fc(x) * 2\n" + linear
        << "/tmp/m.py" << 8 << "forward"
        << "return self.fc(x) * 2";
    QTest::newRow("only PyTorch's frames (inside a Linear): its line")
        << linear << "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py" << 125 << "forward"
        << "return F.linear(input, self.weight, self.bias)";
    QTest::newRow("a relative torch/ path is PyTorch's")
        << "  File \"m.py\", line 3, in forward\n    return g(x)\n"
           "  File \"torch/fx/proxy.py\", line 9, in g\n    return 1\n"
        << "m.py" << 3 << "forward"
        << "return g(x)";
    QTest::newRow("caret lines skipped; a header without indentation")
        << "File \"/tmp/m.py\", line 5, in forward\n    return x @ self.w\n"
           "           ~~^~~~~~~~\n"
        << "/tmp/m.py" << 5 << "forward"
        << "return x @ self.w";
    QTest::newRow("a frame without its line (the file was gone)")
        << "  File \"/gone.py\", line 7, in forward\n"
        << "/gone.py" << 7 << "forward"
        << "";
    QTest::newRow("carets under a frame with no text are not its text")
        << "  File \"/gone.py\", line 7, in forward\n    ^^^^\n"
        << "/gone.py" << 7 << "forward"
        << "";
    QTest::newRow("a path with spaces and commas")
        << "  File \"/My Models/a, b.py\", line 12, in <lambda>\n    x = f(x)\n"
        << "/My Models/a, b.py" << 12 << "<lambda>"
        << "x = f(x)";
    QTest::newRow("empty") << ""
                           << "" << 0 << ""
                           << "";
    QTest::newRow("not a traceback") << "x = self.fc1(x)\nFile m.py line 3"
                                     << "" << 0 << ""
                                     << "";
}

void TestFxText::innermostFrame() {
    QFETCH(QString, trace);
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(QString, function);
    QFETCH(QString, text);
    std::optional<SourceLocation> frame = fxview::innermostFrame(trace.toStdString());
    QCOMPARE(frame.has_value(), !file.isEmpty());
    if (!frame)
        return;
    QCOMPARE(frame->file, file.toStdString());
    QCOMPARE(frame->line, line);
    QCOMPARE(frame->function, function.toStdString());
    QCOMPARE(frame->text, text.toStdString());
}

// What the TorchScript tracer writes reads back as the same frames, in order.
void TestFxText::tracebackRoundTrip() {
    std::vector<SourceLocation> frames = {{"/tmp/m.py", 20, "forward", "y = self.block(x)"},
                                          {"/tmp/m.py", 8, "forward", ""},
                                          {"/tmp/torch/x.py", 1, "f", "return 1"}};
    std::string trace;
    for (const SourceLocation& f : frames)
        trace += tracebackFrame(f);
    const std::string first = "  File \"/tmp/m.py\", line 20, in forward\n    y = self.block(x)\n";
    QCOMPARE(trace.substr(0, first.size()), first);
    std::vector<SourceLocation> back = tracebackFrames(trace);
    QCOMPARE(back.size(), frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        QCOMPARE(back[i].file, frames[i].file);
        QCOMPARE(back[i].line, frames[i].line);
        QCOMPARE(back[i].function, frames[i].function);
        QCOMPARE(back[i].text, frames[i].text);
    }
    QCOMPARE(fxview::innermostFrame(trace)->line, 8);
    // The model's own frames as a call stack: innermost first, PyTorch's file left out.
    std::vector<SourceLocation> own = modelFrames(trace);
    QCOMPARE(own.size(), std::size_t(2));
    QCOMPARE(own[0].line, 8);
    QCOMPARE(own[1].line, 20);
}

QTEST_APPLESS_MAIN(TestFxText)
#include "tst_fxtext.moc"
