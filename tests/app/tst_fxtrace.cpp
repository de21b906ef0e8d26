// fxtrace as a person runs it: its output, its exit codes, and that bad input never crashes it.

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <set>

#include "TestSupport.h"

namespace {

// The .pt2 layout the fixtures' PyTorch writes: the legacy zip (2.6), or a PT2 archive (2.8 on,
// sid's 2.14), whose program is models/model.json and whose weights a config describes.
bool legacyExportLayout() {
    return readFile(fixture("linear.pt2")).contains("serialized_exported_program.json");
}

QString programMember() {
    return legacyExportLayout() ? "serialized_exported_program.json" : "models/model.json";
}

} // namespace

class TestFxtrace : public QObject {
    Q_OBJECT
private slots:
    void graphOfTinyNet_data();
    void graphOfTinyNet();
    void versionNamesTheLibraries();
    void outputThatDiffersExitsOne();
    void savedOutputsLoadInPython();
    void nodesOfTinyNet();
    void jsonToFile();
    void badFilesExitOne_data();
    void badFilesExitOne();
    void badUsageExitsTwo_data();
    void badUsageExitsTwo();
    void help();
    void runTinyNet();
    void runWrongInputFailsAtFc1();
    void runGuessesAndSaysSo();
    void jsonWithInputHasMeta();
    void exportSvgHasNodeNamesAsText();
    void exportPngOfTheSizeAsked();
    void exportPdfIsOnePage();
    void exportDotIsReadByGraphviz();
    void exportJson();
    void exportResnetRunShowsEveryShape();
    void exportRefusesHugePng();
    void exportDepthDrawsTheLayersAsBoxes();
    void exportExpandOpensOneScope();
    void exportDepthOfAnExportedProgram();
    void exportedGraphPrintsLikePyTorch_data();
    void exportedGraphPrintsLikePyTorch();
    void exportedRunEqualsItsModule_data();
    void exportedRunEqualsItsModule();
    void exportedDefaultsToItsExampleInput();
    void exportedJsonKeepsTheSignature();
    void exportedGraphNeedsNoWeights_data();
    void exportedGraphNeedsNoWeights();
    void exportedInputOutsideItsRangeIsRefused_data();
    void exportedInputOutsideItsRangeIsRefused();
};

void TestFxtrace::graphOfTinyNet_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("example") << "example:tinynet";
    QTest::newRow("scripted by 2.6") << QString::fromStdString(fixture("tinynet_scripted.pt"));
    QTest::newRow("traced by 2.6") << QString::fromStdString(fixture("tinynet_traced.pt"));
}

void TestFxtrace::graphOfTinyNet() {
    QFETCH(QString, source);
    FxtraceRun run = fxtrace({"graph", source});
    QCOMPARE(run.exitCode, 0);
    // Byte for byte what print(torch.fx.symbolic_trace(TinyNet()).graph) printed in the generator.
    QJsonObject fx = QJsonDocument::fromJson(readFile(fixture("tinynet.fx.json"))).object();
    QCOMPARE(run.out, fx["graph_text"].toString() + "\n");
    QVERIFY(run.out.contains("%fc1 : [num_users=1] = call_module[target=fc1]"));
}

void TestFxtrace::versionNamesTheLibraries() {
    FxtraceRun run = fxtrace({"--version"});
    QCOMPARE(run.exitCode, 0);
    QRegularExpression line(
        R"(^fxtrace \d+\.\d+\.\d+ \(LibTorch (\d+)\.(\d+)[.\d]*, Qt 6\.[.\d]+, )"
        R"(Graphviz \d+\.[.\d]+\)\n$)");
    QRegularExpressionMatch match = line.match(run.out);
    QVERIFY2(match.hasMatch(), qPrintable(run.out));
    // The LibTorch the tests compare against is PyTorch 2.6's (the fixtures' stamp says so).
    QJsonObject stamp = QJsonDocument::fromJson(readFile(fixture("stamp.json"))).object();
    QVERIFY(stamp["torch"].toString().startsWith(match.captured(1) + "." + match.captured(2)));
    QVERIFY(match.captured(1).toInt() >= 2);
}

// The difference is injected (see Interpreter::checkOutputs): fxtrace must not end well on it.
void TestFxtrace::outputThatDiffersExitsOne() {
    qputenv("FXVIEW_TEST_OUTPUTS_DIFFER", "1");
    FxtraceRun run = fxtrace({"run", "example:tinynet", "--input", "3x4"});
    qunsetenv("FXVIEW_TEST_OUTPUTS_DIFFER");
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.endsWith("Outputs equal: False\n"));
    QVERIFY2(run.err.contains("differs from the model's own forward"), qPrintable(run.err));
    FxtraceRun honest = fxtrace({"run", "example:tinynet", "--input", "3x4"});
    QCOMPARE(honest.exitCode, 0);
    QVERIFY(honest.out.endsWith("Outputs equal: True\n"));
}

// --save-outputs writes what torch.load reads: here a (tensor, str) tuple, compared in PyTorch
// 2.6 with the scripted module's own forward on the same input (torch.randn after seed 0).
void TestFxtrace::savedOutputsLoadInPython() {
    QTemporaryDir dir;
    QString saved = dir.filePath("out.pt");
    QString model = QString::fromStdString(fixture("printing_rules_scripted.pt"));
    FxtraceRun run = fxtrace({"run", model, "--input", "3x4", "--save-outputs", saved});
    QCOMPARE(run.exitCode, 0);
    QProcess python;
    python.start(FXVIEW_PYTHON_PATH,
                 {"-W", "ignore::FutureWarning", // 3.14's torch.jit.load says it may break
                  "-c",
                  "import sys, torch\n"
                  "out = torch.load(sys.argv[1])\n"
                  "torch.manual_seed(0)\n"
                  "ref = torch.jit.load(sys.argv[2])(torch.randn(3, 4))\n"
                  "assert isinstance(out, tuple) and len(out) == 2, out\n"
                  "assert torch.equal(out[0], ref[0]) and out[1] == ref[1] == 'done'\n"
                  "print('equal')\n",
                  saved, model});
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardError()), QString());
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()), QString("equal\n"));
    FxtraceRun nowhere =
        fxtrace({"run", model, "--input", "3x4", "--save-outputs", "/no/such/dir/o.pt"});
    QCOMPARE(nowhere.exitCode, 1);
    QVERIFY2(nowhere.err.contains("Cannot write '/no/such/dir/o.pt'"), qPrintable(nowhere.err));
}

void TestFxtrace::nodesOfTinyNet() {
    FxtraceRun run = fxtrace({"nodes", QString::fromStdString(fixture("tinynet_traced.pt"))});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QString("placeholder x\ncall_module fc1\ncall_function relu\n"
                              "call_module fc2\noutput output\nNode count: 5\n"));
}

void TestFxtrace::jsonToFile() {
    QTemporaryDir dir;
    QString path = dir.filePath("tinynet.json");
    FxtraceRun run = fxtrace({"json", "example:tinynet", "-o", path});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.isEmpty());
    QByteArray json = readFile(path.toStdString());
    QVERIFY(json.startsWith("{\"format\": \"fxview.graph\", \"version\": 1"));
}

void TestFxtrace::badFilesExitOne_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("phrase");
    QTest::newRow("state_dict") << "state_dict.pt"
                                << "this is a state_dict, the weights without the model";
    QTest::newRow("truncated") << "truncated.pt"
                               << "truncated or damaged";
    QTest::newRow("empty") << "empty.pt"
                           << "the file is empty";
    QTest::newRow("missing") << "missing.pt"
                             << "there is no such file";
    QTest::newRow("a weight's record cut short")
        << "cut_weight.pt"
        << "its tensor storage archive/data/0 holds 64 bytes but its tensor needs 128 (32 × 4); "
           "the archive is damaged, so LibTorch is not asked to read it; copy or save it again.";
    QTest::newRow("a storage of 2**62 floats")
        << "huge_storage.pt"
        << "its tensor storage archive/data/0 declares 4611686018427387904 elements of 4 bytes, "
           "more than the whole file holds";
    QTest::newRow("a member declaring 4 GB") << "zip_bomb.pt"
                                             << "declares 4294967280 bytes in a file of";
    QTest::newRow(".pt2 without weights")
        << "missing_weights.pt2"
        << (legacyExportLayout() ? "it lacks serialized_state_dict.pt"
                                 : "it lacks data/weights/model_weights_config.json");
    if (!legacyExportLayout()) // the weights' own table, read when the archive opens
        QTest::newRow(".pt2 whose weights config is damaged")
            << "damaged_weights.pt2"
            << "its archive/data/weights/model_weights_config.json is not a payload config";
    QTest::newRow(".pt2 cut in half") << "truncated.pt2"
                                      << "the archive is truncated or damaged";
    QTest::newRow(".pt2 of a newer schema")
        << "future_schema.pt2"
        << "it was written by PyTorch 2.9.0's exporter, schema 9.0, and this fxview reads schema "
           "8.x (PyTorch 2.6 to 2.14, which writes 8.20): open it with an fxview that reads "
           "schema 9 or export it again with PyTorch 2.14.";
    // Issue 23's attacks on the readers before LibTorch: each ends at once with the file's fault
    // (the scan ran out of memory, rescanned for hours, read past a map, overflowed the stack,
    // converted 1e300 to an int).
    QTest::newRow("a pickle doubling a name 40 times")
        << "dup_global.pt"
        << "could not load this TorchScript archive (Unknown opcode";
    QTest::newRow("a zip listing data.pkl 2,000 times")
        << "repeated_entries.pt"
        << "the archive is truncated or damaged (its zip directory lists archive/data.pkl more "
           "than once); copy or save it again.";
    QTest::newRow("an empty input spec")
        << "empty_spec.pt2"
        << "its " + programMember() + " has {} where one of schema.py's kinds belongs.";
    QTest::newRow("a schema version of 1e300")
        << "huge_major.pt2"
        << "its " + programMember() + " has 1e+300 where a whole number belongs.";
    QTest::newRow("subgraphs nested 10,000 deep")
        << "deep_graph.pt2"
        << "its " + programMember() +
               " nests JSON values more than 256 deep (at "
               "graph_module.graph.nodes[0].inputs[0].arg.as_graph.graph";
}

void TestFxtrace::badFilesExitOne() {
    QFETCH(QString, file);
    QFETCH(QString, phrase);
    // Within limits a reader must never need: the sentence is the file's, not the time's.
    FxtraceRun run = fxtrace({"graph", QString::fromStdString(fixture(file.toStdString())),
                              "--time-limit", "30", "--memory-limit", "4G"});
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
    FxtraceRun run = fxtrace(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.startsWith("fxtrace: "));
}

void TestFxtrace::help() {
    FxtraceRun run = fxtrace({"--help"});
    QCOMPARE(run.exitCode, 0);
    for (const char* word : {"graph", "nodes", "json", "example:tinynet", "example:branchy",
                             "example:smallcnn", "Exit codes"})
        QVERIFY2(run.out.contains(word), word);
    FxtraceRun commandHelp = fxtrace({"json", "--help"});
    QCOMPARE(commandHelp.exitCode, 0);
    QVERIFY(commandHelp.out.contains("-o, --output FILE"));
}

void TestFxtrace::runTinyNet() {
    FxtraceRun run = fxtrace({"run", "example:tinynet", "--input", "3x4"});
    QCOMPARE(run.exitCode, 0);
    QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 7); // header, five nodes, verdict
    QVERIFY(lines[0].startsWith("name"));
    QString fc2 = lines[4];
    QVERIFY2(fc2.startsWith("fc2 ") && fc2.contains("call_module") && fc2.contains("[3, 2]") &&
                 fc2.contains("float32"),
             qPrintable(fc2));
    QCOMPARE(lines.last(), QString("Outputs equal: True"));
}

void TestFxtrace::runWrongInputFailsAtFc1() {
    FxtraceRun run = fxtrace({"run", "example:tinynet", "--input", "3x5"});
    QVERIFY(!run.crashed);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("Node 'fc1'") && run.err.contains("[3, 5]") &&
                 run.err.contains("(3x5 and 4x8)"),
             qPrintable(run.err));
    QVERIFY(run.out.contains("FAILED"));
}

void TestFxtrace::runGuessesAndSaysSo() {
    FxtraceRun run = fxtrace({"run", "example:branchy", "--trace-path"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("input x: 1x4, guessed from fc (torch.nn.Linear, weight [4, 4])"),
             qPrintable(run.err));
    QVERIFY(run.out.contains("Executed path:\ngraph():"));
    QVERIFY(run.out.contains("%tanh_2 : [num_users=1] = call_function[target=torch.tanh]"));
    QVERIFY(run.out.contains("not executed"));
}

void TestFxtrace::jsonWithInputHasMeta() {
    FxtraceRun run = fxtrace({"json", "example:tinynet", "--input", "3x4", "--seed", "0"});
    QCOMPARE(run.exitCode, 0);
    QJsonObject root = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(root["input"].toArray()[0].toObject()["shape"].toArray().size(), 2);
    QJsonObject fc2 = root["nodes"].toArray()[3].toObject();
    QCOMPARE(fc2["name"].toString(), QString("fc2"));
    QJsonObject meta = fc2["meta"].toObject();
    QCOMPARE(meta["executed"].toBool(), true);
    QJsonObject value = meta["value"].toObject();
    QCOMPARE(value["shape"].toArray(), (QJsonArray{3, 2}));
    QCOMPARE(value["dtype"].toString(), QString("float32"));
    QCOMPARE(value["stride"].toArray(), (QJsonArray{2, 1}));
    QVERIFY(value["stats"].toObject().contains("std"));
}

void TestFxtrace::exportSvgHasNodeNamesAsText() {
    QTemporaryDir dir;
    QString path = dir.filePath("g.svg");
    FxtraceRun run = fxtrace({"export", "example:tinynet", "-o", path});
    QCOMPARE(run.exitCode, 0);
    QString svg = QString::fromUtf8(readFile(path.toStdString()));
    QVERIFY(svg.startsWith("<?xml"));
    for (const char* name : {"x", "fc1", "relu", "fc2", "output"}) {
        QRegularExpression text(QString("<text[^>]*>\\s*%1\\s*</text>").arg(name));
        QVERIFY2(text.match(svg).hasMatch(), name);
    }
}

void TestFxtrace::exportPngOfTheSizeAsked() {
    QTemporaryDir dir;
    QString one = dir.filePath("one.png"), three = dir.filePath("three.png");
    QCOMPARE(fxtrace({"export", "example:tinynet", "-o", one, "--scale", "1"}).exitCode, 0);
    QCOMPARE(fxtrace({"export", "example:tinynet", "-o", three, "--scale", "3"}).exitCode, 0);
    QImage small(one), big(three);
    QVERIFY(!small.isNull() && !big.isNull());
    QVERIFY(small.width() > 100 && small.height() > 300); // five boxes top to bottom
    QVERIFY(std::abs(big.width() - 3 * small.width()) <= 3);
    QVERIFY(std::abs(big.height() - 3 * small.height()) <= 3);
}

void TestFxtrace::exportPdfIsOnePage() {
    QTemporaryDir dir;
    QString path = dir.filePath("g.pdf");
    QCOMPARE(fxtrace({"export", "example:smallcnn", "-o", path}).exitCode, 0);
    QByteArray pdf = readFile(path.toStdString());
    QVERIFY(pdf.startsWith("%PDF-"));
    QCOMPARE(QString::fromLatin1(pdf).count(QRegularExpression("/Type\\s*/Page[^s]")), 1);
}

void TestFxtrace::exportDotIsReadByGraphviz() {
    QTemporaryDir dir;
    QString path = dir.filePath("g.dot");
    QCOMPARE(fxtrace({"export", "example:tinynet", "-o", path}).exitCode, 0);
    QProcess dot;
    dot.start("dot", {"-Tplain", path});
    QVERIFY(dot.waitForFinished(60000));
    QCOMPARE(dot.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(dot.readAllStandardOutput()).count("\nnode "), 5);
}

void TestFxtrace::exportJson() {
    QTemporaryDir dir;
    QString path = dir.filePath("g.json");
    QCOMPARE(fxtrace({"export", "example:tinynet", "-o", path, "--run", "--input", "3x4"}).exitCode,
             0);
    QJsonObject root = QJsonDocument::fromJson(readFile(path.toStdString())).object();
    QCOMPARE(root["format"].toString(), QString("fxview.graph"));
    QJsonObject fc2 = root["nodes"].toArray()[3].toObject();
    QCOMPARE(fc2["meta"].toObject()["value"].toObject()["shape"].toArray(), (QJsonArray{3, 2}));
}

void TestFxtrace::exportResnetRunShowsEveryShape() {
    QTemporaryDir dir;
    QString path = dir.filePath("resnet18.svg");
    FxtraceRun run = fxtrace({"export", QString::fromStdString(fixture("resnet18_traced.pt")), "-o",
                              path, "--run", "--input", "1x3x32x32"});
    QCOMPARE(run.exitCode, 0);
    QString svg = QString::fromUtf8(readFile(path.toStdString()));
    // 71 boxes, each with its "[1, ...] float32" line (edges carry shapes too).
    QRegularExpression boxShape("<text[^>]*>\\s*\\[1(, \\d+)*\\] float32\\s*</text>");
    int boxes = 0;
    for (auto it = boxShape.globalMatch(svg); it.hasNext(); it.next())
        ++boxes;
    QCOMPARE(boxes, 71);
}

void TestFxtrace::exportRefusesHugePng() {
    QTemporaryDir dir;
    QString path = dir.filePath("huge.png");
    FxtraceRun run = fxtrace({"export", QString::fromStdString(fixture("resnet18_traced.pt")), "-o",
                              path, "--scale", "50"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("over the limit; export it as SVG or PDF"), qPrintable(run.err));
    QVERIFY(!QFile::exists(path));
}

// The 96-layer language model at --depth 1: layers.0 ... layers.95 are boxes, nothing inside them
// is drawn; with --run each box shows what flows in and out (the residual stream).
void TestFxtrace::exportDepthDrawsTheLayersAsBoxes() {
    QTemporaryDir dir;
    QString path = dir.filePath("lm.svg");
    FxtraceRun run =
        fxtrace({"export", QString::fromStdString(fixture("lm.pt")), "--depth", "1", "-o", path});
    QCOMPARE(run.exitCode, 0);
    QString svg = QString::fromUtf8(readFile(path.toStdString()));
    QRegularExpression title(">layers\\.(\\d+)<");
    std::set<int> layers;
    int titles = 0;
    for (auto it = title.globalMatch(svg); it.hasNext();) {
        layers.insert(it.next().captured(1).toInt());
        ++titles;
    }
    QCOMPARE(titles, 96);
    QCOMPARE(static_cast<int>(layers.size()), 96);
    QCOMPARE(*layers.rbegin(), 95);
    QVERIFY(!svg.contains(">layers.0.attn<"));
    QVERIFY(!svg.contains("layers_0_attn_q")); // no node of a block is drawn
    QCOMPARE(svg.count(">DecoderLayer · 58 nodes<"), 96);

    FxtraceRun withRun = fxtrace(
        {"export", QString::fromStdString(fixture("lm.pt")), "--depth", "1", "-o", path, "--run"});
    QCOMPARE(withRun.exitCode, 0);
    svg = QString::fromUtf8(readFile(path.toStdString()));
    QRegularExpression flow(">\\[1, 16, 32\\] → \\[1, 16, 32\\]<");
    int shown = 0;
    for (auto it = flow.globalMatch(svg); it.hasNext(); it.next())
        ++shown;
    QCOMPARE(shown, 96);
}

void TestFxtrace::exportExpandOpensOneScope() {
    QTemporaryDir dir;
    QString path = dir.filePath("lm.svg"), json = dir.filePath("lm.json");
    const QString lm = QString::fromStdString(fixture("lm.pt"));
    QCOMPARE(
        fxtrace({"export", lm, "--depth", "1", "--expand", "layers.7.attn", "-o", path}).exitCode,
        0);
    QString svg = QString::fromUtf8(readFile(path.toStdString()));
    QVERIFY(svg.contains(">layers.7.mlp<"));    // layers.7 opened around it: its parts are boxes
    QVERIFY(svg.contains(">layers_7_attn_q<")); // and inside attn, its nodes
    QCOMPARE(svg.count(">DecoderLayer · 58 nodes<"), 95); // every layer but layers.7 a box
    QVERIFY(svg.contains(">layers.8<"));
    // JSON: every node, and the scope tree as drawn.
    QCOMPARE(fxtrace({"export", lm, "--depth", "0", "-o", json}).exitCode, 0);
    QJsonObject doc = QJsonDocument::fromJson(readFile(json.toStdString())).object();
    QVERIFY(doc["nodes"].toArray().size() > 5000);
    QJsonArray scopes = doc["scopes"].toArray();
    QCOMPARE(scopes[0].toObject()["path"].toString(), QString("layers"));
    QVERIFY(scopes[0].toObject()["box"].toBool());
    QCOMPARE(scopes[1].toObject()["path"].toString(), QString("layers.0"));
    QCOMPARE(scopes[1].toObject()["class"].toString(), QString("lm_models.DecoderLayer"));
    QVERIFY(!scopes[1].toObject()["box"].toBool()); // inside a box
    // A scope the model does not have: one sentence naming what it has.
    FxtraceRun wrong = fxtrace({"export", lm, "--expand", "layers.300", "-o", path});
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("has no module scope 'layers.300'; its top-level scopes are "
                                "layers, norm."),
             qPrintable(wrong.err));
    QCOMPARE(fxtrace({"export", lm, "--depth", "x", "-o", path}).exitCode, 2);
}

// A .pt2's scopes come from nn_module_stack; its weights, placeholders at the top, are lines in
// the box of the node reading them (--show-weights: boxes of their own), or go into the box of
// the closed scope that alone reads them.
void TestFxtrace::exportDepthOfAnExportedProgram() {
    QTemporaryDir dir;
    QString path = dir.filePath("r.svg");
    const QString model = QString::fromStdString(fixture("resnet18.pt2"));
    // layer1.0.conv1.weight's placeholder, as the exporting PyTorch names it (2.6:
    // p_getattr_l__self___layer1___0___conv1_weight, 2.14: p_layer1_0_conv1_weight).
    const QRegularExpressionMatch named = QRegularExpression("%(p_\\w*layer1_+0_+conv1_weight) ")
                                              .match(fxtrace({"graph", model}).out);
    QVERIFY(named.hasMatch());
    const QString weightLabel = ">" + named.captured(1) + "<";
    QCOMPARE(fxtrace({"export", model, "-o", path}).exitCode, 0);
    QString whole = QString::fromUtf8(readFile(path.toStdString()));
    QVERIFY(!whole.contains(weightLabel));
    QVERIFY(whole.contains(">weight [64, 64, 3, 3]<"));
    QVERIFY(whole.contains(">running_mean [512]<"));
    // No wider than the TorchScript picture, whose call_modules hold their weights.
    QString scripted = dir.filePath("s.svg");
    QCOMPARE(
        fxtrace({"export", QString::fromStdString(fixture("resnet18_scripted.pt")), "-o", scripted})
            .exitCode,
        0);
    auto widthOf = [](const QString& svg) {
        QRegularExpressionMatch m = QRegularExpression("<svg[^>]* width=\"([0-9.]+)").match(svg);
        return m.hasMatch() ? m.captured(1).toDouble() : -1.0;
    };
    const double exported = widthOf(whole);
    const double traced = widthOf(QString::fromUtf8(readFile(scripted.toStdString())));
    QVERIFY2(exported > 0 && exported <= traced,
             qPrintable(QString("%1 > %2").arg(exported).arg(traced)));
    QCOMPARE(fxtrace({"export", model, "--show-weights", "-o", path}).exitCode, 0);
    whole = QString::fromUtf8(readFile(path.toStdString()));
    QVERIFY(whole.contains(weightLabel));
    QVERIFY(!whole.contains(">weight [64, 64, 3, 3]<"));
    QCOMPARE(fxtrace({"export", model, "--depth", "1", "--run", "-o", path}).exitCode, 0);
    QString svg = QString::fromUtf8(readFile(path.toStdString()));
    for (const char* box : {">layer1.0<", ">layer1.1<", ">layer4.1<"})
        QVERIFY2(svg.contains(box), box);
    QVERIFY(!svg.contains(weightLabel));
    // conv1 is open at depth 1: its weight is drawn in the box of the conv2d reading it.
    QVERIFY(!svg.contains(">p_conv1_weight<"));
    QVERIFY(svg.contains(">weight [64, 3, 7, 7]<"));
    QVERIFY(svg.contains(">[1, 64, 16, 16] → [1, 64, 16, 16]<"));
}

void TestFxtrace::exportedGraphPrintsLikePyTorch_data() {
    QTest::addColumn<QString>("name");
    for (const char* name :
         {"tinynet", "buffers", "resnet18", "resnet18_core", "mobilenet_v2", "transformer_block",
          "dynamic_batch", "cond", "linear", "counter", "counter_core", "masked_scores", "gather",
          "nested_outputs", "recurrent", "contrastive_head", "spectrum", "nested_inputs"})
        QTest::newRow(name) << name;
}

// Byte for byte what print(torch.export.load(path).graph) printed in PyTorch 2.6: placeholders in
// the signature's order, ATen overloads as targets, arguments with defaults as keywords.
void TestFxtrace::exportedGraphPrintsLikePyTorch() {
    QFETCH(QString, name);
    FxtraceRun run =
        fxtrace({"graph", QString::fromStdString(fixture(name.toStdString() + ".pt2"))});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QString::fromUtf8(readFile(fixture(name.toStdString() + ".pt2.txt"))));
}

void TestFxtrace::exportedRunEqualsItsModule_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("variant"); // "": the example input, by default; "_1": another
    for (const char* name :
         {"tinynet", "buffers", "resnet18", "resnet18_core", "mobilenet_v2", "transformer_block",
          "dynamic_batch", "cond", "linear", "counter", "counter_core", "masked_scores", "gather",
          "nested_outputs", "recurrent", "contrastive_head", "spectrum", "nested_inputs"})
        QTest::newRow(name) << name << "";
    QTest::newRow("dynamic_batch at batch 17") << "dynamic_batch"
                                               << "_1";
    QTest::newRow("cond, its false branch") << "cond"
                                            << "_1";
    QTest::newRow("recurrent at batch 7") << "recurrent"
                                          << "_1";
    QTest::newRow("nested_inputs, another dict and list") << "nested_inputs"
                                                          << "_1";
}

// Run node by node with LibTorch's ATen operators on the archive's example inputs (no --input)
// or another input file, the graph's user outputs are torch.equal to
// torch.export.load(path).module()'s (PyTorch 2.6, the generator).
void TestFxtrace::exportedRunEqualsItsModule() {
    QFETCH(QString, name);
    QFETCH(QString, variant);
    QTemporaryDir dir;
    QString saved = dir.filePath("out.pt");
    std::string base = fixture(name.toStdString());
    QStringList args = {"run", QString::fromStdString(base + ".pt2"), "--save-outputs", saved};
    if (!variant.isEmpty())
        args << "--input"
             << QString::fromStdString("file:" + base + "_pt2_input" + variant.toStdString() +
                                       ".pt");
    FxtraceRun run = fxtrace(args);
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("Outputs equal: not checked (a .pt2 has no forward to run)"));
    QProcess python;
    python.start(FXVIEW_PYTHON_PATH,
                 {"-c",
                  "import sys, torch\n"
                  "def same(a, b):\n"
                  "    if isinstance(a, torch.Tensor):\n"
                  "        return isinstance(b, torch.Tensor) and torch.equal(a, b)\n"
                  "    if isinstance(a, dict):\n"
                  "        return isinstance(b, dict) and list(a) == list(b) and "
                  "all(same(a[k], b[k]) for k in a)\n"
                  "    return isinstance(a, tuple) == isinstance(b, tuple) and len(a) == len(b) "
                  "and all(same(x, y) for x, y in zip(a, b))\n"
                  "out = torch.load(sys.argv[1])\n"
                  "ref = torch.load(sys.argv[2])\n"
                  "assert same(out, ref), (out, ref)\n"
                  "print('equal')\n",
                  saved,
                  QString::fromStdString(base + "_pt2_reference" + variant.toStdString() + ".pt")});
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardError()), QString());
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()), QString("equal\n"));
}

// Without --input a .pt2 runs on its example input, and says so; its parameters are
// placeholders of the graph but no inputs to give.
void TestFxtrace::exportedDefaultsToItsExampleInput() {
    FxtraceRun run = fxtrace({"run", QString::fromStdString(fixture("tinynet.pt2"))});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2((run.err + run.out).contains("input x: the archive's example input (3x4 float32)"),
             qPrintable(run.out + run.err));
}

void TestFxtrace::exportedGraphNeedsNoWeights_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("sentence");
    if (legacyExportLayout()) {
        QTest::newRow("weights no torch.save archive")
            << "damaged_weights.pt2"
            << "The archive's weights (serialized_state_dict.pt) cannot be read (";
        QTest::newRow("a weight's storage cut short")
            << "cut_weights.pt2"
            << "The archive's weights (serialized_state_dict.pt) cannot be read safely: its "
               "tensor storage archive/data/0 holds 16 bytes but its tensor needs 32 (8 × 4)";
    } else {
        QTest::newRow("a weight's raw storage cut short")
            << "cut_weights.pt2"
            << "The archive's weight weight (weight_0) is viewed past the 4 elements its record "
               "holds; export it again";
    }
    QTest::newRow("an op that is not ATen")
        << "custom_op.pt2"
        << "LibTorch has no operator to run torch.ops.mylib.fused_linear.default, a custom op no "
           "loaded library defines: give fxview the shared library whose TORCH_LIBRARY registers "
           "it with --ops LIB.so";
    QTest::newRow("a weight of another shape")
        << "mismatched_weights.pt2"
        << (legacyExportLayout()
                ? "The archive's weights do not match its signature: weight is [3, 4] in the "
                  "weights but [2, 4] in the graph; export it again"
                : "The archive's weight weight (weight_0) is viewed past the 8 elements its "
                  "record holds; export it again");
}

// The graph is read from the JSON alone (its picture does not wait for the weights), so a .pt2
// whose weights are damaged or do not match, or that calls an op LibTorch cannot run, still
// shows its graph; running it stops at the first weight or at that op with the sentence.
void TestFxtrace::exportedGraphNeedsNoWeights() {
    QFETCH(QString, file);
    QFETCH(QString, sentence);
    QString path = QString::fromStdString(fixture(file.toStdString()));
    FxtraceRun graph = fxtrace({"graph", path});
    QCOMPARE(graph.exitCode, 0);
    QVERIFY2(graph.out.contains("%linear : [num_users=1] = call_function[target=torch.ops.") &&
                 // torch.export's name for nn.Linear's own weight: 2.6's and 2.14's
                 graph.out.contains(legacyExportLayout() ? "%p_fn_weight" : "%p_weight") &&
                 graph.out.endsWith("return (linear,)\n"),
             qPrintable(graph.out));
    FxtraceRun run = fxtrace({"run", path});
    QVERIFY(!run.crashed);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2((run.out + run.err).contains(sentence), qPrintable(run.out + run.err));
}

// fxview.graph JSON of a .pt2 keeps its graph signature: the placeholders that are weights say
// so and whose they are, the output says which values are the user's and which a mutated
// buffer's new value; targets are the ATen overloads.
void TestFxtrace::exportedJsonKeepsTheSignature() {
    FxtraceRun run = fxtrace({"json", QString::fromStdString(fixture("counter_core.pt2"))});
    QCOMPARE(run.exitCode, 0);
    QJsonArray nodes = QJsonDocument::fromJson(run.out.toUtf8()).object()["nodes"].toArray();
    QMap<QString, QJsonObject> byName;
    for (const QJsonValue& n : nodes)
        byName[n.toObject()["name"].toString()] = n.toObject();
    QCOMPARE(byName["b_count"]["placeholder_kind"].toString(), QString("buffer"));
    QCOMPARE(byName["b_count"]["state_name"].toString(), QString("count"));
    QVERIFY(!byName["x"].contains("placeholder_kind"));
    QCOMPARE(byName["add"]["target"].toString(), QString("torch.ops.aten.add.Tensor"));
    QCOMPARE(byName["add"]["scope"].toString(), QString()); // forward of the root module
    QJsonArray roles = byName["output"]["output_roles"].toArray();
    QCOMPARE(roles.size(), 2);
    QCOMPARE(roles[0].toObject()["kind"].toString(), QString("buffer_mutation"));
    QCOMPARE(roles[0].toObject()["target"].toString(), QString("count"));
    QCOMPARE(roles[1].toObject()["kind"].toString(), QString("user_output"));
    // Scopes and their classes come from nn_module_stack; export's own nodes have none.
    FxtraceRun tiny = fxtrace({"json", QString::fromStdString(fixture("tinynet.pt2"))});
    QCOMPARE(tiny.exitCode, 0);
    byName.clear(); // each model's nodes alone: a name missing here must not find another's
    for (const QJsonValue& v :
         QJsonDocument::fromJson(tiny.out.toUtf8()).object()["nodes"].toArray())
        byName[v.toObject()["name"].toString()] = v.toObject();
    QCOMPARE(byName["linear"]["scope"].toString(), QString("fc1"));
    QCOMPARE(byName["linear"]["scope_type"].toString(), QString("torch.nn.modules.linear.Linear"));
    QVERIFY(byName.contains("relu"));
    QCOMPARE(byName["relu"]["scope"].toString(), QString());
    QCOMPARE(byName["linear_1"]["scope"].toString(), QString("fc2"));
    FxtraceRun dynamic = fxtrace({"json", QString::fromStdString(fixture("dynamic_batch.pt2"))});
    QCOMPARE(dynamic.exitCode, 0);
    byName.clear();
    for (const QJsonValue& v :
         QJsonDocument::fromJson(dynamic.out.toUtf8()).object()["nodes"].toArray())
        byName[v.toObject()["name"].toString()] = v.toObject();
    QVERIFY(byName.contains("sym_size_int_1"));
    QCOMPARE(byName["sym_size_int_1"]["scope"].toString(), QString());
}

// A dynamic dimension takes what its Dim declared, the others their exported size, as
// torch.export.load(...).module() checks; anything else is one sentence with the range.
void TestFxtrace::exportedInputOutsideItsRangeIsRefused_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("sentence");
    QTest::newRow("batch 65 > max 64")
        << "65x4"
        << "Input 'x' has 65 at dimension 0 but the program was exported for 2 to 64 there (its "
           "dynamic dimension SYMBOL); give a size in that range.";
    QTest::newRow("batch 1 < min 2") << "1x4"
                                     << "exported for 2 to 64 there";
    QTest::newRow("a static dimension")
        << "8x5"
        << "Input 'x' has 5 at dimension 1 but the program was exported for 4 there (not a dynamic "
           "dimension); give 4.";
}

void TestFxtrace::exportedInputOutsideItsRangeIsRefused() {
    QFETCH(QString, input);
    QFETCH(QString, sentence);
    FxtraceRun run =
        fxtrace({"run", QString::fromStdString(fixture("dynamic_batch.pt2")), "--input", input});
    QCOMPARE(run.exitCode, 1);
    // The symbol is the exporting PyTorch's: s0 from 2.6, s77 from 2.14.
    QRegularExpression said(QRegularExpression::escape(sentence).replace("SYMBOL", "s[0-9]+"));
    QVERIFY2(said.match(run.err).hasMatch(), qPrintable(run.err));
}

QTEST_APPLESS_MAIN(TestFxtrace)
#include "tst_fxtrace.moc"
