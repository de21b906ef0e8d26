#include "TorchValues.h"

#include <cmath>
#include <limits>

#include "FxText.h"

namespace fxview {

namespace {

const std::vector<std::pair<c10::ScalarType, const char*>>& dtypeNames() {
    static const std::vector<std::pair<c10::ScalarType, const char*>> names = {
        {c10::ScalarType::Float, "float32"},
        {c10::ScalarType::Double, "float64"},
        {c10::ScalarType::Half, "float16"},
        {c10::ScalarType::BFloat16, "bfloat16"},
        {c10::ScalarType::Long, "int64"},
        {c10::ScalarType::Int, "int32"},
        {c10::ScalarType::Short, "int16"},
        {c10::ScalarType::Char, "int8"},
        {c10::ScalarType::Byte, "uint8"},
        {c10::ScalarType::Bool, "bool"},
        {c10::ScalarType::ComplexFloat, "complex64"},
        {c10::ScalarType::ComplexDouble, "complex128"}};
    return names;
}

// min/max/mean/std and NaN/Inf counts in one pass over a contiguous float buffer: the common
// case, and the one where a run with full summaries must stay close to the model's own speed.
template <typename T> void floatStats(const T* data, std::int64_t n, ValueSummary& s) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, sumSq = 0;
    std::int64_t finite = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        double v = static_cast<double>(data[i]);
        if (std::isnan(v)) {
            ++s.nanCount;
        } else if (std::isinf(v)) {
            ++s.infCount;
        } else {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
            sumSq += v * v;
            ++finite;
        }
    }
    if (finite == 0)
        return;
    s.hasStats = true;
    s.min = lo;
    s.max = hi;
    s.mean = sum / static_cast<double>(finite);
    double variance = finite > 1 ? (sumSq - sum * s.mean) / static_cast<double>(finite - 1) : 0.0;
    s.std = std::sqrt(variance > 0 ? variance : 0.0);
}

void tensorStats(const at::Tensor& t, ValueSummary& s) {
    if (t.numel() == 0 || t.is_complex() || t.scalar_type() == c10::ScalarType::Bool)
        return;
    at::Tensor c = t.is_cpu() ? t.contiguous() : t.cpu().contiguous();
    if (c.scalar_type() == c10::ScalarType::Float)
        floatStats(c.data_ptr<float>(), c.numel(), s);
    else {
        at::Tensor d = c.to(c10::ScalarType::Double);
        floatStats(d.data_ptr<double>(), d.numel(), s);
    }
}

} // namespace

std::string dtypeName(c10::ScalarType type) {
    for (const auto& [t, name] : dtypeNames())
        if (t == type)
            return name;
    return c10::toString(type);
}

bool scalarTypeFromName(const std::string& name, c10::ScalarType& type) {
    for (const auto& [t, n] : dtypeNames())
        if (name == n) {
            type = t;
            return true;
        }
    return false;
}

ValueSummary summarize(const c10::IValue& value, bool withStats) {
    ValueSummary s;
    if (value.isTensor()) {
        const at::Tensor& t = value.toTensor();
        s.type = "Tensor";
        if (!t.defined()) {
            s.value = "undefined";
            return s;
        }
        s.shape = t.sizes().vec();
        s.stride = t.strides().vec();
        s.dtype = dtypeName(t.scalar_type());
        s.device = t.device().str();
        s.numel = t.numel();
        s.bytes = t.numel() * static_cast<std::int64_t>(t.element_size());
        if (withStats)
            tensorStats(t, s);
    } else if (value.isTuple() || value.isList()) {
        s.type = value.isTuple() ? "tuple" : "list";
        auto items =
            value.isTuple() ? value.toTupleRef().elements().vec() : value.toListRef().vec();
        for (const c10::IValue& item : items)
            s.items.push_back(summarize(item, withStats));
    } else if (value.isNone()) {
        s.type = "None";
        s.value = "None";
    } else if (value.isBool()) {
        s.type = "bool";
        s.value = value.toBool() ? "True" : "False";
    } else if (value.isInt()) {
        s.type = "int";
        s.value = std::to_string(value.toInt());
    } else if (value.isDouble()) {
        s.type = "float";
        s.value = pythonFloatRepr(value.toDouble());
    } else if (value.isString()) {
        s.type = "str";
        s.value = value.toStringRef();
    } else {
        s.type = value.type()->repr_str();
    }
    return s;
}

bool exactlyEqual(const c10::IValue& a, const c10::IValue& b) {
    if (a.isTensor() && b.isTensor()) {
        const at::Tensor &x = a.toTensor(), &y = b.toTensor();
        return x.defined() == y.defined() &&
               (!x.defined() ||
                (x.scalar_type() == y.scalar_type() && x.sizes() == y.sizes() && at::equal(x, y)));
    }
    if ((a.isTuple() && b.isTuple()) || (a.isList() && b.isList())) {
        auto xs = a.isTuple() ? a.toTupleRef().elements().vec() : a.toListRef().vec();
        auto ys = b.isTuple() ? b.toTupleRef().elements().vec() : b.toListRef().vec();
        if (xs.size() != ys.size())
            return false;
        for (std::size_t i = 0; i < xs.size(); ++i)
            if (!exactlyEqual(xs[i], ys[i]))
                return false;
        return true;
    }
    if (a.isTensor() || b.isTensor() || a.isTuple() || b.isTuple() || a.isList() || b.isList())
        return false;
    return a == b;
}

} // namespace fxview
