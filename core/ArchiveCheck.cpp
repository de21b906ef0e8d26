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

// Reads byte ranges of the file on demand: model archives are hundreds of megabytes, and only
// the head, the zip directory and maybe one small record are needed to tell what they are.
class FileRange {
public:
    explicit FileRange(std::ifstream& in, std::uint64_t size) : in_(in), size_(size) {}
    std::uint64_t size() const { return size_; }
    bool read(std::uint64_t offset, std::uint64_t length, std::vector<unsigned char>& out) {
        if (offset + length > size_)
            return false;
        out.resize(length);
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(offset));
        in_.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
        return static_cast<std::uint64_t>(in_.gcount()) == length;
    }

private:
    std::ifstream& in_;
    std::uint64_t size_;
};

// Reads the zip's central directory; false if it is missing or runs past the end of the file.
bool readCentralDirectory(FileRange& file, std::vector<ZipEntry>& entries) {
    const std::uint64_t eocdSize = 22;
    if (file.size() < eocdSize)
        return false;
    // The end-of-central-directory record sits in the last 64 KiB (it may carry a comment).
    std::uint64_t tailStart = file.size() > 65535 + eocdSize ? file.size() - 65535 - eocdSize : 0;
    std::vector<unsigned char> tail;
    if (!file.read(tailStart, file.size() - tailStart, tail))
        return false;
    for (std::size_t pos = tail.size() - eocdSize + 1; pos-- > 0;) {
        if (le32(&tail[pos]) != 0x06054b50)
            continue;
        std::uint16_t count = le16(&tail[pos + 10]);
        std::uint32_t cdSize = le32(&tail[pos + 12]);
        std::uint32_t cdOffset = le32(&tail[pos + 16]);
        if (cdOffset == 0xFFFFFFFF || count == 0xFFFF) // zip64: let LibTorch's reader judge it
            return true;
        std::vector<unsigned char> cd;
        if (!file.read(cdOffset, cdSize, cd))
            return false;
        std::size_t p = 0;
        for (int i = 0; i < count; ++i) {
            if (p + 46 > cd.size() || le32(&cd[p]) != 0x02014b50)
                return false;
            ZipEntry e;
            e.method = le16(&cd[p + 10]);
            e.compressedSize = le32(&cd[p + 20]);
            std::uint16_t nameLen = le16(&cd[p + 28]);
            std::uint16_t extraLen = le16(&cd[p + 30]);
            std::uint16_t commentLen = le16(&cd[p + 32]);
            e.localHeaderOffset = le32(&cd[p + 42]);
            if (p + 46 + nameLen > cd.size())
                return false;
            e.name.assign(reinterpret_cast<const char*>(&cd[p + 46]), nameLen);
            entries.push_back(e);
            p += 46 + nameLen + extraLen + commentLen;
        }
        return true;
    }
    return false;
}

// The bytes of a stored (uncompressed) entry, which is how torch.save writes data.pkl.
std::string storedEntry(FileRange& file, const ZipEntry& e) {
    std::vector<unsigned char> header;
    if (e.method != 0 || !file.read(e.localHeaderOffset, 30, header) ||
        le32(header.data()) != 0x04034b50)
        return {};
    std::uint64_t start = e.localHeaderOffset + 30ull + le16(&header[26]) + le16(&header[28]);
    std::vector<unsigned char> content;
    if (!file.read(start, e.compressedSize, content))
        return {};
    return std::string(content.begin(), content.end());
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
    FileRange file(in, fs::file_size(path, ec));
    if (file.size() == 0)
        return {ArchiveKind::Empty, {}};
    std::vector<unsigned char> head;
    file.read(0, std::min<std::uint64_t>(4, file.size()), head);
    if (head[0] == 0x80 && head.size() > 1 && head[1] <= 5) // pickle PROTO opcode
        return {ArchiveKind::LegacyPickle, {}};
    if (head.size() < 4 || std::memcmp(head.data(), "PK\x03\x04", 4) != 0)
        return {ArchiveKind::NotZip, {}};

    std::vector<ZipEntry> entries;
    if (!readCentralDirectory(file, entries))
        return {ArchiveKind::TruncatedZip, {}};

    const ZipEntry* dataPkl = nullptr;
    bool hasConstants = false, hasCode = false, tracedInputs = false;
    for (const ZipEntry& e : entries) {
        if (endsWith(e.name, "/data.pkl") && std::count(e.name.begin(), e.name.end(), '/') == 1)
            dataPkl = &e;
        hasConstants = hasConstants || endsWith(e.name, "/constants.pkl");
        hasCode = hasCode || e.name.find("/code/") != std::string::npos;
        tracedInputs = tracedInputs || endsWith(e.name, "/traced_inputs.pkl");
    }
    if ((hasConstants && hasCode) || entries.empty())
        return {ArchiveKind::TorchScript, {}, tracedInputs};
    if (!dataPkl)
        return {ArchiveKind::ForeignZip, {}};

    std::string cls = firstPickledClass(storedEntry(file, *dataPkl));
    if (cls == "collections.OrderedDict")
        return {ArchiveKind::StateDict, cls};
    if (cls.rfind("torch._utils", 0) == 0 || cls.empty() || cls.rfind("builtins", 0) == 0)
        return {ArchiveKind::PickledObject, cls};
    return {ArchiveKind::PickledModule, cls};
}

} // namespace fxview
