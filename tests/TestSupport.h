#pragma once
// Shared by the Qt Tests: readable failure messages for std types, and where fixtures live.

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
