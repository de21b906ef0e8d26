// One pair of values compared: every number they hold as float64, the five metrics, and A's
// value cast or quantized to stand in for B's (ComparisonValues.h).

#include "ComparisonValues.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "TorchValues.h"

namespace fxview {

namespace {

// Every number `value` holds (a tuple's, list's or dict's items one after the other) as flat
// float64 tensors, with their shapes ({-1} for a None); false if it holds something that is not
// a number.
bool numericParts(const c10::IValue& value, std::vector<at::Tensor>& parts,
                  std::vector<std::vector<std::int64_t>>& shapes) {
    if (value.isTensor()) {
        at::Tensor t = value.toTensor();
        if (!t.defined())
            return false;
        shapes.push_back(t.sizes().vec());
        if (t.is_quantized())
            t = t.dequantize();
        if (t.is_complex())
            t = at::view_as_real(t.resolve_conj());
        parts.push_back(t.to(at::kDouble).reshape({-1}));
        return true;
    }
    if (value.isDouble() || value.isInt() || value.isBool()) {
        shapes.push_back({});
        double number = value.isDouble() ? value.toDouble()
                        : value.isInt()  ? static_cast<double>(value.toInt())
                                         : static_cast<double>(value.toBool());
        parts.push_back(at::full({1}, number, at::kDouble));
        return true;
    }
    if (value.isNone()) { // an Optional left empty (an eval model's aux outputs): no numbers
        shapes.push_back({-1});
        return true;
    }
    if (value.isTuple()) {
        for (const c10::IValue& item : value.toTupleRef().elements())
            if (!numericParts(item, parts, shapes))
                return false;
        return true;
    }
    if (value.isGenericDict()) { // a detection model's losses or boxes, in insertion order
        for (const auto& item : value.toGenericDict())
            if (!numericParts(item.value(), parts, shapes))
                return false;
        return true;
    }
    if (value.isList()) {
        for (const c10::IValue& item : value.toListRef())
            if (!numericParts(item, parts, shapes))
                return false;
        return true;
    }
    return false;
}

std::string shapesText(const std::vector<std::vector<std::int64_t>>& shapes) {
    std::string text;
    for (const auto& shape : shapes)
        text += (text.empty() ? "" : ", ") + formatShape(shape);
    return text;
}

} // namespace

void measure(const c10::IValue& a, const c10::IValue& b, NodeDifference& row) {
    ValueSummary sa = summarize(a, false), sb = summarize(b, false);
    row.shapeA = shortDescription(sa);
    row.shapeB = shortDescription(sb);
    row.dtypeA = sa.dtype;
    row.dtypeB = sb.dtype;
    std::vector<at::Tensor> partsA, partsB;
    std::vector<std::vector<std::int64_t>> shapesA, shapesB;
    if (!numericParts(a, partsA, shapesA) || !numericParts(b, partsB, shapesB)) {
        row.compared = false;
        row.mismatch = !exactlyEqual(a, b);
        row.note = row.mismatch ? "not numbers, and they differ" : "not numbers; equal";
        return;
    }
    if (shapesA != shapesB) {
        row.compared = false;
        row.mismatch = true;
        row.note = "shapes differ: " + shapesText(shapesA) + " against " + shapesText(shapesB);
        return;
    }
    row.compared = true;
    row.mismatch = false;
    if (partsA.empty()) // Nones only
        return;
    at::Tensor x = partsA.size() == 1 ? partsA[0] : at::cat(partsA);
    at::Tensor y = partsB.size() == 1 ? partsB[0] : at::cat(partsB);
    row.elements = x.numel();
    if (row.elements == 0) {
        row.maxAbs = row.meanAbs = row.relL2 = 0;
        row.cosine = 1;
        row.sqnr = std::numeric_limits<double>::infinity();
        return;
    }
    // Equal values (equal infinities too) and NaN against NaN are no difference.
    at::Tensor same = at::eq(x, y).logical_or_(at::isnan(x).logical_and_(at::isnan(y)));
    at::Tensor d = at::where(same, at::zeros_like(x), x - y);
    at::Tensor absD = d.abs();
    double normA = at::linalg_vector_norm(x).item<double>();
    double normB = at::linalg_vector_norm(y).item<double>();
    double normD = at::linalg_vector_norm(d).item<double>();
    row.maxAbs = absD.max().item<double>();
    row.meanAbs = absD.mean().item<double>();
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (normD == 0) {
        row.relL2 = 0;
        row.cosine = 1;
        row.sqnr = inf;
        return;
    }
    row.relL2 = normA == 0 ? inf : normD / normA;
    row.cosine = normA == 0 || normB == 0 ? 0 : (x * y).sum().item<double>() / (normA * normB);
    row.sqnr = 20 * std::log10(normA / normD);
}

c10::IValue likeB(const c10::IValue& a, const c10::IValue& b, bool& fed) {
    if (a.isTensor() && b.isTensor()) {
        at::Tensor ta = a.toTensor(), tb = b.toTensor();
        if (!ta.defined() || !tb.defined() || ta.sizes() != tb.sizes()) {
            fed = false;
            return b;
        }
        if (ta.is_quantized())
            ta = ta.dequantize();
        if (!tb.is_quantized()) // a copy always: B's in-place ops must not change A's value
            return ta.to(tb.scalar_type(), false, true);
        if (tb.qscheme() == at::kPerTensorAffine)
            return at::quantize_per_tensor(ta.to(at::kFloat), tb.q_scale(), tb.q_zero_point(),
                                           tb.scalar_type());
        if (tb.qscheme() == at::kPerChannelAffine)
            return at::quantize_per_channel(ta.to(at::kFloat), tb.q_per_channel_scales(),
                                            tb.q_per_channel_zero_points(), tb.q_per_channel_axis(),
                                            tb.scalar_type());
        fed = false;
        return b;
    }
    if (a.isTuple() && b.isTuple() &&
        a.toTupleRef().elements().size() == b.toTupleRef().elements().size()) {
        std::vector<c10::IValue> items;
        for (std::size_t i = 0; i < a.toTupleRef().elements().size(); ++i)
            items.push_back(likeB(a.toTupleRef().elements()[i], b.toTupleRef().elements()[i], fed));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    if (a.isTensorList() && b.isTensorList() && a.toListRef().size() == b.toListRef().size()) {
        c10::List<at::Tensor> items;
        for (std::size_t i = 0; i < a.toListRef().size(); ++i)
            items.push_back(likeB(a.toListRef()[i], b.toListRef()[i], fed).toTensor());
        return items;
    }
    if (a.tagKind() == b.tagKind() && (a.isDouble() || a.isInt() || a.isBool()))
        return a;
    fed = !exactlyEqual(a, b) ? false : fed;
    return b;
}

c10::IValue heldCopy(const c10::IValue& value) {
    try {
        return value.deepcopy();
    } catch (const std::exception&) {
        return value;
    }
}

} // namespace fxview
