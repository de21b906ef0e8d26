#pragma once
// Timing and memory helpers shared by the benchmark programs (and tests that bound memory).

#include <QElapsedTimer>
#include <QFile>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace fxview {

inline double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

inline double millisecondsOf(const std::function<void()>& work) {
    QElapsedTimer timer;
    timer.start();
    work();
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

// This process's resident memory in MB.
inline double residentMb() {
    QFile statm("/proc/self/statm");
    if (!statm.open(QIODevice::ReadOnly)) // Qt 6.11 will not let the answer be ignored
        return 0;
    QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.value(1).toDouble() * sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

} // namespace fxview
