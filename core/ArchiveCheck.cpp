#include "ArchiveCheck.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace fxview {

namespace {

std::uint32_t le32(const unsigned char* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint16_t le16(const unsigned char* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

struct ZipEntry {
    std::string name;
    std::uint16_t method = 0;
    std::uint32_t compressedSize = 0;
    std::uint32_t localHeaderOffset = 0;
};

// Reads the zip's central directory; false if it is missing or runs past the end of the file.
bool readCentralDirectory(const std::vector<unsigned char>& data, std::vector<ZipEntry>& entries) {
    const std::size_t eocdSize = 22;
    if (data.size() < eocdSize)
        return false;
    // The end-of-central-directory record sits in the last 64 KiB (it may carry a comment).
    std::size_t lowest = data.size() > 65535 + eocdSize ? data.size() - 65535 - eocdSize : 0;
    for (std::size_t pos = data.size() - eocdSize + 1; pos-- > lowest;) {
        if (le32(&data[pos]) != 0x06054b50)
            continue;
        std::uint16_t count = le16(&data[pos + 10]);
        std::uint32_t cdSize = le32(&data[pos + 12]);
        std::uint32_t cdOffset = le32(&data[pos + 16]);
        if (static_cast<std::uint64_t>(cdOffset) + cdSize > data.size())
            return false;
        std::size_t p = cdOffset;
        for (int i = 0; i < count; ++i) {
            if (p + 46 > data.size() || le32(&data[p]) != 0x02014b50)
                return false;
            ZipEntry e;
            e.method = le16(&data[p + 10]);
            e.compressedSize = le32(&data[p + 20]);
            std::uint16_t nameLen = le16(&data[p + 28]);
            std::uint16_t extraLen = le16(&data[p + 30]);
            std::uint16_t commentLen = le16(&data[p + 32]);
            e.localHeaderOffset = le32(&data[p + 42]);
            if (p + 46 + nameLen > data.size())
                return false;
            e.name.assign(reinterpret_cast<const char*>(&data[p + 46]), nameLen);
            entries.push_back(e);
            p += 46 + nameLen + extraLen + commentLen;
        }
        return true;
    }
    return false;
}

// The bytes of a stored (uncompressed) entry, which is how torch.save writes data.pkl.
std::string storedEntry(const std::vector<unsigned char>& data, const ZipEntry& e) {
    std::size_t p = e.localHeaderOffset;
    if (e.method != 0 || p + 30 > data.size() || le32(&data[p]) != 0x04034b50)
        return {};
    std::size_t start = p + 30 + le16(&data[p + 26]) + le16(&data[p + 28]);
    if (start + e.compressedSize > data.size())
        return {};
    return std::string(reinterpret_cast<const char*>(&data[start]), e.compressedSize);
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Which Python class a pickle's first GLOBAL opcode names ("collections\nOrderedDict" for a
// state_dict, "__main__\nTinyNet" for a whole module): protocol 2 writes `c module\n name\n`.
std::string firstPickledClass(const std::string& pickle) {
    std::size_t pos = pickle.find('c');
    while (pos != std::string::npos) {
        std::size_t nl1 = pickle.find('\n', pos + 1);
        std::size_t nl2 = nl1 == std::string::npos ? nl1 : pickle.find('\n', nl1 + 1);
        if (nl2 != std::string::npos && nl2 - pos < 200) {
            std::string module = pickle.substr(pos + 1, nl1 - pos - 1);
            std::string name = pickle.substr(nl1 + 1, nl2 - nl1 - 1);
            bool plausible = !module.empty() && !name.empty();
            for (char ch : module + name)
                plausible = plausible && (std::isalnum(static_cast<unsigned char>(ch)) ||
                                          ch == '_' || ch == '.');
            if (plausible)
                return module + "." + name;
        }
        pos = pickle.find('c', pos + 1);
    }
    return {};
}

} // namespace

ArchiveCheck checkArchive(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status))
        return {ArchiveKind::Missing, {}};
    if (!fs::is_regular_file(status))
        return {ArchiveKind::NotAFile, {}};

    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {ArchiveKind::Unreadable, {}};
    std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), {});
    if (data.empty())
        return {ArchiveKind::Empty, {}};
    if (data[0] == 0x80 && data.size() > 1 && data[1] <= 5) // pickle PROTO opcode
        return {ArchiveKind::LegacyPickle, {}};
    if (data.size() < 4 || std::memcmp(data.data(), "PK\x03\x04", 4) != 0)
        return {ArchiveKind::NotZip, {}};

    std::vector<ZipEntry> entries;
    if (!readCentralDirectory(data, entries))
        return {ArchiveKind::TruncatedZip, {}};

    const ZipEntry* dataPkl = nullptr;
    bool hasConstants = false, hasCode = false;
    for (const ZipEntry& e : entries) {
        if (endsWith(e.name, "/data.pkl") && std::count(e.name.begin(), e.name.end(), '/') == 1)
            dataPkl = &e;
        hasConstants = hasConstants || endsWith(e.name, "/constants.pkl");
        hasCode = hasCode || e.name.find("/code/") != std::string::npos;
    }
    if (hasConstants && hasCode)
        return {ArchiveKind::TorchScript, {}};
    if (!dataPkl)
        return {ArchiveKind::ForeignZip, {}};

    std::string cls = firstPickledClass(storedEntry(data, *dataPkl));
    if (cls == "collections.OrderedDict")
        return {ArchiveKind::StateDict, cls};
    if (cls.rfind("torch._utils", 0) == 0 || cls.empty() || cls.rfind("builtins", 0) == 0)
        return {ArchiveKind::PickledObject, cls};
    return {ArchiveKind::PickledModule, cls};
}

} // namespace fxview
