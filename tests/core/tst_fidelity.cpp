// Fidelity on constructs the zoo seldom uses: for each, a small model of our own
// (tests/fixtures/construct_models.py) runs to the end with outputs equal to its forward, and
// what it raises reaches the person as the model wrote it.

#include "FxText.h"
#include "TestSession.h"

using namespace fxview;

class TestFidelity : public QObject {
    Q_OBJECT
private slots:
    void interpreterOpsRun_data();
    void interpreterOpsRun();
    void raisedMessagesAreFormatted_data();
    void raisedMessagesAreFormatted();
    void defaultsArePlaceholderArgs();
    void inputCountsAreChecked();
    void stepIntoAWrappedFunction();
    void inputsFromFiles_data();
    void inputsFromFiles();
    void subscriptsPrintLikeTorchFx();
    void tracedIdentityCallsAreKept();
    void exportedWeightsRunAlong();
};

void TestFidelity::interpreterOpsRun_data() {
    QTest::addColumn<QStringList>("inputs");
    QTest::newRow("defaults left out") << QStringList{"4x3"};
    QTest::newRow("bias given") << QStringList{"4x3", "3"};
    QTest::newRow("tensor scale: isinstance false") << QStringList{"4x3", "3", "1"};
}

void TestFidelity::interpreterOpsRun() {
    QFETCH(QStringList, inputs);
    std::vector<std::string> specs;
    for (const QString& s : inputs)
        specs.push_back(s.toStdString());
    auto run = session(fixture("interpreter_ops_scripted.pt"), specs);
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    OutputCheck check = run->checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
    // The NamedTuple's str field, built by format, split, join, upper and percentFormat.
    QCOMPARE(run->outputSummary().items.at(1).value, std::string("2D-6-ON-CPU (4 rows)"));
    // print() runs but, as in torch.fx, leaves no node the person sees.
    QVERIFY(formatNodeList(run->graph()).find("print") == std::string::npos);
}

void TestFidelity::raisedMessagesAreFormatted_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("message");
    QTest::newRow("assert with an f-string") << "interpreter_ops_scripted.pt"
                                             << "2x4x3"
                                             << "AssertionError: expected a 2-d input, got 3-d";
    QTest::newRow("raise ValueError(f...)") << "interpreter_ops_scripted.pt"
                                            << "4x5"
                                            << "ValueError: expected 3 features, got 5";
    QTest::newRow("torch._assert(c == 6, f...)") << "subscripts_scripted.pt"
                                                 << "4x5"
                                                 << "AssertionError: expected 6 columns, got 5";
    // TorchScript's ListUnpack says so (the model's own forward, tried in PyTorch 2.6).
    QTest::newRow("n, c = x.shape on 3 dims") << "subscripts_scripted.pt"
                                              << "4x6x1"
                                              << "Expected 2 elements in a list but found 3";
}

void TestFidelity::raisedMessagesAreFormatted() {
    QFETCH(QString, model);
    QFETCH(QString, input);
    QFETCH(QString, message);
    auto run = session(fixture(model.toStdString()), {input.toStdString()});
    QCOMPARE(run->runToEnd(), StopReason::Failed);
    QVERIFY2(run->failure().find(message.toStdString()) != std::string::npos,
             run->failure().c_str());
}

void TestFidelity::defaultsArePlaceholderArgs() {
    auto run = session(fixture("interpreter_ops_scripted.pt"), {"4x3"});
    std::string text = formatGraph(run->graph());
    // torch.fx prints a placeholder's default with str(): node.py's format_node.
    QVERIFY2(text.find("placeholder[target=bias](default=None)\n") != std::string::npos,
             text.c_str());
    QVERIFY(text.find("placeholder[target=scale](default=2.0)\n") != std::string::npos);
    // x's first consumer is no module, so only x needs giving: the guess stops at it.
    QVERIFY(run->guessInputs().error.find("'x'") != std::string::npos);
}

void TestFidelity::inputCountsAreChecked() {
    auto run = session(fixture("interpreter_ops_scripted.pt"), {"4x3"});
    InputSpec spec;
    std::string error;
    QVERIFY(parseInputSpec("4x3", spec, error));
    QCOMPARE(run->setInputs({}), std::string("The model takes 3 input(s) (x, bias, scale) but 0 "
                                             "were given and 'x' has no default; pass one "
                                             "--input per input."));
    QVERIFY(run->setInputs({spec, spec, spec, spec}).find("but 4 were given") != std::string::npos);
}

// torch.fx keeps torchvision's shifted_window_attention whole (torch.fx.wrap); Step Into shows its
// body node by node, and the value it computes there is the one the run goes on with.
void TestFidelity::stepIntoAWrappedFunction() {
    auto run = session(fixture("swin_t_scripted.pt"), {"1x3x224x224"});
    const Node* call = run->graph().find("shifted_window_attention");
    QVERIFY(call);
    QCOMPARE(call->target,
             std::string("torchvision.models.swin_transformer.shifted_window_attention"));
    QCOMPARE(run->graph().nodeCount(), 247); // as symbolic_trace records swin_t
    while (run->nextNode() != "shifted_window_attention")
        QCOMPARE(run->step(), StopReason::Stepped);
    QCOMPARE(run->stepInto(), StopReason::Stepped);
    QCOMPARE(run->depth(), 1);
    QCOMPARE(run->steppedIntoNode(), std::string("shifted_window_attention"));
    const Interpreter* inside = run->steppedInto();
    QVERIFY(inside->graph().nodeCount() > 50); // its reshapes, matmuls, softmax, masks...
    QCOMPARE(inside->graph().nodes.front().op, Op::Placeholder); // its arguments
    // torch.fx renames a name that shadows a Python builtin: input -> input_1.
    QCOMPARE(inside->graph().nodes.front().name, std::string("input_1"));
    QCOMPARE(run->stepOut(), StopReason::Stepped);
    QCOMPARE(run->depth(), 0);
    QCOMPARE(run->record("shifted_window_attention")->value.shape,
             (std::vector<std::int64_t>{1, 56, 56, 96}));
    // Into every other wrapped call too: their bodies, run node by node, compute what the
    // whole calls do (the old inlined graph of swin_t ended in "Outputs equal: False").
    int entered = 1;
    while (!run->finished()) {
        const Node* next = run->graph().find(run->nextNode());
        bool wrapped = next && next->target.rfind("torchvision.", 0) == 0;
        StopReason r = wrapped ? run->stepInto() : run->step();
        QVERIFY(r == StopReason::Stepped || r == StopReason::Finished);
        if (wrapped) {
            ++entered;
            QCOMPARE(run->stepOut(), StopReason::Stepped);
        }
    }
    // 12 blocks of _get_relative_position_bias, shifted_window_attention and 2 stochastic_depth,
    // 3 _patch_merging_pad; the first block's bias ran whole before the first Step Into.
    QCOMPARE(entered, 12 * 4 + 3 - 1);
    OutputCheck check = run->checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
}

void TestFidelity::inputsFromFiles_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("explanation"); // what the run's first input is
    QTest::newRow("a tuple of two tensors spread over x and bias") << "interpreter_ops"
                                                                   << "interpreter_ops_inputs.pt"
                                                                   << "[4, 3]";
    QTest::newRow("a tuple of a list of tensors and an int64 tensor") << "list_input"
                                                                      << "list_input_inputs.pt"
                                                                      << "[[2, 3], [3, 3]]";
    QTest::newRow("a list of tensors, the one argument") << "list_input"
                                                         << "list_input_list.pt"
                                                         << "[[2, 3], [3, 3]]";
}

void TestFidelity::inputsFromFiles() {
    QFETCH(QString, model);
    QFETCH(QString, file);
    QFETCH(QString, explanation);
    auto run = session(fixture(model.toStdString() + "_scripted.pt"),
                       {"file:" + fixture(file.toStdString())});
    QCOMPARE(shortDescription(run->inputSummaries().at(0)), explanation.toStdString());
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    OutputCheck check = run->checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
}

// x.shape/x.ndim/x.dtype, torch._assert and x[:, 0]-style subscripts print byte for byte as
// torch.fx prints them (what they raise: raisedMessagesAreFormatted).
void TestFidelity::subscriptsPrintLikeTorchFx() {
    auto run = session(fixture("subscripts_scripted.pt"), {"4x6"});
    QCOMPARE(QString::fromStdString(formatGraph(run->graph())),
             fxReference("subscripts")["graph_text"].toString() + "\n");
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    OutputCheck check = run->checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
}

// A traced archive keeps a call of a module that returned its input (nn.Identity,
// StochasticDepth in eval mode) with neither argument nor result: torch.fx's nodes all the same.
void TestFidelity::tracedIdentityCallsAreKept() {
    auto run = session(fixture("identity_calls_traced.pt"), {"2x4"});
    QJsonArray expected = fxReference("identity_calls")["nodes"].toArray();
    std::vector<const Node*> shown = shownNodes(run->graph());
    QCOMPARE(static_cast<int>(shown.size()), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        const Node& node = *shown[static_cast<std::size_t>(i)];
        QCOMPARE(QString::fromStdString(node.name), expected[i].toObject()["name"].toString());
        if (node.op != Op::Output)
            QCOMPARE(QString::fromStdString(node.target),
                     expected[i].toObject()["target"].toString());
    }
    // The identity's node is the one its user reads: `id_1(add)`, `mul(id_1, 2)`.
    QCOMPARE(formatArgument(run->graph().find("mul")->args.at(0)), std::string("%id_1"));
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    OutputCheck check = run->checkOutputs();
    QVERIFY2(check.verdict == OutputCheck::Verdict::Equal, check.message.c_str());
}

// A torch.export program's weights are placeholders; a step runs them along with the input, so
// the first step lands on x and the second on the first op.
void TestFidelity::exportedWeightsRunAlong() {
    auto run = session(fixture("tinynet.pt2"), {"3x4"});
    QCOMPARE(run->step(), StopReason::Stepped);
    QCOMPARE(run->nextNode(), std::string("linear"));
    QCOMPARE(run->record("p_fc1_weight")->runs, 1);
    QCOMPARE(run->runToEnd(), StopReason::Finished);
    QCOMPARE(run->checkOutputs().verdict, OutputCheck::Verdict::NoReference);
}

QTEST_APPLESS_MAIN(TestFidelity)
#include "tst_fidelity.moc"
