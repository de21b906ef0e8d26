#include "TorchSave.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickler.h>
#include <torch/version.h>

#include <cstring>

#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ModelPrivate.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// Bytes in memory (a string, or a member of a mapped file) for LibTorch's zip reader.
class BytesReader : public caffe2::serialize::ReadAdapterInterface {
public:
    BytesReader(const char* data, size_t size) : data_(data), size_(size) {}
    size_t size() const override { return size_; }
    size_t read(uint64_t pos, void* buf, size_t n, const char*) const override {
        if (pos >= size_)
            return 0;
        n = std::min<size_t>(n, size_ - pos);
        std::memcpy(buf, data_ + pos, n);
        return n;
    }

private:
    const char* data_;
    size_t size_;
};

} // namespace

// A file mapped for as long as it lives: the pages LibTorch reads come from the page cache, not
// from a copy of the whole member in memory. The mapping is private and writable, so a tensor
// viewing it that a program changes in place (a buffer mutation) gets copies of the pages it
// writes and the file never changes.
class MappedFile {
public:
    explicit MappedFile(const std::string& path) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            throw std::runtime_error("its file cannot be opened again to read its weights");
        struct stat st {};
        if (::fstat(fd, &st) == 0 && st.st_size > 0) {
            size_ = static_cast<size_t>(st.st_size);
            void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
            data_ = p == MAP_FAILED ? nullptr : static_cast<const char*>(p);
        }
        ::close(fd);
        if (!data_)
            throw std::runtime_error("its file cannot be mapped to read its weights");
    }
    ~MappedFile() { ::munmap(const_cast<char*>(data_), size_); }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    const char* data() const { return data_; }
    size_t size() const { return size_; }

private:
    const char* data_ = nullptr;
    size_t size_ = 0;
};

namespace {

// An object read for torch._utils._rebuild_parameter(data, requires_grad, hooks): its one slot
// is the tensor.
c10::IValue unwrapParameters(c10::IValue v) {
    if (v.isObject())
        return v.toObjectRef().getSlot(0);
    if (v.isTuple()) {
        std::vector<c10::IValue> items;
        for (const c10::IValue& item : v.toTupleRef().elements())
            items.push_back(unwrapParameters(item));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    return v;
}

// torch.save's state dicts hold nn.Parameters, pickled as torch._utils._rebuild_parameter(...),
// which LibTorch's unpickler does not know: it is read as an object holding the tensor.
c10::IValue readTorchSave(std::unique_ptr<BytesReader> bytes, const std::string& what) {
    auto cu = std::make_shared<jit::CompilationUnit>();
    auto resolver = [cu](const c10::QualifiedName& name) -> c10::StrongTypePtr {
        if (name.qualifiedName() != "torch._utils._rebuild_parameter" &&
            name.qualifiedName() != "torch._utils._rebuild_parameter_with_state")
            throw std::runtime_error("it holds a " + name.qualifiedName() + ", not tensors");
        auto type = c10::ClassType::create(name, cu);
        type->addAttribute("data", c10::TensorType::get());
        return c10::StrongTypePtr(cu, type);
    };
    auto loader = [](const c10::StrongTypePtr& type, c10::IValue args) {
        auto object = c10::ivalue::Object::create(type, 1);
        c10::IValue data = args.isTuple() ? args.toTupleRef().elements().at(0) : args;
        // _rebuild_parameter(data, requires_grad, hooks): the parameter requires grad as saved,
        // as torch.load's does (a run's kernels may depend on it: core/plan/EagerGrad.h).
        if (args.isTuple() && args.toTupleRef().elements().size() > 1 &&
            args.toTupleRef().elements()[1].isBool() && args.toTupleRef().elements()[1].toBool() &&
            data.isTensor() && !data.toTensor().requires_grad()) {
            at::Tensor t = data.toTensor();
            if (t.is_floating_point() || t.is_complex())
                t.set_requires_grad(true);
        }
        object->setSlot(0, data);
        return object;
    };
    try {
        caffe2::serialize::PyTorchStreamReader reader(std::move(bytes));
        return unwrapParameters(jit::readArchiveAndTensors("data", "", "", resolver, loader,
                                                           c10::Device(c10::kCPU), reader));
    } catch (const std::exception& e) {
        throw std::runtime_error("its " + what + " cannot be read (" + firstLineOf(e) + ")");
    }
}

} // namespace

c10::IValue readTorchSave(const std::string& bytes, const std::string& what) {
    return readTorchSave(std::make_unique<BytesReader>(bytes.data(), bytes.size()), what);
}

std::map<std::string, at::Tensor> readTensorDict(const std::string& path, std::uint64_t offset,
                                                 std::uint64_t length, const std::string& what) {
    MappedFile file(path);
    if (offset > file.size() || length > file.size() - offset)
        throw std::runtime_error("its " + what + " run past the end of the file");
    c10::IValue dict =
        readTorchSave(std::make_unique<BytesReader>(file.data() + offset, length), what);
    if (!dict.isGenericDict())
        throw std::runtime_error("its " + what + " is not a dict of tensors");
    std::map<std::string, at::Tensor> tensors;
    for (const auto& item : dict.toGenericDict()) {
        c10::IValue v = unwrapParameters(item.value());
        if (item.key().isString() && v.isTensor())
            tensors[item.key().toStringRef()] = v.toTensor();
    }
    return tensors;
}

RawStorages::RawStorages(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {}

at::Tensor RawStorages::tensor(std::uint64_t offset, std::uint64_t length, c10::ScalarType dtype,
                               const std::vector<std::int64_t>& sizes,
                               const std::vector<std::int64_t>& strides, std::int64_t storageOffset,
                               const std::string& what) const {
    if (offset > file_->size() || length > file_->size() - offset)
        throw std::runtime_error("its " + what + " runs past the end of the file");
    const auto elementSize = static_cast<std::uint64_t>(c10::elementSize(dtype));
    if (length == 0) // PyTorch saves an empty storage as a 0-byte record and reads zeros
        return at::zeros(sizes, at::TensorOptions().dtype(dtype));
    if (length % elementSize != 0)
        throw std::runtime_error("its " + what + " holds " + std::to_string(length) +
                                 " bytes, not a whole number of " + c10::toString(dtype) +
                                 " elements");
    // The last element the view reaches must lie inside the record (a hostile config could
    // point it anywhere in memory).
    const std::uint64_t elements = length / elementSize;
    bool empty = false, overflow = storageOffset < 0;
    std::int64_t last = storageOffset, reach = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0 || strides[d] < 0)
            throw std::runtime_error("its " + what + " has a negative size or stride");
        empty = empty || sizes[d] == 0;
        overflow = overflow ||
                   __builtin_mul_overflow(sizes[d] > 0 ? sizes[d] - 1 : 0, strides[d], &reach) ||
                   __builtin_add_overflow(last, reach, &last);
    }
    if (overflow || (!empty && static_cast<std::uint64_t>(last) >= elements))
        throw std::runtime_error("its " + what + " is viewed past the " + std::to_string(elements) +
                                 " elements its record holds");
    std::shared_ptr<MappedFile> keep = file_;
    at::Tensor storage = at::from_blob(
        const_cast<char*>(file_->data()) + offset, {static_cast<std::int64_t>(elements)},
        [keep](void*) {}, at::TensorOptions().dtype(dtype));
    return storage.as_strided(sizes, strides, storageOffset);
}

c10::ScalarType scalarTypeOfExported(int code) {
    switch (code) {
    case 1:
        return c10::kByte;
    case 2:
        return c10::kChar;
    case 3:
        return c10::kShort;
    case 4:
        return c10::kInt;
    case 5:
        return c10::kLong;
    case 6:
        return c10::kHalf;
    case 7:
        return c10::kFloat;
    case 8:
        return c10::kDouble;
    case 9:
        return c10::ScalarType::ComplexHalf;
    case 10:
        return c10::kComplexFloat;
    case 11:
        return c10::kComplexDouble;
    case 12:
        return c10::kBool;
    case 13:
        return c10::kBFloat16;
    case 28:
        return c10::ScalarType::UInt16;
    case 29:
        return c10::ScalarType::Float8_e4m3fn;
    case 30:
        return c10::ScalarType::Float8_e5m2;
    case 31:
        return c10::ScalarType::Float8_e4m3fnuz;
    case 32:
        return c10::ScalarType::Float8_e5m2fnuz;
#if TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 7
    case 33:
        return c10::ScalarType::Float8_e8m0fnu;
#endif
    case 34:
        return c10::ScalarType::UInt32;
    case 35:
        return c10::ScalarType::UInt64;
    default:
        // Never a guess: a tensor read as the wrong dtype would show wrong numbers.
        throw std::runtime_error(
            "its program stores a tensor of dtype code " + std::to_string(code) +
            (code == 33 ? " (float8_e8m0fnu, which LibTorch 2.7 and later know)"
                        : ", which this fxview does not know (a newer PyTorch's)"));
    }
}

namespace {

// LibTorch pickles a List[Tensor] (List[int], ...) as torch.jit._pickle.build_tensorlist(...),
// which torch.load's default weights_only=True refuses; a list of Any pickles as Python's list.
c10::IValue withPlainLists(const c10::IValue& value, int depth = 0) {
    if (depth > 64) // outputs nest a few levels; deeper is kept as LibTorch pickles it
        return value;
    if (value.isList()) {
        c10::impl::GenericList plain(c10::AnyType::get());
        for (const c10::IValue& item : value.toListRef())
            plain.push_back(withPlainLists(item, depth + 1));
        return plain;
    }
    if (value.isTuple()) {
        std::vector<c10::IValue> items;
        for (const c10::IValue& item : value.toTupleRef().elements())
            items.push_back(withPlainLists(item, depth + 1));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    if (value.isGenericDict()) {
        c10::impl::GenericDict plain(value.toGenericDict().keyType(), c10::AnyType::get());
        for (const auto& item : value.toGenericDict())
            plain.insert(item.key(), withPlainLists(item.value(), depth + 1));
        return plain;
    }
    return value;
}

} // namespace

std::vector<char> torchSaveBytes(const c10::IValue& value) {
    // torch::jit::pickle_save, with the Pickler's tag_aggregates off.
    std::vector<char> pickled;
    torch::jit::Pickler pickler(
        [&](const char* bytes, std::size_t size) {
            pickled.insert(pickled.end(), bytes, bytes + size);
        },
        nullptr, nullptr, nullptr, nullptr, /*tag_aggregates=*/false);
    pickler.protocol();
    pickler.pushIValue(withPlainLists(value));
    pickler.stop();
    std::vector<char> archive;
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* bytes, std::size_t size) {
        const char* from = static_cast<const char*>(bytes);
        archive.insert(archive.end(), from, from + size);
        return size;
    });
    torch::jit::writeArchiveAndTensors("data", pickled.data(), pickled.size(), pickler.tensorData(),
                                       writer);
    writer.writeEndOfFile();
    return archive;
}

} // namespace fxview
