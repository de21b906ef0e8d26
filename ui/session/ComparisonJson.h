#pragma once
// Reads the fxview.comparison JSON that `fxtrace compare --json` writes (Comparison.h) back into
// a ComparisonReport. The file comes from a child process that ran the person's model, so every
// field is checked: a document that is not what compare writes is refused with a sentence.

#include <QByteArray>
#include <QString>

#include "Comparison.h"

namespace fxview {

// "" and `report` filled (`metric`, `threshold` as the file says), or the sentence saying why
// the document is not a comparison.
QString readComparison(const QByteArray& json, ComparisonReport& report, Metric& metric,
                       double& threshold);

} // namespace fxview
