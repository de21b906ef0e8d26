#include "ZipArchive.h"

#include <algorithm>
#include <filesystem>

namespace fxview {

namespace {

std::uint32_t le32(const unsigned char* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint16_t le16(const unsigned char* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
std::uint64_t le64(const unsigned char* p) {
    return le32(p) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}

// A central directory entry's zip64 extra field (id 1): the 64-bit values of those of its sizes
// and offset that read 0xFFFFFFFF, in this order. False when the field is missing or short.
bool readZip64Extra(const unsigned char* extra, std::size_t length, ZipArchive::Entry& e) {
    std::size_t p = 0;
    while (p + 4 <= length) {
        std::uint16_t id = le16(extra + p), size = le16(extra + p + 2);
        if (p + 4 + size > length)
            return false;
        if (id == 1) {
            const unsigned char* field = extra + p + 4;
            std::size_t q = 0;
            for (std::uint64_t* v :
                 {&e.uncompressedSize, &e.compressedSize, &e.localHeaderOffset}) {
                if (*v != 0xFFFFFFFF)
                    continue;
                if (q + 8 > size)
                    return false;
                *v = le64(field + q);
                q += 8;
            }
            return true;
        }
        p += 4 + size;
    }
    return false;
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
        std::uint64_t count = le16(&tail[pos + 10]);
        std::uint64_t cdSize = le32(&tail[pos + 12]);
        std::uint64_t cdOffset = le32(&tail[pos + 16]);
        if (cdOffset == 0xFFFFFFFF || count == 0xFFFF || cdSize == 0xFFFFFFFF) {
            // zip64 (PyTorch writes it past 4 GiB): the locator just before this record says
            // where the zip64 end record with the 64-bit count, size and offset is.
            zip64_ = true;
            std::vector<unsigned char> locator, record;
            std::uint64_t at = tailStart + pos;
            if (at < 20 || !readRange(at - 20, 20, locator) || le32(locator.data()) != 0x07064b50)
                return false;
            if (!readRange(le64(&locator[8]), 56, record) || le32(record.data()) != 0x06064b50)
                return false;
            count = le64(&record[32]);
            cdSize = le64(&record[40]);
            cdOffset = le64(&record[48]);
        }
        std::vector<unsigned char> cd;
        if (!readRange(cdOffset, cdSize, cd))
            return false;
        // A member listed twice is read (and scanned) twice by whoever walks the directory:
        // 65,535 copies of one big pickle took hours. No writer of these archives repeats one.
        entries_.clear();
        index_.clear();
        std::size_t p = 0;
        if (count > cd.size() / 46) // each entry takes 46 bytes at least
            return false;
        for (std::uint64_t i = 0; i < count; ++i) {
            if (p + 46 > cd.size() || le32(&cd[p]) != 0x02014b50)
                return false;
            Entry e;
            e.method = le16(&cd[p + 10]);
            e.crc32 = le32(&cd[p + 16]);
            e.compressedSize = le32(&cd[p + 20]);
            e.uncompressedSize = le32(&cd[p + 24]);
            std::uint16_t nameLen = le16(&cd[p + 28]);
            std::uint16_t extraLen = le16(&cd[p + 30]);
            std::uint16_t commentLen = le16(&cd[p + 32]);
            e.localHeaderOffset = le32(&cd[p + 42]);
            if (p + 46 + nameLen + extraLen > cd.size())
                return false;
            e.name.assign(reinterpret_cast<const char*>(&cd[p + 46]), nameLen);
            if ((e.compressedSize == 0xFFFFFFFF || e.uncompressedSize == 0xFFFFFFFF ||
                 e.localHeaderOffset == 0xFFFFFFFF) &&
                !readZip64Extra(&cd[p + 46 + nameLen], extraLen, e)) {
                why = "its zip directory's entry for " + e.name + " lacks its zip64 sizes";
                entries_.clear();
                return false;
            }
            if (e.method == 0 && e.compressedSize != e.uncompressedSize) {
                const std::uint64_t claim = std::max(e.compressedSize, e.uncompressedSize);
                why = claim > size_
                          ? "its zip directory's entry for " + e.name + " declares " +
                                std::to_string(claim) + " bytes in a file of " +
                                std::to_string(size_)
                          : "its zip directory gives the stored member " + e.name + " two sizes";
                entries_.clear();
                return false;
            }
            if (!index_.emplace(e.name, entries_.size()).second) {
                why = "its zip directory lists " + e.name + " more than once";
                entries_.clear();
                index_.clear();
                return false;
            }
            entries_.push_back(e);
            p += 46 + nameLen + extraLen + commentLen;
        }
        if (!placeMembers(cdOffset, why)) {
            entries_.clear();
            index_.clear();
            return false;
        }
        why.clear();
        return true;
    }
    return false;
}

bool ZipArchive::placeMembers(std::uint64_t directoryOffset, std::string& why) {
    std::vector<Entry*> byOffset;
    byOffset.reserve(entries_.size());
    for (Entry& e : entries_)
        byOffset.push_back(&e);
    std::sort(byOffset.begin(), byOffset.end(), [](const Entry* a, const Entry* b) {
        return a->localHeaderOffset < b->localHeaderOffset;
    });
    for (std::size_t i = 0; i < byOffset.size(); ++i) {
        Entry& e = *byOffset[i];
        e.limit = i + 1 < byOffset.size() ? byOffset[i + 1]->localHeaderOffset : directoryOffset;
        // The least a member takes: its local header, its name (as long as the directory's
        // copy) and its bytes; the local header's own extra field is checked when it is read.
        const std::uint64_t least = 30 + e.name.size() + e.compressedSize;
        if (e.localHeaderOffset > e.limit || least > e.limit - e.localHeaderOffset) {
            why = "its zip directory places " + e.name + " over " +
                  (i + 1 < byOffset.size() ? byOffset[i + 1]->name : std::string("the directory")) +
                  " (members whose bytes overlap: a damaged or hostile file)";
            return false;
        }
    }
    return true;
}

const ZipArchive::Entry* ZipArchive::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

std::optional<std::uint64_t> ZipArchive::dataOffset(const Entry& e) {
    std::vector<unsigned char> header;
    if (e.method != 0 || !readRange(e.localHeaderOffset, 30, header) ||
        le32(header.data()) != 0x04034b50)
        return std::nullopt;
    std::uint64_t start = e.localHeaderOffset + 30ull + le16(&header[26]) + le16(&header[28]);
    const std::uint64_t end = std::min(size_, e.limit);
    if (start > end || e.compressedSize > end - start)
        return std::nullopt;
    return start;
}

std::optional<std::string> ZipArchive::read(const Entry& e, std::uint64_t maxBytes) {
    if (e.compressedSize > maxBytes)
        return std::nullopt;
    std::optional<std::uint64_t> start = dataOffset(e);
    std::vector<unsigned char> content;
    if (!start || !readRange(*start, e.compressedSize, content))
        return std::nullopt;
    return std::string(content.begin(), content.end());
}

} // namespace fxview
