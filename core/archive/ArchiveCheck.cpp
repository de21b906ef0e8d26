#include "ArchiveCheck.h"

#include "Pt2Archive.h"
#include "StorageCheck.h"
#include "ZipArchive.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace fxview {

namespace {

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
    if (fs::file_size(path, ec) == 0)
        return {ArchiveKind::Empty, {}};
    unsigned char head[4] = {0, 0, 0, 0};
    in.read(reinterpret_cast<char*>(head), 4);
    if (head[0] == 0x80 && in.gcount() > 1 && head[1] <= 5) // pickle PROTO opcode
        return {ArchiveKind::LegacyPickle, {}};
    if (in.gcount() < 4 || std::memcmp(head, "PK\x03\x04", 4) != 0)
        return {ArchiveKind::NotZip, {}};

    ZipArchive zip;
    std::string why;
    if (!zip.open(path, why))
        return {ArchiveKind::TruncatedZip, why};
    const std::vector<ZipArchive::Entry>& entries = zip.entries();
    if (zip.find("serialized_exported_program.json"))
        return {ArchiveKind::ExportedProgram, {}};
    if (std::optional<std::string> top = pt2ArchiveTop(zip))
        return {pt2IsCompiledOnly(zip, *top) ? ArchiveKind::CompiledOnly
                                             : ArchiveKind::ExportedProgram,
                {}};

    const ZipArchive::Entry* dataPkl = nullptr;
    bool hasConstants = false, hasCode = false, tracedInputs = false;
    for (const ZipArchive::Entry& e : entries) {
        if (endsWith(e.name, "/data.pkl") && std::count(e.name.begin(), e.name.end(), '/') == 1)
            dataPkl = &e;
        hasConstants = hasConstants || endsWith(e.name, "/constants.pkl");
        hasCode = hasCode || e.name.find("/code/") != std::string::npos;
        tracedInputs = tracedInputs || endsWith(e.name, "/traced_inputs.pkl");
    }
    if ((hasConstants && hasCode) || entries.empty()) {
        // LibTorch trusts the pickled sizes and would read past a cut record.
        if (std::string damage = checkStorages(zip); !damage.empty())
            return {ArchiveKind::DamagedStorage, damage};
        return {ArchiveKind::TorchScript, {}, tracedInputs};
    }
    if (!dataPkl)
        return {ArchiveKind::ForeignZip, {}};

    std::string cls = firstPickledClass(zip.read(*dataPkl).value_or(std::string()));
    if (cls == "collections.OrderedDict")
        return {ArchiveKind::StateDict, cls};
    if (cls.rfind("torch._utils", 0) == 0 || cls.empty() || cls.rfind("builtins", 0) == 0)
        return {ArchiveKind::PickledObject, cls};
    return {ArchiveKind::PickledModule, cls};
}

} // namespace fxview
