// A debugging session without a window, driven as the window drives it, against a real engine:
// opening a model, stepping, Run to Cursor on a node that ran, breakpoints on the model's own
// nodes stopping Continue and Play, inputs remembered per model, a failed run refusing steps
// until Reset.

#include <QApplication>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "TestSupport.h"
#include "session/DebugSession.h"
#include "session/SessionSettings.h"

using namespace fxview;

namespace {

// Waits until the engine has answered everything asked of it: the session holds its last state.
bool settled(DebugSession& session) {
    return QTest::qWaitFor([&] { return !session.engine()->busy(); }, 60000);
}

QStringList messagesOf(const QSignalSpy& spy) {
    QStringList texts;
    for (const QList<QVariant>& call : spy)
        texts << call.value(0).toString();
    return texts;
}

} // namespace

class TestDebugSession : public QObject {
    Q_OBJECT
private slots:
    void init();
    void opensAndSteps();
    void runToANodeThatRanIsRefused();
    void breakpointsStopContinueAndPlay();
    void inputsAreRememberedPerModel();
    void aFailedRunRefusesStepsUntilReset();
    void breakOnNanStopsWhereItIsBorn();
    void conditionalBreakpointStopsAfterItsNode();
    void valuesComeOnRequest();
    void comparesInItsEngine();
    void comparesOnTheOpenModelsWeights();

private:
    bool open(const QString& source);
    bool command(RunCommand c);
    std::unique_ptr<DebugSession> session_;
};

void TestDebugSession::init() {
    QSettings().clear();
    session_ = std::make_unique<DebugSession>();
}

bool TestDebugSession::open(const QString& source) {
    QSignalSpy loaded(session_.get(), &DebugSession::modelLoaded);
    quint64 seed = 1;
    session_->open(source, {}, seed);
    if (seed != 0 || session_->pendingSource() != source)
        return false;
    return loaded.wait(60000) && settled(*session_) && session_->source() == source &&
           session_->pendingSource().isEmpty();
}

bool TestDebugSession::command(RunCommand c) {
    session_->runCommand(c);
    return settled(*session_);
}

void TestDebugSession::opensAndSteps() {
    QVERIFY(open("example:tinynet"));
    QVERIFY(session_->model().graph.find("fc1"));
    QVERIFY(session_->current().isEmpty());
    QVERIFY(session_->canRun());
    QSignalSpy moved(session_.get(), &DebugSession::currentNodeChanged);
    QVERIFY(command(RunCommand::Step)); // x
    QVERIFY(command(RunCommand::Step)); // fc1
    QCOMPARE(session_->current(), QString("fc1"));
    QCOMPARE(moved.last().value(0).toString(), QString("fc1"));
    QCOMPARE(session_->stateText(), QString("stopped after fc1"));
    QCOMPARE(session_->nodesMatching("fc"), (QStringList{"fc1", "fc2"}));
    QCOMPARE(session_->nodesMatching("RELU"), QStringList{"relu"}); // its op, any case
    QVERIFY(session_->recordOf("fc1"));
    QCOMPARE(session_->recordOf("fc1")->state, NodeState::Done);
    QVERIFY(!session_->recordOf("fc2") || session_->recordOf("fc2")->state != NodeState::Done);
    QVERIFY(session_->modelShown());
    QVERIFY(session_->shownGraph().find("fc1"));
    QCOMPARE(settings::recentModels().value(0), QString("example:tinynet"));

    QSignalSpy selected(session_.get(), &DebugSession::selectionChanged);
    session_->select("relu");
    session_->select("relu"); // the same again: nothing changed
    QCOMPARE(selected.size(), 1);
    QCOMPARE(session_->selected(), QString("relu"));
    QSignalSpy shown(session_.get(), &DebugSession::shownGraphChanged);
    session_->setExecutedShown(true);
    QCOMPARE(shown.size(), 1);
    QVERIFY(!session_->modelShown());
    session_->setExecutedShown(false);
    QVERIFY(session_->modelShown());
}

void TestDebugSession::runToANodeThatRanIsRefused() {
    QVERIFY(open("example:tinynet"));
    session_->runTo("relu");
    QVERIFY(settled(*session_));
    QCOMPARE(session_->current(), QString("relu"));
    QSignalSpy runs(session_.get(), &DebugSession::runUpdated);
    QSignalSpy said(session_.get(), &DebugSession::message);
    const int before = static_cast<int>(runs.size());
    session_->runTo("fc1");
    QCOMPARE(messagesOf(said).value(0),
             QString("fc1 has already run; Reset (Ctrl+Shift+F5) to run to it again"));
    QTest::qWait(200);
    QCOMPARE(runs.size(), before); // nothing was asked of the engine
}

void TestDebugSession::breakpointsStopContinueAndPlay() {
    QVERIFY(open("example:tinynet"));
    QVERIFY(!session_->setBreakpoint("nowhere", true)); // not a node of the model
    QVERIFY(session_->setBreakpoint("fc2", true));
    QCOMPARE(session_->breakpoints(), QSet<QString>{"fc2"});
    QVERIFY(command(RunCommand::RunToEnd));
    QCOMPARE(session_->current(), QString("relu")); // stopped before fc2 runs
    QVERIFY(!session_->run().finished);

    QVERIFY(command(RunCommand::Reset));
    QSignalSpy playing(session_.get(), &DebugSession::playingChanged);
    QSignalSpy said(session_.get(), &DebugSession::message);
    session_->setPlayInterval(10);
    session_->setPlaying(true);
    QVERIFY(session_->playing());
    QTRY_VERIFY_WITH_TIMEOUT(!session_->playing(), 60000);
    QCOMPARE(playing.last().value(0).toBool(), false);
    QCOMPARE(messagesOf(said).last(), QString("Play stopped at the breakpoint before fc2"));
    QCOMPARE(session_->current(), QString("relu"));
    // Play again steps over the breakpoint it stopped at, to the end.
    session_->setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(session_->run().finished, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!session_->playing(), 60000);
}

void TestDebugSession::inputsAreRememberedPerModel() {
    QVERIFY(open("example:tinynet"));
    QVERIFY(session_->applyInputs({"bogus"}, 0).contains("bogus"));
    QVERIFY(settings::inputsFor("example:tinynet").isEmpty());
    QSignalSpy applied(session_.get(), &DebugSession::inputsApplied);
    QCOMPARE(session_->applyInputs({"2x4"}, 7), QString());
    QVERIFY(applied.wait(60000));
    QCOMPARE(applied.last().value(0).toString(), QString("input 2x4, seed 7, applied"));
    QCOMPARE(settings::inputsFor("example:tinynet"), QStringList{"2x4"});
    QCOMPARE(settings::seedFor("example:tinynet"), quint64(7));
    // Opened again without inputs: the remembered ones, with their seed.
    QSignalSpy loaded(session_.get(), &DebugSession::modelLoaded);
    quint64 seed = 0;
    session_->open("example:tinynet", {}, seed);
    QCOMPARE(seed, quint64(7));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(QString::fromStdString(session_->model().inputs.at(0).text()), QString("2x4"));
}

void TestDebugSession::aFailedRunRefusesStepsUntilReset() {
    QVERIFY(open("example:tinynet"));
    QSignalSpy applied(session_.get(), &DebugSession::inputsApplied);
    QCOMPARE(session_->applyInputs({"3x5"}, 0), QString()); // fc1 takes 4 features
    QVERIFY(applied.wait(60000) && settled(*session_));
    QVERIFY(command(RunCommand::RunToEnd));
    QVERIFY(session_->run().failed);
    QCOMPARE(session_->current(), QString("fc1"));
    QCOMPARE(session_->stateText(), QString("failed at fc1"));
    QSignalSpy said(session_.get(), &DebugSession::message);
    session_->runCommand(RunCommand::Step);
    QCOMPARE(messagesOf(said).value(0),
             QString("The run failed at fc1; Reset (Ctrl+Shift+F5) to run again"));
    QVERIFY(command(RunCommand::Reset));
    QVERIFY(!session_->run().failed);
}

// Run ▸ Break on NaN/Inf: Continue stops after `log` (its input finite) with the sentence that
// says so; continuing, the next stop is mul (it came in with log); off again, the run ends.
void TestDebugSession::breakOnNanStopsWhereItIsBorn() {
    QVERIFY(open(QString::fromStdString(fixture("nan_born_scripted.pt"))));
    session_->setBreakOnNonFinite(true);
    QVERIFY(command(RunCommand::RunToEnd));
    QCOMPARE(session_->current(), QString("log"));
    const QString note = QString::fromStdString(session_->run().stopNote);
    QVERIFY2(note.startsWith("Stopped at log: its output holds ") &&
                 note.contains("every input it took was finite, so they were born here") &&
                 note.contains("torch.log(y)"),
             qPrintable(note));
    QVERIFY(!session_->run().finished);
    QVERIFY(command(RunCommand::RunToEnd));
    QCOMPARE(session_->current(), QString("mul"));
    QVERIFY(QString::fromStdString(session_->run().stopNote).contains("came in with log"));
    QVERIFY(command(RunCommand::Reset));
    session_->setBreakOnNonFinite(false);
    QVERIFY(command(RunCommand::RunToEnd));
    QVERIFY(session_->run().finished);
    QVERIFY(session_->run().stopNote.empty());
}

void TestDebugSession::conditionalBreakpointStopsAfterItsNode() {
    QVERIFY(open("example:tinynet"));
    QVERIFY(session_->setBreakpoint("fc1", true, {BreakCondition::Kind::AbsAbove, 0.0}));
    QVERIFY(command(RunCommand::RunToEnd));
    QCOMPARE(session_->current(), QString("fc1")); // after it, not before
    QVERIFY(QString::fromStdString(session_->run().stopNote).contains("above the breakpoint's"));
    // Above a bound no value reaches, it never stops.
    QVERIFY(command(RunCommand::Reset));
    QVERIFY(session_->setBreakpoint("fc1", true, {BreakCondition::Kind::AbsAbove, 1e30}));
    QVERIFY(command(RunCommand::RunToEnd));
    QVERIFY(session_->run().finished);
}

void TestDebugSession::valuesComeOnRequest() {
    QVERIFY(open("example:tinynet"));
    QSignalSpy answers(session_.get(), &DebugSession::valuesReady);
    ValueSliceRequest asked;
    asked.node = "fc1";
    session_->requestValues(asked);
    QVERIFY(answers.wait(60000));
    auto slice = answers.last().value(0).value<std::shared_ptr<const ValueSlice>>();
    QVERIFY(slice->error.find("has not run yet") != std::string::npos);
    QVERIFY(command(RunCommand::RunToEnd));
    asked.index = {0, 0};
    asked.colAxis = 1;
    asked.colCount = 1000; // cut to the value's width
    session_->requestValues(asked);
    QVERIFY(answers.wait(60000));
    slice = answers.last().value(0).value<std::shared_ptr<const ValueSlice>>();
    QVERIFY2(slice->error.empty(), slice->error.c_str());
    QCOMPARE(slice->request.colCount, slice->summary.shape.back());
    QCOMPARE(static_cast<std::int64_t>(slice->reals.size()), slice->request.colCount);
}

// Run ▸ Compare Runs…: the engine runs A afresh and B beside it, answers with the comparison, and
// leaves the run being stepped where it was; what it cannot compare gets a sentence.
void TestDebugSession::comparesInItsEngine() {
    QVERIFY(open(QString::fromStdString(fixture("tinynet_traced.pt"))));
    QVERIFY(command(RunCommand::Step)); // x
    QVERIFY(command(RunCommand::Step)); // fc1
    QSignalSpy ready(session_.get(), &DebugSession::comparisonReady);
    QSignalSpy failed(session_.get(), &DebugSession::comparisonFailed);
    CompareRequest bf16;
    bf16.dtype = "bfloat16";
    session_->compare(bf16);
    QVERIFY(ready.wait(60000));
    auto report = ready.last().value(0).value<std::shared_ptr<const ComparisonReport>>();
    QCOMPARE(report->nodes.size(), std::size_t(5)); // x, fc1, relu, fc2, output
    QCOMPARE(report->nodes.front().node, std::string("x"));
    QCOMPARE(report->nodes.front().dtypeB, std::string("bfloat16"));
    QVERIFY(report->nodes[1].relL2 > 0 && report->nodes[1].relL2 < 0.02);
    QCOMPARE(report->firstDivergence(Metric::RelL2, 1e-3), 0); // the input, cast to bfloat16
    QVERIFY(settled(*session_));
    QCOMPARE(session_->current(), QString("fc1")); // the stepped run is where it was
    QVERIFY(command(RunCommand::Step));
    QCOMPARE(session_->current(), QString("relu"));

    CompareRequest other;
    other.modelB = "/nonexistent/b.pt";
    session_->compare(other);
    QVERIFY(failed.wait(60000));
    QVERIFY2(failed.last().value(0).toString().startsWith("Model B: "),
             qPrintable(failed.last().value(0).toString()));
    CompareRequest device;
    device.device = "cuda";
    session_->compare(device);
    QVERIFY(failed.wait(60000));
    QVERIFY(failed.last().value(0).toString().contains("runs on the CPU"));
}

// The weights are held once per dtype: a comparison of the open model on other inputs runs A and
// B on the weights the engine holds (its file is not read again, so it may be gone), while B in
// bfloat16 needs a copy of its own (a TorchScript module is cast in place), read from the file.
void TestDebugSession::comparesOnTheOpenModelsWeights() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("tinynet.pt");
    QVERIFY(QFile::copy(QString::fromStdString(fixture("tinynet_traced.pt")), copy));
    QVERIFY(open(copy));
    QVERIFY(QFile::remove(copy));
    QSignalSpy ready(session_.get(), &DebugSession::comparisonReady);
    QSignalSpy failed(session_.get(), &DebugSession::comparisonFailed);
    CompareRequest seeded;
    seeded.hasSeedB = true;
    seeded.seedB = 5;
    session_->compare(seeded);
    QVERIFY2(ready.wait(60000),
             failed.isEmpty() ? "" : qPrintable(failed.last().value(0).toString()));
    auto report = ready.last().value(0).value<std::shared_ptr<const ComparisonReport>>();
    QCOMPARE(report->nodes.size(), std::size_t(5));
    QVERIFY(report->nodes.front().relL2 > 0.1); // other inputs: x differs
    CompareRequest bf16;
    bf16.dtype = "bfloat16";
    session_->compare(bf16);
    QVERIFY(failed.wait(60000));
    QVERIFY2(failed.last().value(0).toString().startsWith("Model B: "),
             qPrintable(failed.last().value(0).toString()));
}

int main(int argc, char** argv) {
    QStandardPaths::setTestModeEnabled(true); // remembered inputs go to a test-only place
    QApplication app(argc, argv);
    app.setOrganizationName("fxview-tests");
    TestDebugSession test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_debugsession.moc"
