#pragma once
// A piece of one node's value, as the Values view asks for it and the engine answers: a 2-D
// slice (rows x columns) of a tensor, or a stack of them (planes: a feature map's channels),
// with every other dimension held at one index. Plain data: it crosses the engine protocol and
// the window formats it without LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include "RunRecord.h"

namespace fxview {

// At most this many elements travel in one slice (32 MB as float64): a bigger ask is cut to
// fewer planes, then fewer rows.
constexpr std::int64_t kMaxSliceElements = std::int64_t(1) << 22;

struct ValueSliceRequest {
    // The module Step Into is inside ("layer1.0"), or "" for the model's own graph.
    std::string frame;
    std::string node;
    // A tensor the node's module holds ("weight", "bias" of a call_module), or "" for the
    // node's output.
    std::string weight;
    // Into a tuple or list output: the item's index at each level ({1} is output[1]).
    std::vector<std::int64_t> item;
    // One index per dimension; the entries of the axes below are ignored.
    std::vector<std::int64_t> index;
    std::int64_t planeAxis = -1, rowAxis = -1, colAxis = -1; // -1: not shown
    std::int64_t planeStart = 0, planeCount = 1;
    std::int64_t rowStart = 0, rowCount = 1;
    std::int64_t colStart = 0, colCount = 1;
};

struct ValueSlice {
    std::string error; // why there is no slice, one sentence; the rest is empty then
    // Why the numbers may not be what the node produced, or which run they are from: "changed in
    // place by a later node since it ran", "the value of its last run (of 3)".
    std::string note;
    ValueSummary summary;      // the whole tensor: shape, dtype, statistics, quantization
    ValueSliceRequest request; // what was asked, cut to what was sent
    // planeCount * rowCount * colCount elements, planes outermost. Floating and quantized
    // tensors fill `reals` (a quantized one its dequantized values, and `ints` its integers);
    // complex ones `reals` and `imags`; integer and bool ones `ints`. Every dtype fxview runs is
    // exact in these: float64 holds bfloat16, float16 and float32 values exactly.
    std::vector<double> reals, imags;
    std::vector<std::int64_t> ints;

    std::size_t size() const;
    // The element at (plane, row, col) as PyTorch would print it in full: the shortest decimal
    // that reads back as the same value of its dtype ("0.1", "-3", "True", "(1+2j)"); a
    // quantized value as its dequantized float.
    std::string text(std::int64_t plane, std::int64_t row, std::int64_t col) const;
    // The number a colour map uses: the real value, an int, |z| for a complex one.
    double number(std::int64_t plane, std::int64_t row, std::int64_t col) const;
};

// The default slice of a value with this shape: the last two dimensions as rows and columns, every
// other index 0, the first rows and columns that fit; with `planes`, a 4-D [N, C, H, W] (or 3-D
// [C, H, W]) value's channels as planes, the whole of each.
ValueSliceRequest defaultSlice(const std::vector<std::int64_t>& shape, bool planes);

// Where a file of a node's value goes: torch.save's format or NumPy's .npy.
enum class ValueFileFormat { TorchSave, Npy };

struct SaveValueRequest {
    ValueSliceRequest value; // frame, node, weight and item; the slice fields are ignored
    ValueFileFormat format = ValueFileFormat::TorchSave;
};

} // namespace fxview
