#pragma once
// Core-internal: LibTorch values as fxview shows them. Include only from core's .cpp files.

#include <torch/script.h>

#include "Graph.h"
#include "RunRecord.h"
#include "ValueSlice.h"

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

// `value` with every floating tensor in it (through tuples and lists) cast to `type`, as
// x.to(type) would; anything else as it is.
c10::IValue castFloating(const c10::IValue& value, c10::ScalarType type);

// A slice of `value` (an item of it: ValueSliceRequest::item) cut as `request` asks, the
// request cut to what the slice holds; an error sentence when it holds no tensor.
ValueSlice sliceValue(const c10::IValue& value, ValueSliceRequest request);

// `value` (or its `item`) written to `path` as torch.save writes it (`npy` false: a zip that
// Python's torch.load reads with weights_only=True) or as numpy.save does (a tensor NumPy has
// a dtype for). Returns "" or a sentence naming `what` and what went wrong.
std::string writeValueFile(const c10::IValue& value, const std::vector<std::int64_t>& item,
                           bool npy, const std::string& path, const std::string& what);

} // namespace fxview
