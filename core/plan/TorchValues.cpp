#include "TorchValues.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
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
        {c10::ScalarType::ComplexDouble, "complex128"},
        {c10::ScalarType::ComplexHalf, "complex32"},
        {c10::ScalarType::UInt16, "uint16"},
        {c10::ScalarType::UInt32, "uint32"},
        {c10::ScalarType::UInt64, "uint64"},
        {c10::ScalarType::QUInt8, "quint8"},
        {c10::ScalarType::QInt8, "qint8"},
        {c10::ScalarType::QInt32, "qint32"},
        {c10::ScalarType::QUInt4x2, "quint4x2"},
        {c10::ScalarType::QUInt2x4, "quint2x4"},
        {c10::ScalarType::Float8_e5m2, "float8_e5m2"},
        {c10::ScalarType::Float8_e4m3fn, "float8_e4m3fn"},
        {c10::ScalarType::Float8_e5m2fnuz, "float8_e5m2fnuz"},
        {c10::ScalarType::Float8_e4m3fnuz, "float8_e4m3fnuz"}};
    return names;
}

struct Moments {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    double sum = 0, sumSq = 0; // of (x - shift)
    double shift = 0;
    std::int64_t count = 0, nan = 0, inf = 0;

    void merge(const Moments& o) {
        lo = std::min(lo, o.lo);
        hi = std::max(hi, o.hi);
        sum += o.sum;
        sumSq += o.sumSq;
        count += o.count;
        nan += o.nan;
        inf += o.inf;
    }
};

// The common case, branch-free and in SIMD: eight independent lanes of float min/max/sum/sum of
// squares over a block, folded into doubles at the end of the block.
// A NaN or Inf anywhere makes the sums non-finite; then the exact slow path below counts them.
bool fastMoments(const float* data, std::int64_t n, float shift, Moments& m) {
    constexpr int kLanes = 8;
    constexpr std::int64_t kBlock = 4096; // float sums stay accurate over a short block
    for (std::int64_t start = 0; start < n; start += kBlock) {
        std::int64_t end = std::min(n, start + kBlock);
        float lo[kLanes], hi[kLanes], sum[kLanes] = {}, sumSq[kLanes] = {};
        for (int j = 0; j < kLanes; ++j)
            lo[j] = hi[j] = data[start];
        std::int64_t i = start;
#if defined(__SSE2__)
        // minps/maxps are exactly `v < lo ? v : lo`, which the compiler will not assume.
        __m128 lo0 = _mm_set1_ps(data[start]), lo1 = lo0, hi0 = lo0, hi1 = lo0;
        __m128 s0 = _mm_setzero_ps(), s1 = s0, q0 = s0, q1 = s0, k = _mm_set1_ps(shift);
        for (; i + kLanes <= end; i += kLanes) {
            __m128 a = _mm_loadu_ps(data + i), b = _mm_loadu_ps(data + i + 4);
            lo0 = _mm_min_ps(a, lo0);
            lo1 = _mm_min_ps(b, lo1);
            hi0 = _mm_max_ps(a, hi0);
            hi1 = _mm_max_ps(b, hi1);
            a = _mm_sub_ps(a, k);
            b = _mm_sub_ps(b, k);
            s0 = _mm_add_ps(s0, a);
            s1 = _mm_add_ps(s1, b);
            q0 = _mm_add_ps(q0, _mm_mul_ps(a, a));
            q1 = _mm_add_ps(q1, _mm_mul_ps(b, b));
        }
        _mm_storeu_ps(lo, lo0);
        _mm_storeu_ps(lo + 4, lo1);
        _mm_storeu_ps(hi, hi0);
        _mm_storeu_ps(hi + 4, hi1);
        _mm_storeu_ps(sum, s0);
        _mm_storeu_ps(sum + 4, s1);
        _mm_storeu_ps(sumSq, q0);
        _mm_storeu_ps(sumSq + 4, q1);
#else
        for (; i + kLanes <= end; i += kLanes)
            for (int j = 0; j < kLanes; ++j) {
                float v = data[i + j];
                lo[j] = v < lo[j] ? v : lo[j];
                hi[j] = v > hi[j] ? v : hi[j];
                sum[j] += v - shift;
                sumSq[j] += (v - shift) * (v - shift);
            }
#endif
        for (; i < end; ++i) {
            float v = data[i];
            lo[0] = v < lo[0] ? v : lo[0];
            hi[0] = v > hi[0] ? v : hi[0];
            sum[0] += v - shift;
            sumSq[0] += (v - shift) * (v - shift);
        }
        for (int j = 0; j < kLanes; ++j) {
            m.lo = std::min(m.lo, static_cast<double>(lo[j]));
            m.hi = std::max(m.hi, static_cast<double>(hi[j]));
            m.sum += sum[j];
            m.sumSq += sumSq[j];
        }
    }
    m.count += n;
    return std::isfinite(m.sum) && std::isfinite(m.sumSq) && std::isfinite(m.lo) &&
           std::isfinite(m.hi);
}

// Exact, one value at a time: for tensors holding NaN or Inf, and for other dtypes.
void slowMoments(const double* data, std::int64_t n, Moments& m) {
    for (std::int64_t i = 0; i < n; ++i) {
        double v = data[i];
        if (std::isnan(v)) {
            ++m.nan;
        } else if (std::isinf(v)) {
            ++m.inf;
        } else {
            m.lo = std::min(m.lo, v);
            m.hi = std::max(m.hi, v);
            m.sum += v;
            m.sumSq += v * v;
            ++m.count;
        }
    }
}

// The inspector's small histogram. A big tensor is sampled as kRuns runs of kRunLength
// consecutive values, evenly spaced: a few thousand values that keep its shape, read a cache
// line at a time (a value-by-value stride cost a cache miss per value, 5-10% of a resnet run).
constexpr int kHistogramBins = 24;
constexpr std::int64_t kRuns = 64, kRunLength = 64;

template <typename T> void histogramOf(const T* data, std::int64_t n, ValueSummary& s) {
    s.histogram.assign(kHistogramBins, 0);
    double range = s.max - s.min;
    double perUnit = range > 0 ? kHistogramBins / range : 0; // bins per unit of value
    for (std::int64_t i = 0; i < n; ++i) {
        double v = static_cast<double>(data[i]);
        if (!std::isfinite(v))
            continue;
        auto bin = static_cast<int>((v - s.min) * perUnit);
        ++s.histogram[static_cast<std::size_t>(std::clamp(bin, 0, kHistogramBins - 1))];
        ++s.histogramSample;
    }
}

// Only the sampled runs are converted, so that a bfloat16 embedding of a billion-parameter model
// costs a few kilobytes here, not a float64 copy of itself.
void tensorHistogram(const at::Tensor& flat, ValueSummary& s) {
    at::Tensor sample = flat;
    if (std::int64_t n = flat.numel(); n > kRuns * kRunLength) {
        std::vector<at::Tensor> runs;
        std::int64_t spacing = n / kRuns;
        for (std::int64_t r = 0; r < kRuns; ++r)
            runs.push_back(flat.slice(0, r * spacing, r * spacing + kRunLength));
        sample = at::cat(runs);
    }
    if (sample.scalar_type() == c10::ScalarType::Float)
        return histogramOf(sample.data_ptr<float>(), sample.numel(), s);
    at::Tensor d = sample.to(c10::ScalarType::Double);
    histogramOf(d.data_ptr<double>(), d.numel(), s);
}

// Values are converted a chunk at a time: the engine's memory stays the model's, whatever the
// dtype of its biggest tensor (a whole-tensor float64 copy of a 32000x2048 embedding was 524 MB).
constexpr std::int64_t kChunk = 1 << 16;

// float16, bfloat16 and the float8 kinds are exact in float32, so they take float32's fast path.
bool exactInFloat(c10::ScalarType type) {
    return type == c10::ScalarType::Float || type == c10::ScalarType::Half ||
           type == c10::ScalarType::BFloat16 || c10::isFloat8Type(type);
}

// One pass in float32 lanes, split across LibTorch's threads; false when a NaN or Inf is met.
bool floatMoments(const at::Tensor& flat, Moments& total) {
    const bool isFloat = flat.scalar_type() == c10::ScalarType::Float;
    const float shift = flat.slice(0, 0, 1).to(c10::ScalarType::Float).item<float>();
    std::vector<Moments> parts(static_cast<std::size_t>(at::get_num_threads()));
    std::atomic<bool> allFinite{true};
    at::parallel_for(0, flat.numel(), kChunk, [&](std::int64_t begin, std::int64_t end) {
        Moments part;
        // A thread is handed its whole share at once: converted kChunk values at a time.
        for (std::int64_t b = begin; b < end && allFinite; b += kChunk) {
            std::int64_t e = std::min(end, b + kChunk);
            at::Tensor converted;
            const float* data = nullptr;
            if (isFloat) {
                data = flat.data_ptr<float>() + b;
            } else {
                converted = flat.slice(0, b, e).to(c10::ScalarType::Float);
                data = converted.data_ptr<float>();
            }
            if (!fastMoments(data, e - b, shift, part))
                allFinite = false;
        }
        parts[static_cast<std::size_t>(at::get_thread_num())].merge(part);
    });
    if (!allFinite)
        return false;
    for (const Moments& part : parts)
        total.merge(part);
    // The sums are of x - x0, which keeps float sums of squares from cancelling out when the
    // values sit far from zero (running_var near 1, say).
    total.shift = shift;
    return true;
}

// min/max/mean/std over the finite values (std unbiased, as torch.std), NaN and Inf counts: one
// pass over the data, so that a run with full summaries stays close to the model's own speed.
// Sums are kept in double.
void tensorStats(const at::Tensor& t, ValueSummary& s) {
    if (t.numel() == 0 || t.is_complex() || t.scalar_type() == c10::ScalarType::Bool)
        return;
    at::Tensor flat = (t.is_cpu() ? t.contiguous() : t.cpu().contiguous()).reshape({-1});
    Moments total;
    bool fast = exactInFloat(flat.scalar_type()) && floatMoments(flat, total);
    if (!fast) {
        total = Moments{};
        for (std::int64_t b = 0; b < flat.numel(); b += kChunk) {
            at::Tensor d =
                flat.slice(0, b, std::min(flat.numel(), b + kChunk)).to(c10::ScalarType::Double);
            slowMoments(d.data_ptr<double>(), d.numel(), total);
        }
    }
    s.nanCount = total.nan;
    s.infCount = total.inf;
    if (total.count == 0)
        return;
    auto n = static_cast<double>(total.count);
    s.hasStats = true;
    s.min = total.lo;
    s.max = total.hi;
    double shiftedMean = total.sum / n;
    s.mean = total.shift + shiftedMean;
    double variance = total.count > 1 ? (total.sumSq - total.sum * shiftedMean) / (n - 1) : 0.0;
    s.std = std::sqrt(std::max(variance, 0.0));
    tensorHistogram(flat, s);
    s.hasDetail = true;
}

// A quantized tensor as what it is: its scheme, scale and zero point (their ranges over the
// channels, per channel), the range of its int representation, and the statistics of the values
// it stands for (dequantize()), which are what the float model it came from computed.
void quantizedSummary(const at::Tensor& t, bool withStats, ValueSummary& s) {
    at::QScheme scheme = t.qscheme();
    s.qscheme = c10::toString(scheme);
    if (scheme == at::kPerTensorAffine || scheme == at::kPerTensorSymmetric) {
        s.scaleMin = s.scaleMax = t.q_scale();
        s.zeroPointMin = s.zeroPointMax = t.q_zero_point();
    } else if (scheme == at::kPerChannelAffine || scheme == at::kPerChannelSymmetric ||
               scheme == at::kPerChannelAffineFloatQParams) {
        s.qaxis = t.q_per_channel_axis();
        at::Tensor scales = t.q_per_channel_scales().to(c10::ScalarType::Double);
        at::Tensor points = t.q_per_channel_zero_points().to(c10::ScalarType::Long);
        if (scales.numel() > 0) {
            s.scaleMin = scales.min().item<double>();
            s.scaleMax = scales.max().item<double>();
            s.zeroPointMin = points.min().item<std::int64_t>();
            s.zeroPointMax = points.max().item<std::int64_t>();
        }
    }
    if (!withStats || t.numel() == 0)
        return;
    at::Tensor ints = t.int_repr();
    s.intMin = ints.min().item<std::int64_t>();
    s.intMax = ints.max().item<std::int64_t>();
    tensorStats(t.dequantize(), s);
}

} // namespace

HeldTensor heldTensor(const std::string& name, const at::Tensor& t) {
    return HeldTensor{name, t.sizes().vec(), dtypeName(t.scalar_type())};
}

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

c10::IValue castFloating(const c10::IValue& value, c10::ScalarType type) {
    if (value.isTensor()) {
        const at::Tensor& t = value.toTensor();
        return t.defined() && t.is_floating_point() ? c10::IValue(t.to(type)) : value;
    }
    if (value.isTuple()) {
        std::vector<c10::IValue> items;
        for (const c10::IValue& item : value.toTupleRef().elements())
            items.push_back(castFloating(item, type));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    if (value.isTensorList()) {
        c10::List<at::Tensor> list;
        for (const at::Tensor& t : value.toTensorVector())
            list.push_back(t.is_floating_point() ? t.to(type) : t);
        return list;
    }
    return value;
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
        if (t.is_quantized())
            quantizedSummary(t, withStats, s);
        else if (withStats)
            tensorStats(t, s);
    } else if (value.isTuple() || value.isList()) {
        s.type = value.isTuple() ? "tuple" : "list";
        auto items =
            value.isTuple() ? value.toTupleRef().elements().vec() : value.toListRef().vec();
        for (const c10::IValue& item : items)
            s.items.push_back(summarize(item, withStats));
    } else if (value.isGenericDict()) {
        // As Python's summary: the values as items, the keys as str() joined.
        s.type = "dict";
        for (const auto& item : value.toGenericDict()) {
            const c10::IValue& key = item.key();
            std::string text = key.isString() ? key.toStringRef()
                               : key.isInt()  ? std::to_string(key.toInt())
                                              : key.type()->repr_str();
            s.value += (s.value.empty() ? "" : ", ") + text;
            s.items.push_back(summarize(item.value(), withStats));
        }
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
        if (x.defined() != y.defined())
            return false;
        if (!x.defined())
            return true;
        if (x.scalar_type() != y.scalar_type() || x.sizes() != y.sizes())
            return false;
        // A NaN where the other has a NaN is the same result (torch.equal would say no): a
        // model whose output holds NaN still runs exactly as forward when they match.
        return at::equal(x, y) || ((x.is_floating_point() || x.is_complex()) &&
                                   at::allclose(x, y, /*rtol=*/0, /*atol=*/0, /*equal_nan=*/true));
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
    if (a.isGenericDict() && b.isGenericDict()) {
        // Item by item: IValue's own == would compare tensors inside by identity.
        c10::Dict<c10::IValue, c10::IValue> xs = a.toGenericDict(), ys = b.toGenericDict();
        if (xs.size() != ys.size())
            return false;
        for (const auto& item : xs) {
            auto other = ys.find(item.key());
            if (other == ys.end() || !exactlyEqual(item.value(), other->value()))
                return false;
        }
        return true;
    }
    if (a.isTensor() || b.isTensor() || a.isTuple() || b.isTuple() || a.isList() || b.isList() ||
        a.isGenericDict() || b.isGenericDict())
        return false;
    return a == b;
}

} // namespace fxview
