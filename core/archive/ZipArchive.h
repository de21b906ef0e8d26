#pragma once
// Reads a zip's directory and its stored (uncompressed) members without LibTorch: how fxview
// tells what a file is before LibTorch sees it, and reads a torch.export archive's graph (the
// JSON) without loading the weights beside it. torch.save and torch.export.save both store.

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxview {

class ZipArchive {
public:
    struct Entry {
        std::string name;
        std::uint16_t method = 0; // 0: stored
        std::uint32_t crc32 = 0;  // as the directory says: what the member's bytes hash to
        std::uint64_t compressedSize = 0;
        std::uint64_t uncompressedSize = 0;
        std::uint64_t localHeaderOffset = 0;
        // Where the next member's header (or the directory) starts: no member's bytes may run
        // into another's, so that each is read once (65,000 entries naming one 4 MB member were
        // each read and copied).
        std::uint64_t limit = 0;
    };

    // Opens `path` and reads its central directory; false (and a reason) if it has none, the
    // directory runs past the end of the file (a cut download), or it lies: a name twice,
    // members whose bytes overlap, a stored member with two sizes.
    bool open(const std::string& path, std::string& why);
    // The same for a zip stored inside the file at [offset, offset + length): a .pt2's members
    // are torch.save archives, zips of their own.
    bool openRange(const std::string& path, std::uint64_t offset, std::uint64_t length,
                   std::string& why);
    const std::vector<Entry>& entries() const { return entries_; }
    // Whether the directory is zip64's (an archive past 4 GiB); its entries are read all the same.
    bool zip64() const { return zip64_; }
    std::uint64_t size() const { return size_; }
    // By a hash of the names: a directory of 65,000 entries is looked up as fast as one of 10.
    const Entry* find(const std::string& name) const;
    // A stored member's bytes; nullopt when it is compressed, cut short, or longer than
    // `maxBytes` (checked before anything is read).
    std::optional<std::string> read(const Entry& entry, std::uint64_t maxBytes = UINT64_MAX);
    // Where a stored member's bytes start in the file; nullopt when it is compressed or they
    // would run past the end.
    std::optional<std::uint64_t> dataOffset(const Entry& entry);
    // The bytes at [offset, offset + length) of the file itself.
    bool readRange(std::uint64_t offset, std::uint64_t length, std::vector<unsigned char>& out);

private:
    std::ifstream in_;
    std::uint64_t base_ = 0; // where the zip starts in the file
    std::uint64_t size_ = 0;
    bool zip64_ = false;
    std::vector<Entry> entries_;
    std::unordered_map<std::string, std::size_t> index_; // name -> entries_ position

    // Sets each entry's limit; false (and why) when two members' bytes overlap or one runs
    // into the directory.
    bool placeMembers(std::uint64_t directoryOffset, std::string& why);
};

} // namespace fxview
