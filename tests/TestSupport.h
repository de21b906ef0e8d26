#pragma once
// Shared by the Qt Tests: readable failure messages for std types, and where fixtures live.

#include <QJsonDocument>
#include <QJsonObject>
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

// A file written by tests/fixtures/generate_fixtures.py (CTest runs it before these tests).
inline std::string fixture(const std::string& name) {
    return std::string(FXVIEW_FIXTURE_DIR) + "/" + name;
}

inline QByteArray readFile(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", path.c_str());
    return file.readAll();
}

// What the generator recorded of torch.fx for `model`: graph_text, nodes (op, name, target,
// ShapeProp's shape and dtype), input_shape.
inline QJsonObject fxReference(const std::string& model) {
    return QJsonDocument::fromJson(readFile(fixture(model + ".fx.json"))).object();
}

// Data rows ("model", "variant") of the torchvision fixtures whose node list equals
// symbolic_trace's, node for node.
inline void addVisionRows() {
    for (const char* model : {"resnet18", "mobilenet_v2"})
        for (const char* variant : {"scripted", "traced"})
            QTest::newRow((std::string(model) + " " + variant).c_str()) << model << variant;
    // Its feature list grows by append: each cat takes the items the list had at that point.
    QTest::newRow("densenet121 scripted") << "densenet121"
                                          << "scripted";
    QTest::newRow("densenet121 traced") << "densenet121"
                                        << "traced";
    // x.mean(...)/x.flatten(...) as methods (source ranges), traced attribute order; traced
    // convnext's StochasticDepth calls are kept with neither argument nor result (eval mode).
    for (const char* model : {"mnasnet0_5", "regnet_y_400mf", "convnext_tiny"})
        for (const char* variant : {"scripted", "traced"})
            QTest::newRow((std::string(model) + " " + variant).c_str()) << model << variant;
    // x.shape as getattr, torch._assert as a call (its f-string made as torch.fx makes it).
    QTest::newRow("vit_b_16 scripted") << "vit_b_16"
                                       << "scripted";
    // stochastic_depth, shifted_window_attention...: one call_function each (torch.fx.wrap).
    QTest::newRow("swin_t scripted") << "swin_t"
                                     << "scripted";
}
