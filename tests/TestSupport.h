#pragma once
// Shared by the Qt Tests: readable failure messages for std types, and where fixtures live.

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QtTest>
#include <string>
#include <vector>

namespace QTest {
template <> inline char* toString(const std::string& s) {
    return qstrdup(s.c_str());
}
template <> inline char* toString(const std::vector<std::string>& v) {
    std::string joined;
    for (const std::string& s : v)
        joined += (joined.empty() ? "" : ", ") + s;
    return qstrdup(("[" + joined + "]").c_str());
}
} // namespace QTest

// How much longer than a plain build's a bound on time may be ("a hostile file ends within a few
// seconds", "Reset within a second"): FXVIEW_TIME_SCALE, which scripts/run-tests-asan sets, as
// AddressSanitizer's builds run several times slower. 1 otherwise.
inline double timeScale() {
    bool ok = false;
    double scale = qEnvironmentVariable("FXVIEW_TIME_SCALE").toDouble(&ok);
    return ok && scale > 0 ? scale : 1.0;
}
// A wait of `ms` milliseconds, stretched as timeScale() says.
inline int scaled(int ms) {
    return static_cast<int>(ms * timeScale());
}

// A file written by tests/fixtures/generate_fixtures.py (CTest runs it before these tests).
inline std::string fixture(const std::string& name) {
    return std::string(FXVIEW_FIXTURE_DIR) + "/" + name;
}

// fxtrace run as a person runs it: exit code, whether it died of a signal, its output and time.
struct FxtraceRun {
    int exitCode = -1;
    bool crashed = false;
    QString out;
    QString err;
    double seconds = 0;
};

inline FxtraceRun fxtrace(const QStringList& arguments) {
    QProcess process;
    QElapsedTimer timer;
    timer.start();
    process.start(FXTRACE_PATH, arguments);
    process.waitForFinished(120000);
    FxtraceRun run;
    run.seconds = timer.elapsed() / 1000.0;
    run.crashed = process.exitStatus() != QProcess::NormalExit;
    run.exitCode = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

inline QByteArray readFile(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", path.c_str());
    return file.readAll();
}

// The number (1-based) of the first line of `path` reading `text` (indentation aside) after the
// line `class NAME(...`: where a fixture model's line is, wherever edits to the generator move it.
// 0 if there is none.
inline int lineInClass(const std::string& path, const std::string& className,
                       const std::string& text) {
    QList<QByteArray> lines = readFile(path).split('\n');
    bool inClass = false;
    for (int i = 0; i < lines.size(); ++i) {
        inClass =
            inClass || lines[i].startsWith(QByteArray::fromStdString("class " + className + "("));
        if (inClass && lines[i].trimmed() == QByteArray::fromStdString(text))
            return i + 1;
    }
    return 0;
}

// What the generator recorded of torch.fx for `model`: graph_text, nodes (op, name, target,
// ShapeProp's shape and dtype), input_shape.
inline QJsonObject fxReference(const std::string& model) {
    return QJsonDocument::fromJson(readFile(fixture(model + ".fx.json"))).object();
}

// Data rows ("model", "variant") of the torchvision fixtures whose node list equals
// symbolic_trace's, node for node.
inline void addVisionRows() {
    // Plain CNNs; densenet's feature list grows by append (each cat takes the items it had
    // then); x.mean(...)/x.flatten(...) as methods (source ranges), traced attribute order;
    // traced convnext's StochasticDepth calls kept with neither argument nor result (eval).
    for (const char* model : {"resnet18", "mobilenet_v2", "densenet121", "mnasnet0_5",
                              "regnet_y_400mf", "convnext_tiny"})
        for (const char* variant : {"scripted", "traced"})
            QTest::newRow((std::string(model) + " " + variant).c_str()) << model << variant;
    // vit: x.shape as getattr, torch._assert as a call (its f-string made as torch.fx makes
    // it); swin: stochastic_depth, shifted_window_attention... one call_function each.
    for (const char* model : {"vit_b_16", "swin_t"})
        QTest::newRow((std::string(model) + " scripted").c_str()) << model << "scripted";
}
