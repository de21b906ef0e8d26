// The engine process: its wire format carries a graph and a run whole, its confinement holds
// (no writes outside its folder, no network), and every hostile file of issue 13's catalogue
// ends in one sentence from fxtrace with exit code 1, never a signal.

#include "FxText.h"
#include "GraphJson.h"
#include "Interpreter.h"
#include "Model.h"
#include "Tracer.h"

#include <QFile>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "Confinement.h"
#include "EngineProtocol.h"
#include "TestSupport.h"
#include "Wire.h"

namespace {

// Runs `probe` in a child confined to `dir`; returns the child's exit code (its probe's result).
int inConfinedChild(const std::string& dir, const std::function<int()>& probe) {
    pid_t child = fork();
    if (child == 0) {
        fxview::Confinement c = fxview::confineProcess(dir, 0);
        _exit(c.landlocked ? probe() : 99);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

} // namespace

class TestEngine : public QObject {
    Q_OBJECT
private slots:
    void wireCarriesAGraphWhole();
    void wireCarriesARunWhole();
    void wireRefusesBrokenFrames();
    void confinedWritesOnlyItsFolder();
    void confinedHasNoNetwork();
    void hostileFilesGiveOneSentence_data();
    void hostileFilesGiveOneSentence();
    void setstateWritesNothing();
    void endlessLoopStopsAtTheTimeLimit();
    void runawayLoopCostsBoundedMemory();
};

// Every field of every node survives: the printed graph and its JSON are the same after.
void TestEngine::wireCarriesAGraphWhole() {
    for (const char* name : {"resnet18_scripted.pt", "control_flow_scripted.pt", "cond.pt2"}) {
        fxview::LoadResult loaded = fxview::loadModel(fixture(name));
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        fxview::TraceResult traced = fxview::importGraph(*loaded.model);
        QVERIFY2(traced.ok(), traced.error.c_str());
        fxview::OpenedModel sent;
        sent.graph = traced.graph;
        sent.className = "C";
        sent.inputs = {fxview::InputSpec{{2, 3}, "int64", "", false}};
        fxview::OpenedModel got;
        fxview::decode(fxview::encode(sent), got);
        QCOMPARE(fxview::formatGraph(got.graph), fxview::formatGraph(traced.graph));
        QCOMPARE(fxview::graphToJson(got.graph, {name, "C"}),
                 fxview::graphToJson(traced.graph, {name, "C"}));
        QCOMPARE(got.inputs.at(0).text(), std::string("2x3:int64"));
    }
}

// A finished run's records (shapes, statistics, histograms) come across as they were.
void TestEngine::wireCarriesARunWhole() {
    fxview::LoadResult loaded = fxview::loadModel(fixture("tinynet_scripted.pt"));
    QVERIFY(loaded.ok());
    fxview::TraceResult traced = fxview::importGraph(*loaded.model);
    fxview::Interpreter run(loaded.model, traced);
    QVERIFY(run.setInputs({fxview::InputSpec{{3, 4}, "float32", {}, false}}).empty());
    run.runToEnd();
    QVERIFY(run.finished());
    fxview::RunState sent;
    run.graph().forEachNode([&](const fxview::Node& n, int) {
        if (const fxview::NodeRecord* r = run.record(n.name))
            sent.records.emplace(n.name, *r);
    });
    sent.order = run.executionOrder();
    sent.finished = true;
    sent.outputCheck = run.checkOutputs();
    sent.peak = run.peakLive();
    QVERIFY(sent.peak.bytes > 0 && !sent.peak.values.empty());
    fxview::RunState got;
    fxview::decode(fxview::encode(sent), got);
    QCOMPARE(got.order, sent.order);
    QCOMPARE(got.outputCheck.verdict, fxview::OutputCheck::Verdict::Equal);
    auto lookup = [&](const fxview::RunState& s) {
        return [&s](const std::string& n) -> const fxview::NodeRecord* {
            auto it = s.records.find(n);
            return it == s.records.end() ? nullptr : &it->second;
        };
    };
    fxview::JsonRunInfo before{{}, {}, 0, lookup(sent), sent.outputCheck, sent.peak},
        after{{}, {}, 0, lookup(got), got.outputCheck, got.peak};
    QCOMPARE(fxview::graphToJson(run.graph(), {"t", "T"}, &after),
             fxview::graphToJson(run.graph(), {"t", "T"}, &before));
    QVERIFY(!got.records.at("fc1").value.histogram.empty());
}

void TestEngine::wireRefusesBrokenFrames() {
    std::string frame = fxview::encodeFrame(7, std::string(100, 'x'));
    std::string cut = frame.substr(0, 50);
    fxview::Frame taken;
    QVERIFY(!fxview::takeFrame(cut, taken)); // not whole yet: waits for the rest
    std::string alien = "GET / HTTP/1.1\r\n";
    QVERIFY_THROWS_EXCEPTION(fxview::WireError, fxview::takeFrame(alien, taken));
    std::string otherVersion = frame;
    otherVersion[4] = static_cast<char>(fxview::kWireVersion + 1); // a newer peer's
    QVERIFY_THROWS_EXCEPTION(fxview::WireError, fxview::takeFrame(otherVersion, taken));
    fxview::RunState state;
    // A length past the payload's end is refused, not allocated.
    QVERIFY_THROWS_EXCEPTION(fxview::WireError, fxview::decode(std::string(8, '\xff'), state));
    // A length the payload could hold, of items much bigger than their bytes: 4 MB claiming
    // 4 million nodes (a Node is hundreds of bytes; made all at once, 2 GB) is read item by item
    // and refused when the bytes run out, having made only what they held.
    std::string lie(4u << 20, '\0');
    const std::uint32_t claimed = (4u << 20) - 64; // no more than the bytes left
    std::memcpy(&lie[4], &claimed, 4); // PathState: graph's modelClass "", then its node count
    struct rusage before {
    }, after{};
    getrusage(RUSAGE_SELF, &before);
    fxview::PathState path;
    QVERIFY_THROWS_EXCEPTION(fxview::WireError, fxview::decode(lie, path));
    getrusage(RUSAGE_SELF, &after);
    QVERIFY2(after.ru_maxrss - before.ru_maxrss < 200 * 1024, // KB
             qPrintable(QString("peak grew %1 KB").arg(after.ru_maxrss - before.ru_maxrss)));
}

void TestEngine::confinedWritesOnlyItsFolder() {
    std::string dir = fxview::makeEngineTempDir();
    QVERIFY(!dir.empty());
    std::string outside = std::string(FXVIEW_FIXTURE_DIR) + "/confinement_probe.txt";
    QFile::remove(QString::fromStdString(outside));
    int code = inConfinedChild(dir, [&] {
        int in = open((dir + "/inside.txt").c_str(), O_CREAT | O_WRONLY, 0600);
        if (in < 0 || write(in, "ok", 2) != 2)
            return 1;
        close(in);
        int out = open(outside.c_str(), O_CREAT | O_WRONLY, 0600);
        if (out >= 0 || errno != EACCES)
            return 2;
        // An existing file outside cannot be opened for writing either; reading works.
        if (open(FXVIEW_FIXTURE_DIR "/stamp.json", O_WRONLY) >= 0 || errno != EACCES)
            return 3;
        if (open(FXVIEW_FIXTURE_DIR "/stamp.json", O_RDONLY) < 0)
            return 4;
        return 0;
    });
    QCOMPARE(code, 0);
    QVERIFY(QFile::exists(QString::fromStdString(dir + "/inside.txt")));
    QVERIFY(!QFile::exists(QString::fromStdString(outside)));
    fxview::removeTree(dir);
}

// The socket a model's code might open: TCP connect and bind refused by Landlock, any other
// family than unix by seccomp; a listener of this process on loopback is there to be reached.
void TestEngine::confinedHasNoNetwork() {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    QCOMPARE(listen(listener, 1), 0);
    socklen_t size = sizeof address;
    getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size);
    int before = socket(AF_INET, SOCK_STREAM, 0); // made before: only connect() can be refused
    std::string dir = fxview::makeEngineTempDir();
    int code = inConfinedChild(dir, [&] {
        if (::connect(before, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ||
            errno != EACCES)
            return 1;
        if (socket(AF_INET, SOCK_STREAM, 0) >= 0 || errno != EACCES)
            return 2;
        if (socket(AF_INET6, SOCK_DGRAM, 0) >= 0 || errno != EACCES)
            return 3;
        if (socket(AF_UNIX, SOCK_STREAM, 0) < 0) // the engine's own kind stays usable
            return 4;
        return 0;
    });
    QCOMPARE(code, 0);
    // The same connect from an unconfined process works: the refusal is the confinement's.
    QCOMPARE(::connect(before, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    close(before);
    close(listener);
    fxview::removeTree(dir);
}

void TestEngine::hostileFilesGiveOneSentence_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("sentence");
    QTest::newRow("forward allocates 30 GB")
        << "alloc_30gb.pt"
        << "DefaultCPUAllocator: can't allocate memory: you tried to allocate 32212254720 bytes.";
    QTest::newRow("forward raises")
        << "raises.pt"
        << "Node 'raise_exception' (call_function prim::RaiseException) failed: ValueError: this "
           "model raises on purpose.";
    QTest::newRow("resnet18 with a weight cut to 64 bytes")
        << "resnet18_cut_weight.pt"
        << "its tensor storage archive/data/0 holds 64 bytes but its tensor needs 37632";
}

void TestEngine::hostileFilesGiveOneSentence() {
    QFETCH(QString, file);
    QFETCH(QString, sentence);
    // A cap below 30 GB whatever the machine's RAM (the default is half of it).
    FxtraceRun run = fxtrace(
        {"run", QString::fromStdString(fixture(file.toStdString())), "--memory-limit", "8G"});
    QVERIFY2(!run.crashed, qPrintable(run.err));
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(sentence), qPrintable(run.err));
    if (file == "alloc_30gb.pt") // named by the node, whatever LibTorch's own words around it
        QVERIFY2(run.err.contains("Node 'ones' (call_function torch.ones) failed: "),
                 qPrintable(run.err));
    if (file == "alloc_30gb.pt") // the cap, and how to raise it
        QVERIFY2(run.err.contains("a model that needs more can have a higher --memory-limit"),
                 qPrintable(run.err));
}

// Its __setstate__ runs torch.save(torch.ones(3), FIXTURES/PWNED.pt) while LibTorch loads it.
void TestEngine::setstateWritesNothing() {
    const QString pwned = QString::fromStdString(fixture("PWNED.pt"));
    const QString model = QString::fromStdString(fixture("setstate_writes.pt"));
    QFile::remove(pwned);
    FxtraceRun confined = fxtrace({"graph", model});
    QCOMPARE(confined.exitCode, 0);
    QVERIFY2(!QFile::exists(pwned), "the confined engine let __setstate__ write");
    // The check can fail: unconfined (--in-process), the same file does write.
    FxtraceRun unconfined = fxtrace({"graph", model, "--in-process"});
    QCOMPARE(unconfined.exitCode, 0);
    QVERIFY(QFile::exists(pwned));
    QFile::remove(pwned);
}

void TestEngine::endlessLoopStopsAtTheTimeLimit() {
    FxtraceRun run =
        fxtrace({"run", QString::fromStdString(fixture("endless_loop.pt")), "--time-limit", "2"});
    QVERIFY(!run.crashed);
    QCOMPARE(run.exitCode, 1);
    // Ended by the limit (2.8 s measured), not by the test's own 120 s timeout: a loaded machine's
    // LibTorch start-up must not make it fail.
    QVERIFY2(run.seconds < 10 * timeScale(), qPrintable(QString::number(run.seconds)));
    QVERIFY2(run.err.contains("endless_loop.pt was stopped while running node `"),
             qPrintable(run.err));
    QVERIFY2(run.err.contains("it ran longer than --time-limit 2 s"), qPrintable(run.err));
}

// 250,000 nodes of a loop that never ends, then a Pause (the before-node hook saying stop): the
// execution order keeps its first and latest entries, bounded; each node's record its count.
void TestEngine::runawayLoopCostsBoundedMemory() {
    fxview::LoadResult loaded = fxview::loadModel(fixture("endless_loop.pt"));
    QVERIFY(loaded.ok());
    fxview::TraceResult traced = fxview::importGraph(*loaded.model);
    QVERIFY(traced.ok());
    fxview::Interpreter run(loaded.model, traced);
    QVERIFY(run.setInputs({fxview::InputSpec{{1, 4}, "float32", {}, false}}).empty());
    int nodes = 0;
    run.setBeforeNode([&](const std::string&) { return ++nodes <= 250000; });
    QCOMPARE(run.runToEnd(), fxview::StopReason::Stepped);
    QVERIFY(!run.finished() && !run.failed());
    const std::vector<std::string>& order = run.executionOrder();
    QVERIFY2(order.size() <= 200000, std::to_string(order.size()).c_str());
    QCOMPARE(order.front(), std::string("x"));
    QCOMPARE(order.back(), run.lastNode());
    const fxview::NodeRecord* mul = run.record("mul");
    QVERIFY(mul);
    QVERIFY2(mul->runs > 80000, std::to_string(mul->runs).c_str());
}

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
