#include "ValueSlice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fxview {

namespace {

// `d` rounded to the nearest value of a binary floating format with `mantissa` stored bits and
// smallest normal exponent `minExponent` (ties to even, as every IEEE conversion rounds).
double roundToFormat(double d, int mantissa, int minExponent, double largest) {
    if (!std::isfinite(d) || d == 0)
        return d;
    int e = 0;
    std::frexp(std::fabs(d), &e); // |d| = m * 2^e, m in [0.5, 1)
    double quantum = std::ldexp(1.0, std::max(e - 1, minExponent) - mantissa);
    double r = std::nearbyint(std::fabs(d) / quantum) * quantum;
    if (r > largest)
        r = INFINITY;
    return std::copysign(r, d);
}

double roundToDtype(double d, const std::string& dtype) {
    if (dtype == "float32" || dtype == "complex64" || dtype.rfind("q", 0) == 0)
        return static_cast<double>(static_cast<float>(d));
    if (dtype == "bfloat16")
        return roundToFormat(d, 7, -126, 3.3895313892515355e38);
    if (dtype == "float16" || dtype == "complex32")
        return roundToFormat(d, 10, -14, 65504.0);
    return d; // float64, complex128
}

// The shortest decimal that reads back as `v` in `dtype`, laid out as Python's repr lays out a
// float: fixed from 1e-4 up to 1e16 ("100.0", "0.001"), scientific outside ("1e-05").
std::string shortest(double v, const std::string& dtype) {
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char text[64];
    int digits = 1;
    for (; digits < 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
        if (roundToDtype(std::strtod(text, nullptr), dtype) == v)
            break;
    }
    std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
    int exponent = std::atoi(std::strchr(text, 'e') + 1);
    if (exponent < -4 || exponent >= 16)
        return text;
    // Fixed, from the same shortest digits (zeros where they end), not the exact binary value:
    // a float32 3e15 is "3000000000000000.0", not "3000000028082176.0".
    std::string digitsText;
    for (const char* c = text; *c && *c != 'e'; ++c)
        if (*c >= '0' && *c <= '9')
            digitsText += *c;
    std::string s = v < 0 ? "-" : "";
    if (exponent >= 0) {
        digitsText.resize(std::max<std::size_t>(digitsText.size(), exponent + 1), '0');
        s += digitsText.substr(0, static_cast<std::size_t>(exponent) + 1) + ".";
        std::string fraction = digitsText.substr(static_cast<std::size_t>(exponent) + 1);
        s += fraction.empty() ? "0" : fraction;
    } else {
        s += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digitsText;
    }
    return s;
}

bool isComplex(const std::string& dtype) {
    return dtype.rfind("complex", 0) == 0;
}

} // namespace

std::size_t ValueSlice::size() const {
    return static_cast<std::size_t>(request.planeCount * request.rowCount * request.colCount);
}

static std::size_t offsetOf(const ValueSliceRequest& r, std::int64_t plane, std::int64_t row,
                            std::int64_t col) {
    return static_cast<std::size_t>((plane * r.rowCount + row) * r.colCount + col);
}

std::string ValueSlice::text(std::int64_t plane, std::int64_t row, std::int64_t col) const {
    std::size_t at = offsetOf(request, plane, row, col);
    const std::string& dtype = summary.dtype;
    if (dtype == "bool")
        return at < ints.size() && ints[at] ? "True" : "False";
    if (at < reals.size()) {
        if (isComplex(dtype) && at < imags.size()) {
            std::string im = shortest(imags[at], dtype);
            if (im[0] != '-')
                im = "+" + im;
            return "(" + shortest(reals[at], dtype) + im + "j)";
        }
        return shortest(reals[at], dtype);
    }
    return at < ints.size() ? std::to_string(ints[at]) : std::string();
}

double ValueSlice::number(std::int64_t plane, std::int64_t row, std::int64_t col) const {
    std::size_t at = offsetOf(request, plane, row, col);
    if (at < reals.size())
        return at < imags.size() ? std::hypot(reals[at], imags[at]) : reals[at];
    return at < ints.size() ? static_cast<double>(ints[at]) : 0.0;
}

ValueSliceRequest defaultSlice(const std::vector<std::int64_t>& shape, bool planes) {
    ValueSliceRequest r;
    const std::int64_t rank = static_cast<std::int64_t>(shape.size());
    r.index.assign(shape.size(), 0);
    if (rank >= 1) {
        r.colAxis = rank - 1;
        r.colCount = shape.back();
    }
    if (rank >= 2) {
        r.rowAxis = rank - 2;
        r.rowCount = shape[static_cast<std::size_t>(rank - 2)];
    }
    if (planes && rank >= 3) {
        r.planeAxis = rank - 3;
        r.planeCount = shape[static_cast<std::size_t>(rank - 3)];
    }
    // Cut to what travels: fewer planes first, then fewer rows.
    std::int64_t perPlane = std::max<std::int64_t>(1, r.rowCount * r.colCount);
    r.planeCount = std::max<std::int64_t>(1, std::min(r.planeCount, kMaxSliceElements / perPlane));
    if (r.rowCount * r.colCount > kMaxSliceElements)
        r.rowCount =
            std::max<std::int64_t>(1, kMaxSliceElements / std::max<std::int64_t>(1, r.colCount));
    return r;
}

} // namespace fxview
