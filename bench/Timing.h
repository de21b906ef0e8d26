#pragma once
// Timing helpers shared by the benchmark programs.

#include <QElapsedTimer>

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

} // namespace fxview
