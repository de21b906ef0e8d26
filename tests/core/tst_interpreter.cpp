// The interpreter against the module's own forward and torch.fx's ShapeProp: every model runs to
// the end with outputs equal (torch::equal), and the debugger's moves run the nodes they should.

// LibTorch's headers before Qt's: Qt's `slots` macro would rename IValue::slots().
#include "ExportGraphWalk.h"
#include "SymbolicOps.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdlib>
#include <map>

#include "FxText.h"
#include "Interpreter.h"
#include "ModelComparison.h"
#include "RunComparison.h"
#include "TestSession.h"

using namespace fxview;

namespace {

// Empty when node `name` of the run has the shape and dtype ShapeProp recorded in `expected`.
std::string shapePropMismatch(const Interpreter& run, const std::string& name,
                              const QJsonObject& expected) {
    std::vector<std::int64_t> shape;
    for (const QJsonValue& dim : expected["shape"].toArray())
        shape.push_back(dim.toInt());
    const ValueSummary& got = run.record(name)->value;
    if (got.shape == shape && got.dtype == expected["dtype"].toString().toStdString())
        return {};
    return name + ": " + formatShape(got.shape) + " " + got.dtype + ", ShapeProp has " +
           formatShape(shape) + " " + expected["dtype"].toString().toStdString();
}

} // namespace

class TestInterpreter : public QObject {
    Q_OBJECT
private slots:
    void symbolicArithmeticIsPythons_data();
    void symbolicArithmeticIsPythons();
    void symbolicCallsAreTheOnesThatRun();
    void outputsEqualForward_data();
    void outputsEqualForward();
    void tinyNetGivesTheSeedNumbers();
    void stepRunsNodesInOrder();
    void stepRunsHiddenGuardsAlong();
    void runToStopsAfterTheNode();
    void breakpointsStopBeforeTheirNode();
    void resetClearsAndRunsAgain();
    void stepIntoRunsTheModuleGraph();
    void stepOutFinishesTheModule();
    void shapesEqualShapeProp_data();
    void histogramEqualsHistc();
    void shapesEqualShapeProp();
    void shapesEqualShapePropByName_data();
    void shapesEqualShapePropByName();
    void branchNotTakenIsNotExecuted();
    void executedPathUnrollsTheLoop();
    void wrongShapeFailsAtTheNode();
    void valuesAreFreedUnlessKept();
    void guessesInputs();
    void badSpecs();
    void randomOpsAreFound();
    void warningsAreNotedAndTheRunGoesOn();
    void writesIntoWeightsAreFound();
};

void TestInterpreter::outputsEqualForward_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("input");
    QTest::newRow("example:tinynet") << "example:tinynet"
                                     << "3x4";
    QTest::newRow("example:branchy") << "example:branchy"
                                     << "1x4";
    QTest::newRow("example:smallcnn") << "example:smallcnn"
                                      << "1x3x32x32";
    for (const char* file : {"tinynet_scripted", "tinynet_traced"})
        QTest::newRow(file) << QString::fromStdString(fixture(std::string(file) + ".pt")) << "3x4";
    for (const char* file :
         {"resnet18_scripted", "resnet18_traced", "mobilenet_v2_scripted", "mobilenet_v2_traced"})
        QTest::newRow(file) << QString::fromStdString(fixture(std::string(file) + ".pt"))
                            << "1x3x32x32";
    QTest::newRow("control_flow_scripted")
        << QString::fromStdString(fixture("control_flow_scripted.pt")) << "";
    // Lists appended to after they are made: in a loop, and by a value known only at run time.
    QTest::newRow("list_mutation_scripted")
        << QString::fromStdString(fixture("list_mutation_scripted.pt")) << "1x4";
    QTest::newRow("densenet121_scripted")
        << QString::fromStdString(fixture("densenet121_scripted.pt")) << "1x3x32x32";
    // A dict of a tensor and a list of tensors, compared item by item.
    QTest::newRow("dict_output_scripted")
        << QString::fromStdString(fixture("dict_output_scripted.pt")) << "2x3";
    // Saved by PyTorch 2.6, on ops PyTorch 1.x never had (scaled_dot_product_attention).
    for (const char* file : {"attention_scripted", "attention_traced"})
        QTest::newRow(file) << QString::fromStdString(fixture(std::string(file) + ".pt"))
                            << "2x8x16";
    QTest::newRow("googlenet_scripted") // its forward calls warnings.warn
        << QString::fromStdString(fixture("googlenet_scripted.pt")) << "1x3x224x224";
    QTest::newRow("vit_b_16_traced")
        << QString::fromStdString(fixture("vit_b_16_traced.pt")) << "1x3x224x224";
    QTest::newRow("parameter_returned_scripted")
        << QString::fromStdString(fixture("parameter_returned_scripted.pt")) << "3";
    // A list kept in a module attribute, appended to through it in a loop.
    QTest::newRow("range_loops_scripted")
        << QString::fromStdString(fixture("range_loops_scripted.pt")) << "2x4";
    // What uses only buffers ran while tracing; a buffer written in forward is read at run time.
    QTest::newRow("held_tensors_scripted")
        << QString::fromStdString(fixture("held_tensors_scripted.pt")) << "2x3x4";
    QTest::newRow("buffer_written_scripted")
        << QString::fromStdString(fixture("buffer_written_scripted.pt")) << "2x3";
    QTest::newRow("held_through_loops_scripted")
        << QString::fromStdString(fixture("held_through_loops_scripted.pt")) << "2x4";
    QTest::newRow("access_order_scripted")
        << QString::fromStdString(fixture("access_order_scripted.pt")) << "3x4";
    QTest::newRow("dict_literals_scripted")
        << QString::fromStdString(fixture("dict_literals_scripted.pt")) << "2x4";
    QTest::newRow("list_attribute_scripted")
        << QString::fromStdString(fixture("list_attribute_scripted.pt")) << "1x2x8x8";
    // Modules passed around as values; a module an if picks, each call an if of its own.
    for (const char* file : {"modules_as_values_scripted", "module_picked_by_if_scripted"})
        QTest::newRow(file) << QString::fromStdString(fixture(std::string(file) + ".pt")) << "2x4";
    // F.interpolate and its kin run whole, as one call_function each.
    QTest::newRow("functional_calls_scripted")
        << QString::fromStdString(fixture("functional_calls_scripted.pt")) << "1x3x8x8";
    // Its f-string asserts run aten::format; swin_t's wrapped functions run whole.
    for (const char* file : {"vit_b_16_scripted", "swin_t_scripted"})
        QTest::newRow(file) << QString::fromStdString(fixture(std::string(file) + ".pt"))
                            << "1x3x224x224";
}

void TestInterpreter::outputsEqualForward() {
    QFETCH(QString, source);
    QFETCH(QString, input);
    std::vector<std::string> specs;
    if (!input.isEmpty())
        specs.push_back(input.toStdString());
    LoadResult loaded = loadModel(source.toStdString());
    QVERIFY(loaded.ok());
    Interpreter run(loaded.model, importGraph(*loaded.model));
    std::vector<InputSpec> inputs;
    if (specs.empty()) {
        InputChoice guess = run.guessInputs();
        QVERIFY2(guess.error.empty(), guess.error.c_str());
        inputs = guess.specs;
    } else {
        InputSpec spec;
        std::string error;
        QVERIFY(parseInputSpec(specs[0], spec, error));
        inputs = {spec};
    }
    QCOMPARE(run.setInputs(inputs, 0), std::string());
    QCOMPARE(run.runToEnd(), StopReason::Finished);
    std::string why;
    QVERIFY2(run.outputsEqualForward(&why), why.c_str());
    OutputCheck check = run.checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
    // Every node the graph shows either ran or sits in a branch this input did not take.
    run.graph().forEachNode([&](const Node& n, int) {
        NodeState s = run.record(n.name)->state;
        QVERIFY2(s == NodeState::Done || s == NodeState::NotExecuted, n.name.c_str());
    });
}

void TestInterpreter::tinyNetGivesTheSeedNumbers() {
    auto run = session("example:tinynet", {"3x4"}, 0);
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    // PyTorch's own min/max/mean/std of the output of torch.manual_seed(0); TinyNet() on
    // torch.randn(3, 4) after seed 0, recorded by the generator as exact float.hex() strings.
    QJsonObject ref = QJsonDocument::fromJson(readFile(fixture("tinynet_reference.json"))).object();
    QJsonObject stats = ref["output_stats"].toObject();
    auto exact = [&](const char* key) {
        return std::strtod(stats[key].toString().toLatin1().constData(), nullptr);
    };
    ValueSummary out = run->outputSummary();
    QCOMPARE(out.shape, (std::vector<std::int64_t>{3, 2}));
    QVERIFY(out.hasStats);
    QCOMPARE(out.min, exact("min")); // elements of the output: exact
    QCOMPARE(out.max, exact("max"));
    // fxview sums in double, PyTorch in float32: they agree to float32's precision.
    QVERIFY2(std::abs(out.mean - exact("mean")) <= 1e-6 * std::abs(exact("mean")),
             std::to_string(out.mean).c_str());
    QVERIFY2(std::abs(out.std - exact("std")) <= 1e-6 * std::abs(exact("std")),
             std::to_string(out.std).c_str());
    QCOMPARE(shortDescription(run->record("fc2")->value), std::string("[3, 2]"));
}

void TestInterpreter::stepRunsNodesInOrder() {
    auto run = session("example:tinynet", {"3x4"});
    std::vector<std::string> seen;
    for (int i = 0; i < 5; ++i) {
        QVERIFY(!run->finished());
        run->step();
        seen.push_back(run->lastNode());
    }
    QCOMPARE(seen, (std::vector<std::string>{"x", "fc1", "relu", "fc2", "output"}));
    QVERIFY(run->finished());
    QCOMPARE(run->step(), StopReason::Finished); // nothing more to run
    QCOMPARE(run->executionOrder().size(), std::size_t(5));
}

void TestInterpreter::stepRunsHiddenGuardsAlong() {
    // branchy asserts x.dim() == 2 first: that guard is hidden, and runs within the step to fc.
    auto run = session("example:branchy", {"1x4"});
    run->step();
    QCOMPARE(run->lastNode(), std::string("x"));
    run->step();
    QCOMPARE(run->lastNode(), std::string("fc"));
    QCOMPARE(run->record("dim")->state, NodeState::Done);
    QCOMPARE(run->executionOrder(), (std::vector<std::string>{"x", "dim", "eq", "guard", "fc"}));
}

void TestInterpreter::runToStopsAfterTheNode() {
    auto run = session("example:tinynet", {"3x4"});
    QCOMPARE(run->runTo("relu"), StopReason::Stepped);
    QCOMPARE(run->executionOrder(), (std::vector<std::string>{"x", "fc1", "relu"}));
    QCOMPARE(run->nextNode(), std::string("fc2"));
    QCOMPARE(run->record("fc2")->state, NodeState::Pending);
}

void TestInterpreter::breakpointsStopBeforeTheirNode() {
    auto run = session("example:smallcnn", {"1x3x32x32"});
    run->setBreakpoint("add", true);
    run->setBreakpoint("fc", true);
    QCOMPARE(run->runToEnd(), StopReason::Breakpoint);
    QCOMPARE(run->nextNode(), std::string("add"));
    QCOMPARE(run->lastNode(), std::string("block_bn2"));
    QCOMPARE(run->record("add")->state, NodeState::Pending);
    QCOMPARE(run->runToEnd(), StopReason::Breakpoint); // continues past add, stops before fc
    QCOMPARE(run->lastNode(), std::string("flatten"));
    QCOMPARE(run->record("add")->state, NodeState::Done);
    run->setBreakpoint("fc", false);
    QVERIFY(!run->hasBreakpoint("fc"));
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QCOMPARE(run->executionOrder().back(), std::string("output"));
}

void TestInterpreter::resetClearsAndRunsAgain() {
    auto run = session("example:tinynet", {"3x4"});
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    ValueSummary first = run->outputSummary();
    run->reset();
    QVERIFY(!run->finished());
    QVERIFY(run->executionOrder().empty());
    QCOMPARE(run->record("fc1")->state, NodeState::Pending);
    QCOMPARE(run->nextNode(), std::string("x"));
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QCOMPARE(run->outputSummary().mean, first.mean); // same input, same numbers
    InputSpec other;
    std::string error;
    QVERIFY(parseInputSpec("5x4", other, error));
    QCOMPARE(run->setInputs({other}, 7), std::string());
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QCOMPARE(run->outputSummary().shape, (std::vector<std::int64_t>{5, 2}));
}

void TestInterpreter::stepIntoRunsTheModuleGraph() {
    auto run = session("example:tinynet", {"3x4"});
    run->step(); // x
    QCOMPARE(run->nextNode(), std::string("fc1"));
    run->stepInto(); // into fc1 (torch.nn.Linear): its input
    QCOMPARE(run->depth(), 1);
    // Its weight and bias (get_attr) run along with the linear reading them.
    QCOMPARE(run->nextNode(), std::string("fc1.linear"));
    while (run->depth() > 0)
        run->step();
    QCOMPARE(run->lastNode(), std::string("fc1"));
    QCOMPARE(run->executionOrder(),
             (std::vector<std::string>{"x", "fc1.input_1", "fc1.linear", "fc1.output", "fc1"}));
    QCOMPARE(shortDescription(run->record("fc1")->value), std::string("[3, 8]"));
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QVERIFY(run->outputsEqualForward());
}

void TestInterpreter::stepOutFinishesTheModule() {
    auto run = session("example:tinynet", {"3x4"});
    run->runTo("relu");
    run->stepInto(); // into fc2
    run->step();
    QCOMPARE(run->depth(), 1);
    run->stepOut();
    QCOMPARE(run->depth(), 0);
    QCOMPARE(run->lastNode(), std::string("fc2"));
    QCOMPARE(run->nextNode(), std::string("output"));
}

// The inspector's histogram of conv1's output equals torch.histc over the same sampled values.
void TestInterpreter::histogramEqualsHistc() {
    auto run = session(fixture("resnet18_scripted.pt"), {"file:" + fixture("resnet18_input.pt")});
    run->runTo("bn1"); // conv1 has run
    const NodeRecord* conv1 = run->record("conv1");
    QVERIFY(conv1 && conv1->value.hasStats);
    QJsonObject ref =
        QJsonDocument::fromJson(readFile(fixture("resnet18_conv1_histogram.json"))).object();
    QCOMPARE(conv1->value.histogramSample, static_cast<std::int64_t>(ref["sample"].toInt()));
    QJsonArray bins = ref["bins"].toArray();
    QCOMPARE(static_cast<int>(conv1->value.histogram.size()), bins.size());
    for (int i = 0; i < bins.size(); ++i)
        QCOMPARE(conv1->value.histogram[static_cast<std::size_t>(i)],
                 static_cast<std::int64_t>(bins[i].toInt()));
}

void TestInterpreter::shapesEqualShapeProp_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("variant");
    addVisionRows();
}

// "1x3x224x224": the input the generator ran ShapeProp on.
std::string fxInput(const QJsonObject& fx) {
    std::string input;
    for (const QJsonValue& dim : fx["input_shape"].toArray())
        input += (input.empty() ? "" : "x") + std::to_string(dim.toInt());
    return input;
}

void TestInterpreter::shapesEqualShapeProp() {
    QFETCH(QString, model);
    QFETCH(QString, variant);
    auto run = session(fixture((model + "_" + variant + ".pt").toStdString()),
                       {fxInput(fxReference(model.toStdString()))});
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QJsonArray nodes = fxReference(model.toStdString())["nodes"].toArray();
    std::vector<const Node*> shown = shownNodes(run->graph());
    QCOMPARE(static_cast<int>(shown.size()), nodes.size());
    for (int i = 0; i < nodes.size(); ++i) {
        const Node& node = *shown[static_cast<std::size_t>(i)];
        std::string mismatch = shapePropMismatch(*run, node.name, nodes[i].toObject());
        QVERIFY2(mismatch.empty(), mismatch.c_str());
    }
}

// For graphs whose node lists differ from symbolic_trace's in places (a traced ViT has no asserts),
// every node torch.fx also has, by op and name, has ShapeProp's shape and dtype, and every
// call_module of torch.fx's graph is among them.
void TestInterpreter::shapesEqualShapePropByName_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("variant");
    QTest::newRow("attention scripted") << "attention"
                                        << "scripted";
    QTest::newRow("attention traced") << "attention"
                                      << "traced";
    QTest::newRow("vit_b_16 traced") << "vit_b_16"
                                     << "traced";
}

void TestInterpreter::shapesEqualShapePropByName() {
    QFETCH(QString, model);
    QFETCH(QString, variant);
    QJsonObject fx = fxReference(model.toStdString());
    auto run = session(fixture((model + "_" + variant + ".pt").toStdString()), {fxInput(fx)});
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    std::map<std::string, const Node*> ours;
    run->graph().forEachNode([&](const Node& n, int) { ours[n.name] = &n; });
    int compared = 0;
    for (const QJsonValue& value : fx["nodes"].toArray()) {
        QJsonObject expected = value.toObject();
        std::string name = expected["name"].toString().toStdString();
        auto found = ours.find(name);
        bool sameOp = found != ours.end() &&
                      opName(found->second->op) == expected["op"].toString().toStdString();
        if (expected["op"] == "call_module")
            QVERIFY2(sameOp, ("torch.fx's module call " + name + " is missing").c_str());
        if (!sameOp || expected["shape"].isNull())
            continue;
        std::string mismatch = shapePropMismatch(*run, name, expected);
        QVERIFY2(mismatch.empty(), mismatch.c_str());
        ++compared;
    }
    QVERIFY2(compared >= 10, std::to_string(compared).c_str());
}

void TestInterpreter::branchNotTakenIsNotExecuted() {
    // The branch depends on the sign of fc(x).sum(): over a few seeds both sides come up.
    bool sawTrue = false, sawFalse = false;
    for (std::uint64_t seed = 0; seed < 20 && !(sawTrue && sawFalse); ++seed) {
        auto run = session("example:branchy", {"1x4"}, seed);
        QCOMPARE(run->runToEnd(), StopReason::Finished);
        QVERIFY(run->outputsEqualForward());
        const NodeRecord* cond = run->record("cond");
        QCOMPARE(cond->blockRuns.size(), std::size_t(2));
        bool tookTrue = cond->blockRuns[0] == 1;
        QCOMPARE(cond->blockRuns[0] + cond->blockRuns[1], 1);
        QCOMPARE(run->record("relu")->state, tookTrue ? NodeState::Done : NodeState::NotExecuted);
        QCOMPARE(run->record("neg")->state, tookTrue ? NodeState::NotExecuted : NodeState::Done);
        QCOMPARE(run->record("loop")->blockRuns, std::vector<int>{3});
        QCOMPARE(run->record("tanh")->runs, 3);
        (tookTrue ? sawTrue : sawFalse) = true;
    }
    QVERIFY(sawTrue);
    QVERIFY(sawFalse);
}

void TestInterpreter::executedPathUnrollsTheLoop() {
    auto run = session("example:branchy", {"1x4"});
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    bool tookTrue = run->record("cond")->blockRuns[0] == 1;
    Graph path = run->executedPath();
    std::string text = formatGraph(path);
    QVERIFY(text.find("prim::If") == std::string::npos);
    QVERIFY(text.find("prim::Loop") == std::string::npos);
    QVERIFY(path.find("tanh_2")); // the body once per iteration
    QVERIFY(!path.find("tanh_3"));
    QCOMPARE(path.find(tookTrue ? "neg" : "relu"), nullptr); // the branch not taken left nothing
    QVERIFY(path.find(tookTrue ? "relu" : "neg"));
    // The second iteration reads what the first one produced.
    QCOMPARE(formatArgument(path.find("mul_1")->args[0]), std::string("%tanh_1"));
    QCOMPARE(formatArgument(path.find("tanh_1")->args[0]), std::string("%add"));
}

void TestInterpreter::wrongShapeFailsAtTheNode() {
    auto run = session("example:tinynet", {"3x5"});
    QCOMPARE(run->runToEnd(), StopReason::Failed);
    QVERIFY(run->failed());
    QCOMPARE(run->lastNode(), std::string("fc1"));
    QCOMPARE(run->record("fc1")->state, NodeState::Failed);
    QCOMPARE(run->record("relu")->state, NodeState::Pending);
    QString message = QString::fromStdString(run->failure());
    for (const char* part : {"'fc1'", "call_module fc1", "torch.nn.Linear", "[3, 5] float32",
                             "mat1 and mat2 shapes cannot be multiplied (3x5 and 4x8)"})
        QVERIFY2(message.contains(part), qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QCOMPARE(run->step(), StopReason::Failed); // stays stopped until reset
    InputSpec good;
    std::string error;
    QVERIFY(parseInputSpec("3x4", good, error));
    QCOMPARE(run->setInputs({good}), std::string());
    QCOMPARE(run->runToEnd(), StopReason::Finished);
}

void TestInterpreter::valuesAreFreedUnlessKept() {
    auto freed = session(fixture("resnet18_traced.pt"), {"1x3x32x32"});
    RunOptions keep;
    keep.keepValues = true;
    auto kept = session(fixture("resnet18_traced.pt"), {"1x3x32x32"}, 0, keep);
    freed->runTo("layer2_0_conv1");
    kept->runTo("layer2_0_conv1");
    // Only the values a later node still reads are held: the block's input and its output.
    QVERIFY2(freed->liveValueCount() <= 3, std::to_string(freed->liveValueCount()).c_str());
    QVERIFY2(kept->liveValueCount() >= 18, std::to_string(kept->liveValueCount()).c_str());
    QCOMPARE(freed->runToEnd(), StopReason::Finished);
    QVERIFY(freed->outputsEqualForward());
}

void TestInterpreter::guessesInputs() {
    struct Case {
        const char* source;
        const char* spec;
    };
    for (const Case& c : {Case{"example:tinynet", "1x4"}, Case{"example:smallcnn", "1x3x224x224"},
                          Case{"example:branchy", "1x4"}}) {
        LoadResult loaded = loadModel(c.source);
        Interpreter run(loaded.model, importGraph(*loaded.model));
        InputChoice guess = run.guessInputs();
        QVERIFY2(guess.error.empty(), guess.error.c_str());
        QCOMPARE(guess.specs.size(), std::size_t(1));
        QCOMPARE(guess.specs[0].text(), std::string(c.spec));
        QVERIFY(guess.explanation.find("guessed from") != std::string::npos);
    }
    LoadResult resnet = loadModel(fixture("resnet18_scripted.pt"));
    Interpreter run(resnet.model, importGraph(*resnet.model));
    QCOMPARE(run.guessInputs().specs.at(0).text(), std::string("1x3x224x224"));
}

void TestInterpreter::badSpecs() {
    InputSpec spec;
    std::string error;
    QVERIFY(parseInputSpec("2x8:int64", spec, error));
    QCOMPARE(spec.shape, (std::vector<std::int64_t>{2, 8}));
    QCOMPARE(spec.dtype, std::string("int64"));
    QVERIFY(parseInputSpec("file:input.pt", spec, error));
    QCOMPARE(spec.file, std::string("input.pt"));
    QVERIFY(!parseInputSpec("3by4", spec, error));
    QVERIFY(error.find("3by4") != std::string::npos);
    QVERIFY(!parseInputSpec("3x4:float128", spec, error));
    QVERIFY(error.find("float128") != std::string::npos);
    auto run = session("example:tinynet", {"3x4"});
    QVERIFY(run->setInputs({}, 0).find("takes 1 input(s) (x) but 0 were given") !=
            std::string::npos);
    QVERIFY(parseInputSpec("file:/no/such/tensor.pt", spec, error));
    QVERIFY(run->setInputs({spec}, 0).find("Cannot read the input file") != std::string::npos);
}

// A run with a random op cannot be checked against forward: which ops make a graph random.
void TestInterpreter::randomOpsAreFound() {
    auto graphWith = [](const std::string& schema, std::vector<Argument> args,
                        std::vector<KeywordArgument> kwargs = {}) {
        Graph g;
        Node n;
        n.op = Op::CallFunction;
        n.name = "op";
        n.target = "torch.op";
        n.schema = schema;
        n.args = std::move(args);
        n.kwargs = std::move(kwargs);
        g.nodes = {n};
        return g;
    };
    Argument x = Argument::ofNode("x");
    QCOMPARE(firstRandomNode(graphWith("aten::relu", {x})), std::string());
    QCOMPARE(firstRandomNode(graphWith("aten::rand_like", {x})), std::string("op (torch.op)"));
    QCOMPARE(firstRandomNode(graphWith("aten::empty.memory_format", {Argument::ofList({})})),
             std::string("op (torch.op)"));
    Argument p = Argument::ofFloat(0.5);
    QCOMPARE(firstRandomNode(graphWith("aten::dropout", {x, p, Argument::ofBool(false)})),
             std::string());
    QCOMPARE(firstRandomNode(graphWith("aten::dropout", {x, p, Argument::ofBool(true)})),
             std::string("op (torch.op with training on)"));
    QCOMPARE(firstRandomNode(graphWith("__torch__.torch.nn.functional.dropout", {x},
                                       {{"training", Argument::ofBool(true)}})),
             std::string("op (torch.op with training on)"));
    // F.dropout(x) leaves training at its default, True; F.alpha_dropout's is False.
    QCOMPARE(firstRandomNode(graphWith("__torch__.torch.nn.functional.dropout", {x})),
             std::string("op (torch.op with training on)"));
    QCOMPARE(firstRandomNode(graphWith("__torch__.torch.nn.functional.alpha_dropout", {x})),
             std::string());
    for (const char* example : {"example:tinynet", "example:branchy", "example:smallcnn"}) {
        LoadResult loaded = loadModel(example);
        QVERIFY(firstRandomNode(importGraph(*loaded.model).graph).empty());
    }
}

// aten::warn is run by TorchScript's interpreter itself, not the operator registry: fxview notes
// the message on the node's record and goes on; a warning in the branch not taken never runs.
void TestInterpreter::warningsAreNotedAndTheRunGoesOn() {
    auto run = session(fixture("warn_scripted.pt"), {"3"});
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QCOMPARE(run->record("warn_1")->warning, std::string("always here"));
    QVERIFY(run->graph().find("warn_1")->hidden); // torch.fx has no node for warnings.warn
    QVERIFY(formatNodeList(run->graph()).find("warn") == std::string::npos);
    QCOMPARE(run->record("warn")->state, NodeState::NotExecuted);
    QCOMPARE(run->checkOutputs().verdict, OutputCheck::Verdict::Equal);
}

// Compare shares the open model's weights only when no run can write into them: an in-place op
// on what no input flows into (a buffer, a weight, a view of one), not one on an activation.
void TestInterpreter::writesIntoWeightsAreFound() {
    LoadResult written = loadModel(fixture("buffer_written_scripted.pt")); // self.cache.copy_
    QVERIFY(mayWriteWeights(importGraph(*written.model).graph));
    for (const char* clean : {"resnet18_traced.pt", "resnet18_scripted.pt"}) {
        LoadResult loaded = loadModel(fixture(clean));
        QVERIFY2(!mayWriteWeights(importGraph(*loaded.model).graph), clean); // relu_ in place
    }
    Graph g;
    auto node = [&](Op op, std::string name, std::string schema, std::vector<Argument> args) {
        Node n;
        n.op = op;
        n.name = std::move(name);
        n.schema = std::move(schema);
        n.args = std::move(args);
        g.nodes.push_back(std::move(n));
    };
    node(Op::Placeholder, "x", "", {});
    node(Op::GetAttr, "w", "", {});
    node(Op::CallFunction, "view", "aten::view", {Argument::ofNode("w")});
    node(Op::CallFunction, "add_", "aten::add_.Tensor", {Argument::ofNode("x")});
    QVERIFY(!mayWriteWeights(g)); // into the input's own tensor
    node(Op::CallFunction, "mul_", "aten::mul_.Tensor",
         {Argument::ofNode("view"), Argument::ofNode("x")});
    QVERIFY(mayWriteWeights(g)); // into a view of the weight
}

void TestInterpreter::symbolicArithmeticIsPythons_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("expected");
    QTest::addColumn<bool>("isInt");
    // What python3 prints for 7 // -2, 7 % -2, 2 ** -1, 2 ** 10, 7 / 2, max(3, 5).
    QTest::newRow("floordiv") << "_operator.floordiv" << 7.0 << -2.0 << -4.0 << true;
    QTest::newRow("mod") << "_operator.mod" << 7.0 << -2.0 << -1.0 << true;
    QTest::newRow("pow, negative") << "_operator.pow" << 2.0 << -1.0 << 0.5 << false;
    QTest::newRow("pow") << "_operator.pow" << 2.0 << 10.0 << 1024.0 << true;
    QTest::newRow("truediv") << "_operator.truediv" << 7.0 << 2.0 << 3.5 << false;
    QTest::newRow("sym_max") << "torch.sym_max" << 3.0 << 5.0 << 5.0 << true;
}

// The Python-number functions a .pt2 calls on symbolic sizes round as Python does; int operands
// stay ints where Python's would.
void TestInterpreter::symbolicArithmeticIsPythons() {
    QFETCH(QString, target);
    QFETCH(double, a);
    QFETCH(double, b);
    QFETCH(double, expected);
    QFETCH(bool, isInt);
    auto op = symbolicOperation(target.toStdString(), 2);
    QVERIFY(op);
    torch::jit::Stack stack{static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)};
    (*op)(stack);
    QCOMPARE(stack.size(), std::size_t(1));
    QCOMPARE(stack[0].isInt(), isInt);
    QCOMPARE(isInt ? static_cast<double>(stack[0].toInt()) : stack[0].toDouble(), expected);
}

// The graph walk (no LibTorch) calls a target symbolic exactly where SymbolicOps runs one: both
// decide the node's arguments and name.
void TestInterpreter::symbolicCallsAreTheOnesThatRun() {
    int symbolic = 0;
    for (const char* module : {"_operator.", "operator.", "torch.", "torch.ops.aten.", ""})
        for (const char* name :
             {"mul", "add", "sub", "floordiv", "mod", "pow", "truediv", "eq", "ne", "le", "ge",
              "lt", "gt", "sym_max", "sym_min", "sym_ite", "neg", "pos", "sym_not", "sym_int",
              "sym_float", "sym_sqrt", "getitem", "relu", "and_", "sym_sum"})
            for (std::size_t arity = 0; arity <= 3; ++arity) {
                const std::string target = std::string(module) + name;
                const bool runs = symbolicOperation(target, static_cast<int>(arity)).has_value();
                QVERIFY2(ExportGraphWalk::isSymbolicCall(target, arity) == runs,
                         qPrintable(QString("%1 with %2 inputs").arg(target.c_str()).arg(arity)));
                symbolic += runs;
            }
    QVERIFY(symbolic > 40);
}

QTEST_APPLESS_MAIN(TestInterpreter)
#include "tst_interpreter.moc"
