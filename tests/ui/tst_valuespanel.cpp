// The Values dock on its own: what it asks for (the default slice of a node's value, the pickers'
// slices, the picture's planes), what it shows of an answer (each element's text, coloured cells,
// the channel grid, the sentence of an error or a note), the slice as text, and the element text
// itself: the shortest decimal that reads back as the same value of its dtype.

#include <QApplication>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <cmath>
#include <cstring>

#include "GraphBuilding.h"
#include "panels/ValuePictures.h"
#include "panels/ValuesPanel.h"

using namespace fxview;

namespace {

NodeRecord ranRecord(std::vector<std::int64_t> shape, const std::string& dtype = "float32") {
    NodeRecord r;
    r.state = NodeState::Done;
    r.value.type = "Tensor";
    r.value.shape = std::move(shape);
    r.value.dtype = dtype;
    return r;
}

// The answer an engine gives to `request` for a value whose element at (p, y, x) is `f`.
std::shared_ptr<const ValueSlice> answer(const ValueSliceRequest& request,
                                         const std::vector<std::int64_t>& shape,
                                         double (*f)(std::int64_t, std::int64_t, std::int64_t)) {
    auto slice = std::make_shared<ValueSlice>();
    slice->request = request;
    slice->summary.shape = shape;
    slice->summary.dtype = "float32";
    for (std::int64_t p = 0; p < request.planeCount; ++p)
        for (std::int64_t y = 0; y < request.rowCount; ++y)
            for (std::int64_t x = 0; x < request.colCount; ++x)
                slice->reals.push_back(f(p, y, x));
    return slice;
}

double ramp(std::int64_t p, std::int64_t y, std::int64_t x) {
    return static_cast<double>(static_cast<float>(p * 100 + y * 10 + x) / 8.0f - 3.0f);
}

// Rounds as a float of `dtype` does (float32 through the hardware, the 16-bit ones by hand).
double roundedTo(double v, const std::string& dtype) {
    if (dtype == "float64")
        return v;
    float f = static_cast<float>(v);
    if (dtype == "float32")
        return f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (dtype == "bfloat16") { // round to nearest even on the upper 16 bits
        bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    int e = 0; // float16: 10 stored bits, normal from 2^-14
    std::frexp(std::fabs(v), &e);
    double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
    double r = std::nearbyint(std::fabs(v) / quantum) * quantum;
    return std::copysign(r > 65504 ? INFINITY : r, v); // past float16's largest: infinity
}

} // namespace

class TestValuesPanel : public QObject {
    Q_OBJECT
private slots:
    void asksForTheLastTwoDimensions() {
        ValuesPanel panel;
        QSignalSpy asked(&panel, &ValuesPanel::sliceWanted);
        NodeRecord r = ranRecord({1, 8, 6, 5});
        panel.showNode("", scopedNode(Op::CallModule, "conv", ""), &r);
        QCOMPARE(asked.count(), 1);
        auto req = asked.last().at(0).value<ValueSliceRequest>();
        QCOMPARE(req.node, std::string("conv"));
        QCOMPARE(req.rowAxis, 2);
        QCOMPARE(req.colAxis, 3);
        QCOMPARE(req.rowCount, 6);
        QCOMPARE(req.colCount, 5);
        QCOMPARE(req.index.size(), std::size_t(4));
        // The picture asks for every channel, each whole.
        panel.tabs()->setCurrentIndex(1);
        req = asked.last().at(0).value<ValueSliceRequest>();
        QCOMPARE(req.planeAxis, 1);
        QCOMPARE(req.planeCount, 8);
        QCOMPARE(req.rowCount * req.colCount, 30);
    }

    void showsTheAnswerAsTableAndPicture() {
        ValuesPanel panel;
        panel.resize(600, 400);
        panel.show();
        QSignalSpy asked(&panel, &ValuesPanel::sliceWanted);
        NodeRecord r = ranRecord({1, 4, 3, 5});
        panel.showNode("", scopedNode(Op::CallModule, "conv", ""), &r);
        auto req = asked.last().at(0).value<ValueSliceRequest>();
        panel.showSlice(answer(req, r.value.shape, ramp));
        QAbstractItemModel* cells = panel.table()->model();
        QCOMPARE(cells->rowCount(), 3);
        QCOMPARE(cells->columnCount(), 5);
        QCOMPARE(cells->index(1, 2).data().toString(), QString("-1.5")); // 12 / 8 - 3
        QVERIFY(cells->index(0, 0).data(Qt::BackgroundRole).value<QColor>() !=
                cells->index(2, 4).data(Qt::BackgroundRole).value<QColor>());
        QVERIFY(panel.sliceText().startsWith("-3.0\t-2.875\t"));

        panel.tabs()->setCurrentIndex(1);
        req = asked.last().at(0).value<ValueSliceRequest>();
        panel.showSlice(answer(req, r.value.shape, ramp));
        QImage drawn = panel.picture()->rendered();
        // Four channels drawn: the picture holds the colour map's two ends.
        auto has = [&](const QColor& c) {
            for (int y = 0; y < drawn.height(); ++y)
                for (int x = 0; x < drawn.width(); ++x)
                    if (QColor(drawn.pixel(x, y)) == c)
                        return true;
            return false;
        };
        QVERIFY(has(sequentialColor(0)));
        QVERIFY(has(sequentialColor(1)));
        QVERIFY(panel.sliceText().contains("# plane 3"));
    }

    void ignoresOlderAnswersAndSaysErrors() {
        ValuesPanel panel;
        QSignalSpy asked(&panel, &ValuesPanel::sliceWanted);
        NodeRecord r = ranRecord({2, 3});
        panel.showNode("", scopedNode(Op::CallFunction, "a", ""), &r);
        auto first = asked.last().at(0).value<ValueSliceRequest>();
        panel.showNode("", scopedNode(Op::CallFunction, "b", ""), &r);
        panel.showSlice(answer(first, r.value.shape, ramp)); // a's, arriving late
        QCOMPARE(panel.table()->model()->rowCount(), 0);
        auto failed = std::make_shared<ValueSlice>();
        failed->request = asked.last().at(0).value<ValueSliceRequest>();
        failed->error = "Node 'b' has not run yet: step to it or Run to Cursor (F4) to see its "
                        "values.";
        panel.showSlice(failed);
        QVERIFY(panel.noteText().contains("has not run yet"));
    }

    void saveNamesTheFormatByItsSuffix() {
        ValuesPanel panel;
        QSignalSpy saved(&panel, &ValuesPanel::saveWanted);
        NodeRecord r = ranRecord({3});
        panel.showNode("layer1", scopedNode(Op::CallFunction, "relu", ""), &r);
        panel.saveTo("/tmp/relu.npy");
        panel.saveTo("/tmp/relu.pt");
        QCOMPARE(saved.count(), 2);
        auto npy = saved.at(0).at(0).value<SaveValueRequest>();
        QCOMPARE(npy.format, ValueFileFormat::Npy);
        QCOMPARE(npy.value.frame, std::string("layer1"));
        QCOMPARE(saved.at(1).at(0).value<SaveValueRequest>().format, ValueFileFormat::TorchSave);
    }

    // Each element's text reads back as the same value of its dtype, and no shorter decimal
    // does: computed for a spread of values, not listed.
    void elementTextIsShortestExact_data() {
        QTest::addColumn<QString>("dtype");
        for (const char* d : {"float32", "bfloat16", "float16", "float64"})
            QTest::newRow(d) << QString(d);
    }
    void elementTextIsShortestExact() {
        QFETCH(QString, dtype);
        const std::string type = dtype.toStdString();
        ValueSlice slice;
        slice.summary.dtype = type;
        for (double seed : {0.1, -1.0 / 3, 2.5e-3, 123456.789, 6.1e-5, 1e-7, 3e15, 65000.0}) {
            const double v = roundedTo(seed, type);
            slice.reals = {v};
            const std::string text = slice.text(0, 0, 0);
            QCOMPARE(roundedTo(std::strtod(text.c_str(), nullptr), type), v);
            // No decimal with fewer significant digits reads back as it.
            std::string mantissa;
            for (char c : text.substr(0, text.find('e')))
                if (std::isdigit(static_cast<unsigned char>(c)))
                    mantissa += c;
            mantissa.erase(0, mantissa.find_first_not_of('0'));
            mantissa.erase(mantissa.find_last_not_of('0') + 1);
            for (int fewer = 1; fewer < static_cast<int>(mantissa.size()); ++fewer) {
                char shorter[64];
                std::snprintf(shorter, sizeof shorter, "%.*e", fewer - 1, v);
                QVERIFY2(roundedTo(std::strtod(shorter, nullptr), type) != v,
                         (text + " could be " + shorter).c_str());
            }
        }
        slice.reals = {NAN};
        QCOMPARE(slice.text(0, 0, 0), std::string("nan"));
        slice.reals = {-INFINITY};
        QCOMPARE(slice.text(0, 0, 0), std::string("-inf"));
    }

    void intsBoolsAndComplex() {
        ValueSlice slice;
        slice.summary.dtype = "bool";
        slice.ints = {1};
        QCOMPARE(slice.text(0, 0, 0), std::string("True"));
        slice.summary.dtype = "int64";
        slice.ints = {-9007199254740993}; // 2^53 + 1: exact as an int, not as a double
        QCOMPARE(slice.text(0, 0, 0), std::string("-9007199254740993"));
        slice.ints.clear();
        slice.summary.dtype = "complex64";
        slice.reals = {1.5};
        slice.imags = {-2.0};
        QCOMPARE(slice.text(0, 0, 0), std::string("(1.5-2.0j)"));
        QCOMPARE(slice.number(0, 0, 0), std::hypot(1.5, 2.0));
    }
};

QTEST_MAIN(TestValuesPanel)
#include "tst_valuespanel.moc"
