#include "ZipArchive.h"

#include <filesystem>
#include <unordered_set>

namespace fxview {

namespace {

std::uint32_t le32(const unsigned char* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint16_t le16(const unsigned char* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

} // namespace

bool ZipArchive::readRange(std::uint64_t offset, std::uint64_t length,
                           std::vector<unsigned char>& out) {
    if (offset > size_ || length > size_ - offset)
        return false;
    out.resize(length);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(base_ + offset));
    in_.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
    return static_cast<std::uint64_t>(in_.gcount()) == length;
}

bool ZipArchive::open(const std::string& path, std::string& why) {
    std::error_code ec;
    std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) {
        why = "it cannot be read";
        return false;
    }
    return openRange(path, 0, size, why);
}

bool ZipArchive::openRange(const std::string& path, std::uint64_t offset, std::uint64_t length,
                           std::string& why) {
    base_ = offset;
    size_ = length;
    in_.open(path, std::ios::binary);
    if (!in_) {
        why = "it cannot be read";
        return false;
    }
    const std::uint64_t eocdSize = 22;
    why = "its zip directory is missing or cut short";
    if (size_ < eocdSize)
        return false;
    // The end-of-central-directory record sits in the last 64 KiB (it may carry a comment).
    std::uint64_t tailStart = size_ > 65535 + eocdSize ? size_ - 65535 - eocdSize : 0;
    std::vector<unsigned char> tail;
    if (!readRange(tailStart, size_ - tailStart, tail))
        return false;
    for (std::size_t pos = tail.size() - eocdSize + 1; pos-- > 0;) {
        if (le32(&tail[pos]) != 0x06054b50)
            continue;
        std::uint16_t count = le16(&tail[pos + 10]);
        std::uint32_t cdSize = le32(&tail[pos + 12]);
        std::uint32_t cdOffset = le32(&tail[pos + 16]);
        if (cdOffset == 0xFFFFFFFF || count == 0xFFFF) {
            zip64_ = true;
            return true;
        }
        std::vector<unsigned char> cd;
        if (!readRange(cdOffset, cdSize, cd))
            return false;
        // A member listed twice is read (and scanned) twice by whoever walks the directory:
        // 65,535 copies of one big pickle took hours. No writer of these archives repeats one.
        std::unordered_set<std::string> names;
        std::size_t p = 0;
        for (int i = 0; i < count; ++i) {
            if (p + 46 > cd.size() || le32(&cd[p]) != 0x02014b50)
                return false;
            Entry e;
            e.method = le16(&cd[p + 10]);
            e.compressedSize = le32(&cd[p + 20]);
            e.uncompressedSize = le32(&cd[p + 24]);
            std::uint16_t nameLen = le16(&cd[p + 28]);
            std::uint16_t extraLen = le16(&cd[p + 30]);
            std::uint16_t commentLen = le16(&cd[p + 32]);
            e.localHeaderOffset = le32(&cd[p + 42]);
            if (p + 46 + nameLen > cd.size())
                return false;
            e.name.assign(reinterpret_cast<const char*>(&cd[p + 46]), nameLen);
            if (!names.insert(e.name).second) {
                why = "its zip directory lists " + e.name + " more than once";
                entries_.clear();
                return false;
            }
            entries_.push_back(e);
            p += 46 + nameLen + extraLen + commentLen;
        }
        why.clear();
        return true;
    }
    return false;
}

const ZipArchive::Entry* ZipArchive::find(const std::string& name) const {
    for (const Entry& e : entries_)
        if (e.name == name)
            return &e;
    return nullptr;
}

std::optional<std::uint64_t> ZipArchive::dataOffset(const Entry& e) {
    std::vector<unsigned char> header;
    if (e.method != 0 || !readRange(e.localHeaderOffset, 30, header) ||
        le32(header.data()) != 0x04034b50)
        return std::nullopt;
    std::uint64_t start = e.localHeaderOffset + 30ull + le16(&header[26]) + le16(&header[28]);
    if (start > size_ || e.compressedSize > size_ - start)
        return std::nullopt;
    return start;
}

std::optional<std::string> ZipArchive::read(const Entry& e) {
    std::optional<std::uint64_t> start = dataOffset(e);
    std::vector<unsigned char> content;
    if (!start || !readRange(*start, e.compressedSize, content))
        return std::nullopt;
    return std::string(content.begin(), content.end());
}

} // namespace fxview
