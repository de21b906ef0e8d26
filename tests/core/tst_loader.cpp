// Every kind of file that is not a TorchScript model gets one clear sentence, never a crash.

#include <QTemporaryDir>

#include <QDir>
#include <QElapsedTimer>

#include "ArchiveCheck.h"
#include "BuiltInOperatorSchemas.h"
#include "Importer.h"
#include "OpLibraries.h"
#include "QuantizedDecomposed.h"
#include "StorageCheck.h"
#include "TestSupport.h"
#include "TorchOperatorSchema.h"
#include "ZipArchive.h"

using namespace fxview;

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void rejects_data();
    void rejects();
    void loadsTorchScript_data();
    void loadsTorchScript();
    void examples();
    void storagesAreScannedFromThePickle();
    void hostilePicklesEndTheScanQuickly();
    void wholeArchivesPassTheStorageCheck();
    void unknownExample();
    void operatorSchemaTableIsLibTorchs();
    void schemaTableLinesRoundTrip();
};

void TestLoader::rejects_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected"); // a phrase the sentence must contain
    QTest::newRow("missing") << "no_such_model.pt"
                             << "there is no such file";
    QTest::newRow("directory") << ""
                               << "it is a directory";
    QTest::newRow("empty") << "empty.pt"
                           << "the file is empty (0 bytes)";
    QTest::newRow("truncated") << "truncated.pt"
                               << "the archive is truncated or damaged";
    QTest::newRow("state_dict") << "state_dict.pt"
                                << "this is a state_dict, the weights without the model's code; "
                                   "load it into the model in Python, then export the model with "
                                   "torch.export.save(";
    QTest::newRow("pickled module")
        << "pickled_module.pt"
        << "is a whole nn.Module (__main__.TinyNet) pickled by torch.save";
    QTest::newRow("not a zip") << "not_a_zip.pt"
                               << "not even a zip file";
    QTest::newRow("foreign zip") << "zip_not_torchscript.zip"
                                 << "zip file but not a PyTorch archive";
    // What a newer PyTorch's archive looks like: the op and the format version are named, with
    // the LibTorch fxview runs on.
    QTest::newRow("unknown op") << "unknown_op.pt"
                                << "its code calls aten::relx, an op that LibTorch 2.";
    QTest::newRow("future format") << "future_version.pt"
                                   << "file format version 99, and LibTorch 2.";
}

void TestLoader::rejects() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    std::string path = fixture(file.toStdString());
    LoadResult result = loadModel(path);
    QVERIFY(!result.ok());
    QString error = QString::fromStdString(result.error);
    QVERIFY2(error.contains(expected), qPrintable(error));
    // One sentence naming the file: no backtrace, no second line.
    QVERIFY2(error.contains(QString::fromStdString(path)), qPrintable(error));
    QVERIFY2(!error.contains('\n'), qPrintable(error));
    QVERIFY(error.endsWith('.'));
}

void TestLoader::loadsTorchScript_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("className");
    QTest::newRow("tinynet scripted") << "tinynet_scripted.pt"
                                      << "__torch__.TinyNet";
    QTest::newRow("tinynet traced") << "tinynet_traced.pt"
                                    << "TinyNet";
    QTest::newRow("resnet18 scripted") << "resnet18_scripted.pt"
                                       << "ResNet";
    QTest::newRow("mobilenet_v2 traced") << "mobilenet_v2_traced.pt"
                                         << "MobileNetV2";
}

void TestLoader::loadsTorchScript() {
    QFETCH(QString, file);
    QFETCH(QString, className);
    LoadResult result = loadModel(fixture(file.toStdString()));
    QVERIFY2(result.ok(), result.error.c_str());
    QVERIFY(QString::fromStdString(result.model->className()).endsWith(className));
}

// TinyNet's data.pkl names its four storages with their element counts, as torch.jit.save wrote
// them (fc1.weight 8x4, fc1.bias 8, fc2.weight 2x8, fc2.bias 2).
void TestLoader::storagesAreScannedFromThePickle() {
    ZipArchive zip;
    std::string why;
    QVERIFY(zip.open(fixture("tinynet_scripted.pt"), why));
    std::vector<StorageRef> found = storagesIn(*zip.read(*zip.find("archive/data.pkl")));
    QCOMPARE(found.size(), std::size_t(4));
    std::map<std::string, std::uint64_t> numel;
    for (const StorageRef& s : found) {
        QCOMPARE(s.type, std::string("torch.FloatStorage"));
        numel[s.key] = s.numel;
    }
    QCOMPARE(numel["0"], std::uint64_t(32));
    QCOMPARE(numel["1"], std::uint64_t(8));
    QCOMPARE(numel["2"], std::uint64_t(16));
    QCOMPARE(numel["3"], std::uint64_t(2));
    QCOMPARE(checkStorages(zip), std::string());
}

// Pickles made to crash or stall the scan (it runs before LibTorch on every archive): a tuple
// nested 2 million deep (its destructor recursed), a memo copied into itself 40 times (doubling
// each time), an 8-byte length that wrapped the read position back to the start, and a mark
// with 200,000 items (popped one insert at a time). Each ends at once, finding nothing; the real
// persistent id after the nesting is still found.
void TestLoader::hostilePicklesEndTheScanQuickly() {
    using namespace std::string_literals; // the opcodes hold NUL bytes
    const std::string id =
        "(X\x07\0\0\0storagectorch\nFloatStorage\nX\x01\0\0\0"s + "0" + "X\x03\0\0\0cpuK\x05tQ"s;
    std::string nested = ")" + std::string(2'000'000, '\x85') + id + ".";
    std::string memo = "N\x94";
    for (int i = 0; i < 40; ++i)
        memo += "h" + std::string(1, static_cast<char>(i)) + "h" +
                std::string(1, static_cast<char>(i)) + "\x86\x94";
    std::string wrap = "\x8d" + std::string("\xf7\xff\xff\xff\xff\xff\xff\xff", 8) + "abc";
    std::string wide = "(" + std::string(200'000, 'N') + "t.";
    QElapsedTimer timer;
    timer.start();
    std::vector<StorageRef> found = storagesIn(nested);
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found[0].numel, std::uint64_t(5));
    QVERIFY(storagesIn(memo).empty());
    QVERIFY(storagesIn(wrap).empty());
    QVERIFY(storagesIn(wide).empty());
    QVERIFY2(timer.elapsed() < 5000 * timeScale(), qPrintable(QString::number(timer.elapsed())));
}

// No false alarm: every TorchScript fixture PyTorch 2.6 wrote (torchvision's models scripted and
// traced among them, vit_b_16's 344 MB) passes.
void TestLoader::wholeArchivesPassTheStorageCheck() {
    int checked = 0;
    for (const QString& name :
         QDir(QString::fromStdString(fixture(""))).entryList({"*_scripted.pt", "*_traced.pt"})) {
        ArchiveCheck check = checkArchive(fixture(name.toStdString()));
        QVERIFY2(check.kind == ArchiveKind::TorchScript,
                 qPrintable(name + ": " + QString::fromStdString(check.detail)));
        ++checked;
    }
    QVERIFY2(checked > 20, qPrintable(QString::number(checked)));
}

void TestLoader::examples() {
    for (const char* name : {"example:tinynet", "example:branchy", "example:smallcnn"}) {
        LoadResult result = loadModel(name);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.model->source(), std::string(name));
    }
}

void TestLoader::unknownExample() {
    LoadResult result = loadModel("example:nope");
    QVERIFY(!result.ok());
    QCOMPARE(result.error, std::string("There is no built-in model called 'example:nope'; the "
                                       "examples are example:tinynet, example:branchy, "
                                       "example:smallcnn."));
}

// The table the window places a .pt2 call's arguments with, made at build time, holds what this
// LibTorch (with fxview's native ops and torchvision's and torchaudio's libraries, as the engine
// has them) registers:
// every schema, and nothing else.
void TestLoader::operatorSchemaTableIsLibTorchs() {
    registerQuantizedDecomposedOps();
    loadPackagedOpLibrary("torchvision");
    loadPackagedOpLibrary("torchaudio");
    const std::string table = registeredOperatorSchemaTable();
    std::size_t lines = 0;
    for (std::size_t at = 0; at < table.size(); ++lines) {
        std::size_t end = table.find('\n', at);
        const std::string line = table.substr(at, end - at);
        at = end + 1;
        std::optional<OperatorSchema> schema = parseSchemaTableLine(line);
        QVERIFY2(schema, line.c_str());
        const OperatorSchema* builtIn = builtInOperatorSchema(schema->qualifiedName());
        QVERIFY2(builtIn, qPrintable(QString::fromStdString(line) + " is not in the table"));
        QVERIFY2(*builtIn == *schema,
                 qPrintable(QString::fromStdString(schemaTableLine(*builtIn) + " != " + line)));
    }
    QCOMPARE(builtInOperatorSchemaCount(), lines);
    QVERIFY2(lines > 2000, qPrintable(QString("only %1 operators").arg(lines)));
    const OperatorSchema* add = builtInOperatorSchema("aten::add.Tensor");
    QVERIFY(add);
    QCOMPARE(schemaTableLine(*add), std::string("aten::add.Tensor self other *alpha= ->1"));
    QVERIFY(builtInOperatorSchema("torchvision::nms"));
    QVERIFY(!builtInOperatorSchema("aten::relx"));
}

void TestLoader::schemaTableLinesRoundTrip() {
    for (const char* line : {"aten::relu self ->1", "aten::split.Tensor self split_size dim= ->1",
                             "prim::Uninitialized ->1", "aten::_foo.out *out self ->0"}) {
        std::optional<OperatorSchema> schema = parseSchemaTableLine(line);
        QVERIFY2(schema, line);
        QCOMPARE(schemaTableLine(*schema), std::string(line));
    }
    for (const char* line : {"", "aten::relu", "relu self ->1", "aten::relu self ->x",
                             "aten::relu * ->1", "aten::relu self ->-1", "::relu ->1"})
        QVERIFY2(!parseSchemaTableLine(line), line);
}

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"
