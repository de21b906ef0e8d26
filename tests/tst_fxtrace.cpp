// fxtrace as a person runs it: its output, its exit codes, and that bad input never crashes it.

#include <QProcess>

#include "TestSupport.h"

namespace {

struct Run {
    int exitCode = -1;
    bool crashed = false;
    QString out;
    QString err;
};

Run fxtrace(const QStringList& arguments) {
    QProcess process;
    process.start(FXTRACE_PATH, arguments);
    process.waitForFinished(120000);
    Run run;
    run.crashed = process.exitStatus() != QProcess::NormalExit;
    run.exitCode = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

} // namespace

class TestFxtrace : public QObject {
    Q_OBJECT
private slots:
    void graphOfTinyNet();
    void nodesOfTinyNet();
    void jsonToFile();
    void badFilesExitOne_data();
    void badFilesExitOne();
    void badUsageExitsTwo_data();
    void badUsageExitsTwo();
    void help();
};

void TestFxtrace::graphOfTinyNet() {
    Run run = fxtrace({"graph", "example:tinynet"});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(
        run.out,
        QString("graph():\n"
                "    %x : [#users=1] = placeholder[target=x]\n"
                "    %fc1 : [#users=1] = call_module[target=fc1](args = (%x,), kwargs = {})\n"
                "    %relu : [#users=1] = call_function[target=torch.relu](args = (%fc1,), kwargs "
                "= {})\n"
                "    %fc2 : [#users=1] = call_module[target=fc2](args = (%relu,), kwargs = {})\n"
                "    return fc2\n"));
}

void TestFxtrace::nodesOfTinyNet() {
    Run run = fxtrace({"nodes", QString::fromStdString(fixture("tinynet_traced.pt"))});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QString("placeholder x\ncall_module fc1\ncall_function relu\n"
                              "call_module fc2\noutput output\nNode count: 5\n"));
}

void TestFxtrace::jsonToFile() {
    QTemporaryDir dir;
    QString path = dir.filePath("tinynet.json");
    Run run = fxtrace({"json", "example:tinynet", "-o", path});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.isEmpty());
    QByteArray json = readFile(path.toStdString());
    QVERIFY(json.startsWith("{\"format\": \"fxview.graph\", \"version\": 1"));
}

void TestFxtrace::badFilesExitOne_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("phrase");
    QTest::newRow("state_dict") << "state_dict.pt"
                                << "this is a state_dict, not a TorchScript model";
    QTest::newRow("truncated") << "truncated.pt"
                               << "truncated or damaged";
    QTest::newRow("empty") << "empty.pt"
                           << "the file is empty";
    QTest::newRow("missing") << "missing.pt"
                             << "there is no such file";
}

void TestFxtrace::badFilesExitOne() {
    QFETCH(QString, file);
    QFETCH(QString, phrase);
    Run run = fxtrace({"graph", QString::fromStdString(fixture(file.toStdString()))});
    QVERIFY(!run.crashed);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(phrase), qPrintable(run.err));
    QCOMPARE(run.err.count('\n'), 1); // one sentence, no backtrace
    QVERIFY(run.out.isEmpty());
}

void TestFxtrace::badUsageExitsTwo_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("nothing") << QStringList{};
    QTest::newRow("unknown command") << QStringList{"draw", "example:tinynet"};
    QTest::newRow("no model") << QStringList{"graph"};
    QTest::newRow("unknown option") << QStringList{"graph", "example:tinynet", "--fast"};
    QTest::newRow("-o without file") << QStringList{"json", "example:tinynet", "-o"};
}

void TestFxtrace::badUsageExitsTwo() {
    QFETCH(QStringList, arguments);
    Run run = fxtrace(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.startsWith("fxtrace: "));
}

void TestFxtrace::help() {
    Run run = fxtrace({"--help"});
    QCOMPARE(run.exitCode, 0);
    for (const char* word : {"graph", "nodes", "json", "example:tinynet", "example:branchy",
                             "example:smallcnn", "Exit codes"})
        QVERIFY2(run.out.contains(word), word);
    Run commandHelp = fxtrace({"json", "--help"});
    QCOMPARE(commandHelp.exitCode, 0);
    QVERIFY(commandHelp.out.contains("-o, --output FILE"));
}

QTEST_APPLESS_MAIN(TestFxtrace)
#include "tst_fxtrace.moc"
