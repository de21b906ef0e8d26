#pragma once
// Core-internal: one pair of values as a comparison sees them (RunComparison.cpp): measured
// into a NodeDifference's metrics, and A's value made to stand in for B's in local mode.
// Include only from core's .cpp files.

#include <torch/script.h>

#include "Comparison.h"

namespace fxview {

// Fills `row`'s shapes, dtypes and metrics (Comparison.h's definitions) from A's value `a` and
// B's `b`; the row says when they are not numbers or their shapes differ.
void measure(const c10::IValue& a, const c10::IValue& b, NodeDifference& row);

// A's value as B's node would hold it, for local mode: B's dtype, B's quantization, always a copy;
// B's own value (and `fed` false) where A's cannot stand in for it.
c10::IValue likeB(const c10::IValue& a, const c10::IValue& b, bool& fed);

// A copy of `value` that later in-place ops cannot change (the value itself if it cannot be
// copied).
c10::IValue heldCopy(const c10::IValue& value);

} // namespace fxview
