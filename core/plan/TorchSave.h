#pragma once
// Core-internal: what torch.save wrote, held in memory (a member of a .pt2), read by LibTorch's
// unpickler. Include only from core's .cpp files.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

namespace fxview {

// The pickled value: a dict of tensors, a tuple of example inputs... nn.Parameters come back as
// their tensors. Throws std::runtime_error("its WHAT cannot be read (...)").
c10::IValue readTorchSave(const std::string& bytes, const std::string& what);

// The state dict or constants torch.save wrote at [offset, offset + length) of the file at
// `path` (a stored member of a .pt2), read through a read-only mapping: name -> tensor.
std::map<std::string, at::Tensor> readTensorDict(const std::string& path, std::uint64_t offset,
                                                 std::uint64_t length, const std::string& what);

// `value` as torch.save writes it (a zip holding data.pkl and data/N), without the type tags
// TorchScript's own pickles carry (restore_type_tag), so that Python's torch.load reads it with
// its default weights_only=True: a dict of outputs comes back a plain dict.
std::vector<char> torchSaveBytes(const c10::IValue& value);

class MappedFile;

// The raw storages of a PT2 archive (data/weights/weight_N, 2.10 on), viewed where they lie in
// the file through one private mapping of it: a weight costs no memory until its pages are read.
class RawStorages {
public:
    explicit RawStorages(const std::string& path); // throws std::runtime_error("its …")
    // The tensor viewing the record at [offset, offset + length) as `sizes`, `strides` and
    // `storageOffset` (in elements) say; throws when the view would reach past the record.
    at::Tensor tensor(std::uint64_t offset, std::uint64_t length, c10::ScalarType dtype,
                      const std::vector<std::int64_t>& sizes,
                      const std::vector<std::int64_t>& strides, std::int64_t storageOffset,
                      const std::string& what) const;

private:
    std::shared_ptr<MappedFile> file_;
};

// schema.py's ScalarType code -> LibTorch's.
c10::ScalarType scalarTypeOfExported(int code);

} // namespace fxview
