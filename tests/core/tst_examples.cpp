// The built-in TinyNet is the seed model bit for bit: after torch.manual_seed(0) its weights
// and its output on torch.randn(3, 4) equal what PyTorch computed (tinynet_reference.json).

// LibTorch first: Qt's `slots` macro would break its headers.
#include "ExampleModules.h"
#include "Importer.h"
#include "ModelPrivate.h"
#include "TorchValues.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "TestSupport.h"

using namespace fxview;

namespace {

// A tensor written by the generator as {"shape": [...], "hex": [float.hex(), ...]}.
at::Tensor tensorFromJson(const QJsonObject& json) {
    std::vector<std::int64_t> shape;
    for (const QJsonValue& d : json["shape"].toArray())
        shape.push_back(d.toInt());
    std::vector<float> values;
    for (const QJsonValue& h : json["hex"].toArray())
        values.push_back(
            static_cast<float>(std::strtod(h.toString().toLatin1().constData(), nullptr)));
    return at::tensor(values).reshape(shape);
}

QJsonObject reference() {
    return QJsonDocument::fromJson(readFile(fixture("tinynet_reference.json"))).object();
}

torch::jit::Module module(const std::string& source) {
    LoadResult loaded = loadModel(source);
    if (!loaded.ok())
        qFatal("%s", loaded.error.c_str());
    return loaded.model->d().module;
}

} // namespace

class TestExamples : public QObject {
    Q_OBJECT
private slots:
    void tinyNetWeightsEqualPyTorch();
    void tinyNetOutputEqualsPyTorch();
    void examplesRun_data();
    void examplesRun();
    void summariesCountNanAndInf();
    void summariesOfOtherDtypesGoChunkByChunk();
};

void TestExamples::tinyNetWeightsEqualPyTorch() {
    torch::jit::Module ours = module("example:tinynet");
    torch::jit::Module pytorchs = module(fixture("tinynet_scripted.pt"));
    QJsonObject params = reference()["params"].toObject();
    QCOMPARE(params.size(), 4);
    for (const auto& p : ours.named_parameters()) {
        QVERIFY2(params.contains(QString::fromStdString(p.name)), p.name.c_str());
        QVERIFY2(torch::equal(p.value,
                              tensorFromJson(params[QString::fromStdString(p.name)].toObject())),
                 p.name.c_str());
        QVERIFY(torch::equal(
            p.value,
            pytorchs.attr(p.name.substr(0, 3)).toModule().attr(p.name.substr(4)).toTensor()));
    }
}

void TestExamples::tinyNetOutputEqualsPyTorch() {
    QJsonObject ref = reference();
    at::Tensor input = tensorFromJson(ref["input"].toObject());
    // The reference input is torch.randn(3, 4) after torch.manual_seed(0) in PyTorch.
    at::manual_seed(0);
    QVERIFY(torch::equal(input, at::randn({3, 4})));
    torch::NoGradGuard noGrad;
    at::Tensor output = module("example:tinynet").forward({input}).toTensor();
    QVERIFY(torch::equal(output, tensorFromJson(ref["output"].toObject())));
}

void TestExamples::examplesRun_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QList<int>>("inputShape");
    QTest::addColumn<QList<int>>("outputShape");
    QTest::newRow("tinynet") << "tinynet" << QList<int>{3, 4} << QList<int>{3, 2};
    QTest::newRow("branchy") << "branchy" << QList<int>{1, 4} << QList<int>{1, 2};
    QTest::newRow("smallcnn") << "smallcnn" << QList<int>{1, 3, 32, 32} << QList<int>{1, 10};
}

void TestExamples::examplesRun() {
    QFETCH(QString, name);
    QFETCH(QList<int>, inputShape);
    QFETCH(QList<int>, outputShape);
    std::vector<std::int64_t> shape(inputShape.begin(), inputShape.end());
    torch::NoGradGuard noGrad;
    at::Tensor out = module("example:" + name.toStdString()).forward({at::randn(shape)}).toTensor();
    QCOMPARE(out.sizes().vec(), std::vector<std::int64_t>(outputShape.begin(), outputShape.end()));
}

void TestExamples::summariesCountNanAndInf() {
    // 100000 values, so the statistics run split across threads; then a NaN and two Infs.
    at::manual_seed(0);
    at::Tensor t = at::randn({100000});
    ValueSummary clean = summarize(t, true);
    QVERIFY(clean.hasStats);
    QCOMPARE(clean.min, t.min().item<double>());
    QCOMPARE(clean.max, t.max().item<double>());
    // Float sums over blocks folded into doubles: float32's precision, against double ground truth.
    QVERIFY(std::abs(clean.mean - t.to(at::kDouble).mean().item<double>()) < 1e-6);
    double std64 = t.to(at::kDouble).std().item<double>();
    QVERIFY2(std::abs(clean.std - std64) < 1e-6 * std64, std::to_string(clean.std - std64).c_str());
    // Far from zero the sums of squares must not cancel out (a BatchNorm running_var, say).
    at::Tensor offset = t * 0.01 + 1000;
    double offsetStd = offset.to(at::kDouble).std().item<double>();
    QVERIFY2(std::abs(summarize(offset, true).std - offsetStd) < 1e-3 * offsetStd,
             std::to_string(summarize(offset, true).std).c_str());
    QCOMPARE(clean.nanCount, std::int64_t(0));

    at::Tensor dirty = t.clone();
    dirty[5] = std::numeric_limits<float>::quiet_NaN();
    dirty[6] = std::numeric_limits<float>::infinity();
    dirty[99999] = -std::numeric_limits<float>::infinity();
    ValueSummary s = summarize(dirty, true);
    QCOMPARE(s.nanCount, std::int64_t(1));
    QCOMPARE(s.infCount, std::int64_t(2));
    at::Tensor finite = dirty.masked_select(at::isfinite(dirty));
    QCOMPARE(s.min, finite.min().item<double>()); // statistics of the finite values
    QCOMPARE(s.max, finite.max().item<double>());
    QCOMPARE(s.shape, (std::vector<std::int64_t>{100000}));
    QCOMPARE(s.bytes, std::int64_t(400000));
    QCOMPARE(summarize(dirty, false).hasStats, false); // shapes only
}

void TestExamples::summariesOfOtherDtypesGoChunkByChunk() {
    // 300000 values: several 64 Ki chunks, converted one at a time (bfloat16 through float32's
    // fast path, int64 through float64), against float64 ground truth of the same values.
    at::manual_seed(0);
    at::Tensor wide = at::randn({300000});
    at::Tensor narrow = wide.to(at::kBFloat16);
    at::Tensor exact = narrow.to(at::kDouble);
    ValueSummary b = summarize(narrow, true);
    QVERIFY(b.hasStats);
    QCOMPARE(b.dtype, std::string("bfloat16"));
    QCOMPARE(b.min, exact.min().item<double>());
    QCOMPARE(b.max, exact.max().item<double>());
    QVERIFY2(std::abs(b.mean - exact.mean().item<double>()) < 1e-6, std::to_string(b.mean).c_str());
    double std64 = exact.std().item<double>();
    QVERIFY2(std::abs(b.std - std64) < 1e-6 * std64, std::to_string(b.std - std64).c_str());
    // The histogram samples the same runs whatever the dtype: its counts are float32's.
    ValueSummary f = summarize(narrow.to(at::kFloat), true);
    QCOMPARE(b.histogram, f.histogram);
    QCOMPARE(b.histogramSample, std::int64_t(64 * 64));

    at::Tensor dirty = narrow.clone();
    dirty[200000] = std::numeric_limits<float>::quiet_NaN();
    ValueSummary d = summarize(dirty, true);
    QCOMPARE(d.nanCount, std::int64_t(1));
    QCOMPARE(d.min, exact.min().item<double>());

    at::Tensor ints = at::randint(-1000, 1000, {200000}, at::kLong);
    ValueSummary i = summarize(ints, true);
    QCOMPARE(i.min, ints.min().item<double>());
    QCOMPARE(i.max, ints.max().item<double>());
    QVERIFY(std::abs(i.mean - ints.to(at::kDouble).mean().item<double>()) < 1e-9);
}

QTEST_APPLESS_MAIN(TestExamples)
#include "tst_examples.moc"
