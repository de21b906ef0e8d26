#pragma once
// Checks a PyTorch zip archive's tensor storages before LibTorch reads them: LibTorch's loader
// trusts the pickled sizes, so a storage record cut short inside an intact zip (a damaged copy,
// or a hostile file) is read past its end (vit_b_16 with one weight cut to 64 bytes crashed
// fxtrace with SIGSEGV). No LibTorch here: the pickles are scanned, not run.

#include <cstdint>
#include <string>
#include <vector>

namespace fxview {

class ZipArchive;

// One storage a pickle names: its persistent id ('storage', torch.FloatStorage, key, location,
// numel), as torch.save and torch.jit.save write it.
struct StorageRef {
    std::string type; // "torch.FloatStorage", "torch.UntypedStorage" ...
    std::string key;  // "0": the record data/0 beside the pickle
    std::uint64_t numel = 0;
};

// The storages `pickle` refers to, in order. Opcodes it does not know end the scan early (what
// was found so far is returned): a check, not a reader.
std::vector<StorageRef> storagesIn(const std::string& pickle);

// Bytes per element of a storage type; 0 when unknown.
std::uint64_t storageElementSize(const std::string& type);

// "" when every storage of the archive's data.pkl and constants.pkl is whole; else one sentence
// naming the first record that is smaller than its tensor needs, or a member whose declared size
// is absurd for the file (a zip bomb).
std::string checkStorages(ZipArchive& zip);

} // namespace fxview
