// A comparison's JSON as an engine answers Compare (it ran the person's model, so its bytes are
// not to be trusted): read back as the window reads it, then judged and printed as the
// Comparison dock and fxtrace do.

#include <QByteArray>
#include <cstdint>

#include "session/ComparisonJson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (64u << 20))
        return 0;
    fxview::ComparisonReport report;
    fxview::Metric metric = fxview::Metric::RelL2;
    double threshold = 0;
    QByteArray json(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    if (fxview::readComparison(json, report, metric, threshold).isEmpty()) {
        report.firstDivergence(metric, threshold);
        fxview::formatComparison(report, metric, threshold);
        fxview::comparisonToJson(report, metric, threshold);
    }
    return 0;
}
