// Every kind of file that is not a TorchScript model gets one clear sentence, never a crash.

#include <QTemporaryDir>

#include "Model.h"
#include "TestSupport.h"

using namespace fxview;

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void rejects_data();
    void rejects();
    void loadsTorchScript_data();
    void loadsTorchScript();
    void examples();
    void unknownExample();
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
                                << "this is a state_dict, not a TorchScript model: save it with "
                                   "torch.jit.script(model).save(path).";
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

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"
