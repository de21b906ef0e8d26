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
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("message");
    QTest::newRow("assert with an f-string") << "2x4x3"
                                             << "AssertionError: expected a 2-d input, got 3-d";
    QTest::newRow("raise ValueError(f...)") << "4x5"
                                            << "ValueError: expected 3 features, got 5";
}

void TestFidelity::raisedMessagesAreFormatted() {
    QFETCH(QString, input);
    QFETCH(QString, message);
    auto run = session(fixture("interpreter_ops_scripted.pt"), {input.toStdString()});
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

QTEST_APPLESS_MAIN(TestFidelity)
#include "tst_fidelity.moc"
