// The Values view's numbers: a slice of a LibTorch value cut as ValueSliceRequest asks, and a
// whole value written as torch.save or NumPy would write it.

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>

#include "ModelPrivate.h"
#include "TorchSave.h"
#include "TorchValues.h"
#include "ValueSlice.h"

namespace fxview {

namespace {

// What `item` names inside a tuple or list value; throws a sentence when there is nothing.
c10::IValue itemAt(const c10::IValue& value, const std::vector<std::int64_t>& item,
                   std::string& path) {
    c10::IValue at = value;
    for (std::int64_t i : item) {
        std::vector<c10::IValue> items;
        if (at.isTuple())
            items = at.toTupleRef().elements().vec();
        else if (at.isList())
            items = at.toListRef().vec();
        if (i < 0 || i >= static_cast<std::int64_t>(items.size()))
            throw std::runtime_error("it has no item " + path + "[" + std::to_string(i) + "]");
        path += "[" + std::to_string(i) + "]";
        at = items[static_cast<std::size_t>(i)];
    }
    return at;
}

// The tensor `item` names; throws a sentence when it is something else.
at::Tensor tensorAt(const c10::IValue& value, const std::vector<std::int64_t>& item) {
    std::string path;
    c10::IValue at = itemAt(value, item, path);
    if (!at.isTensor() || !at.toTensor().defined())
        throw std::runtime_error((path.empty() ? "it" : "its item " + path) + " is a " +
                                 summarize(at, false).type + ", not a tensor");
    return at.toTensor();
}

// Keeps an axis and its window inside the tensor; -1 stays "not shown".
void clampAxis(std::int64_t& axis, std::int64_t& start, std::int64_t& count,
               const std::vector<std::int64_t>& shape) {
    const std::int64_t rank = static_cast<std::int64_t>(shape.size());
    if (axis < 0 || axis >= rank) {
        axis = -1;
        start = 0;
        count = 1;
        return;
    }
    const std::int64_t size = shape[static_cast<std::size_t>(axis)];
    start = std::clamp<std::int64_t>(start, 0, std::max<std::int64_t>(0, size - 1));
    count = std::clamp<std::int64_t>(count, 0, size - start);
}

template <typename T> std::vector<T> flat(const at::Tensor& t) {
    at::Tensor c = t.contiguous();
    const T* data = c.data_ptr<T>();
    return std::vector<T>(data, data + c.numel());
}

} // namespace

ValueSlice sliceValue(const c10::IValue& value, ValueSliceRequest r) {
    ValueSlice slice;
    slice.request = r; // an error says what it answers; a slice the request cut to it
    at::Tensor t;
    try {
        t = tensorAt(value, r.item);
    } catch (const std::exception& e) {
        slice.error = "Node '" + r.node + "' holds no tensor to show: " + e.what() + ".";
        return slice;
    }
    if (t.device().type() != c10::kCPU)
        t = t.cpu();
    slice.summary = summarize(t, true);
    const std::vector<std::int64_t> shape = t.sizes().vec();
    const std::int64_t rank = t.dim();
    r.index.resize(static_cast<std::size_t>(rank), 0);
    clampAxis(r.planeAxis, r.planeStart, r.planeCount, shape);
    clampAxis(r.rowAxis, r.rowStart, r.rowCount, shape);
    clampAxis(r.colAxis, r.colStart, r.colCount, shape);
    if ((r.rowAxis >= 0 && (r.rowAxis == r.colAxis || r.rowAxis == r.planeAxis)) ||
        (r.colAxis >= 0 && r.colAxis == r.planeAxis)) {
        slice.error = "The slice of '" + r.node +
                      "' names one dimension twice: pick a different "
                      "dimension for rows and columns.";
        return slice;
    }
    // Cut to what travels: fewer planes, then fewer rows.
    std::int64_t perPlane = std::max<std::int64_t>(1, r.rowCount * r.colCount);
    r.planeCount = std::min(r.planeCount, std::max<std::int64_t>(1, kMaxSliceElements / perPlane));
    if (r.rowCount * r.colCount > kMaxSliceElements)
        r.rowCount = kMaxSliceElements / std::max<std::int64_t>(1, r.colCount);

    // Every other dimension at its index; the shown ones narrowed to their windows, then put
    // in the order planes, rows, columns.
    at::Tensor s = t;
    std::vector<std::int64_t> order;
    for (std::int64_t d = 0; d < rank; ++d) {
        std::int64_t& i = r.index[static_cast<std::size_t>(d)];
        const std::int64_t size = shape[static_cast<std::size_t>(d)];
        if (d == r.planeAxis)
            s = s.narrow(d, r.planeStart, r.planeCount);
        else if (d == r.rowAxis)
            s = s.narrow(d, r.rowStart, r.rowCount);
        else if (d == r.colAxis)
            s = s.narrow(d, r.colStart, r.colCount);
        else {
            i = std::clamp<std::int64_t>(i, 0, std::max<std::int64_t>(0, size - 1));
            s = size == 0 ? s : s.narrow(d, i, 1);
        }
    }
    for (std::int64_t axis : {r.planeAxis, r.rowAxis, r.colAxis})
        if (axis >= 0)
            order.push_back(axis);
    for (std::int64_t d = 0; d < rank; ++d)
        if (std::find(order.begin(), order.end(), d) == order.end())
            order.push_back(d);
    if (rank > 0)
        s = s.permute(order);
    s = s.reshape({-1});
    if (s.numel() != r.planeCount * r.rowCount * r.colCount) // a zero-size dimension held
        s = s.narrow(0, 0, 0), r.planeCount = r.rowCount = r.colCount = 0;
    slice.request = r;

    if (s.is_quantized()) {
        slice.ints = flat<std::int64_t>(s.int_repr().to(at::kLong));
        slice.reals = flat<double>(s.dequantize().to(at::kDouble));
    } else if (s.is_complex()) {
        at::Tensor z = s.to(at::kComplexDouble);
        slice.reals = flat<double>(at::real(z).contiguous());
        slice.imags = flat<double>(at::imag(z).contiguous());
    } else if (s.is_floating_point()) {
        slice.reals = flat<double>(s.to(at::kDouble));
    } else {
        slice.ints = flat<std::int64_t>(s.to(at::kLong));
    }
    return slice;
}

namespace {

// NumPy's descr for a dtype .npy can hold, "" for one it cannot (bfloat16, quantized).
std::string npyDescr(c10::ScalarType type) {
    switch (type) {
    case c10::kFloat:
        return "<f4";
    case c10::kDouble:
        return "<f8";
    case c10::kHalf:
        return "<f2";
    case c10::kBool:
        return "|b1";
    case c10::kByte:
        return "|u1";
    case c10::kChar:
        return "|i1";
    case c10::kShort:
        return "<i2";
    case c10::kInt:
        return "<i4";
    case c10::kLong:
        return "<i8";
    case c10::kComplexFloat:
        return "<c8";
    case c10::kComplexDouble:
        return "<c16";
    default:
        return {};
    }
}

} // namespace

std::string writeValueFile(const c10::IValue& value, const std::vector<std::int64_t>& item,
                           bool npy, const std::string& path, const std::string& what) {
    try {
        if (!npy) {
            std::string where;
            std::vector<char> bytes = torchSaveBytes(itemAt(value, item, where)); // a zip
            std::ofstream file(path, std::ios::binary);
            file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            return file ? std::string()
                        : "Cannot write '" + path +
                              "': check that its folder exists and is writable.";
        }
        at::Tensor t = tensorAt(value, item).cpu().contiguous();
        std::string descr = npyDescr(t.scalar_type());
        if (descr.empty())
            return "NumPy has no " + dtypeName(t.scalar_type()) + ", so " + what +
                   " cannot be saved as .npy: save it as .pt (torch.save) instead.";
        // .npy version 1.0: magic, header length, a Python dict padded to 64 bytes, the data.
        std::string shape = "(";
        for (std::int64_t d : t.sizes())
            shape += std::to_string(d) + ", ";
        if (t.dim() > 1)
            shape.erase(shape.size() - 2);
        else if (t.dim() == 1)
            shape.erase(shape.size() - 1);
        shape += ")";
        std::string header =
            "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        std::size_t total = 10 + header.size() + 1;
        header.append((64 - total % 64) % 64, ' ');
        header += '\n';
        std::ofstream file(path, std::ios::binary);
        file.write("\x93NUMPY\x01\x00", 8);
        std::uint16_t length = static_cast<std::uint16_t>(header.size());
        char le[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
        file.write(le, 2);
        file.write(header.data(), static_cast<std::streamsize>(header.size()));
        file.write(static_cast<const char*>(t.data_ptr()),
                   static_cast<std::streamsize>(t.numel() * t.element_size()));
        if (file)
            return {};
    } catch (const std::exception& e) {
        return "Cannot save " + what + " to '" + path + "': " + firstLineOf(e) + ".";
    }
    return "Cannot write '" + path + "': check that its folder exists and is writable.";
}

} // namespace fxview
