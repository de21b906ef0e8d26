#pragma once
// Core-internal: LibTorch values as fxview shows them. Include only from core's .cpp files.

#include <torch/script.h>

#include "Graph.h"
#include "RunRecord.h"

namespace fxview {

// "float32", "int64"... as PyTorch spells dtypes in Python.
std::string dtypeName(c10::ScalarType type);
// The inverse; false if unknown.
bool scalarTypeFromName(const std::string& name, c10::ScalarType& type);

// Shapes only (cheap metadata) or full statistics of every tensor.
ValueSummary summarize(const c10::IValue& value, bool withStats);

// What a node holding `t` shows of it: its name, shape and dtype.
HeldTensor heldTensor(const std::string& name, const at::Tensor& t);

// torch::equal all the way down tuples and lists, a NaN equal to a NaN in the same place;
// scalars compare with ==.
bool exactlyEqual(const c10::IValue& a, const c10::IValue& b);

} // namespace fxview
