#include "Pt2Archive.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "BoundedJson.h"

namespace fxview {

namespace {

using Json = nlohmann::json;

bool startsWith(const std::string& s, const std::string& head) {
    return s.rfind(head, 0) == 0;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

ArchiveMember placeOf(ZipArchive& zip, const ZipArchive::Entry& e) {
    std::optional<std::uint64_t> offset = zip.dataOffset(e);
    if (!offset)
        throw std::runtime_error("its " + e.name + " is compressed or cut short");
    return {*offset, e.compressedSize};
}

// A config or program member's text, refused unread past `maxBytes`.
std::string textOf(ZipArchive& zip, const ZipArchive::Entry& e, std::uint64_t maxBytes) {
    if (e.compressedSize > maxBytes)
        throw std::runtime_error("its " + e.name + " takes " + std::to_string(e.compressedSize) +
                                 " bytes, past the " + std::to_string(maxBytes) +
                                 " fxview reads of it");
    std::optional<std::string> bytes = zip.read(e, maxBytes);
    if (!bytes)
        throw std::runtime_error("its " + e.name + " is compressed or cut short");
    return *bytes;
}

// A weights or constants config takes about 200 bytes a tensor.
constexpr std::uint64_t kLargestConfig = std::uint64_t(256) << 20;
// archive_format holds "pt2".
constexpr std::uint64_t kLargestFormat = 64;

// A whole number of a config ({"as_int": 4} or 4) that fits an int64.
std::int64_t wholeOf(const Json& j, const std::string& where) {
    const Json& v = j.is_object() && j.contains("as_int") ? j["as_int"] : j;
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() &&
         v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())))
        throw std::runtime_error("its " + where + " has " + jsonPreview(v) +
                                 " where a whole number belongs");
    return v.get<std::int64_t>();
}

// data/weights/<name>_weights_config.json (or the constants'): fqn -> payload.
std::map<std::string, Pt2Payload> payloadsOf(ZipArchive& zip, const ZipArchive::Entry& config,
                                             const std::string& folder) {
    Json doc = parseBoundedJson(textOf(zip, config, kLargestConfig), config.name);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("config") ||
        !doc["config"].is_object())
        throw std::runtime_error("its " + config.name + " is not a payload config");
    std::map<std::string, Pt2Payload> out;
    try {
        for (const auto& [fqn, entry] : doc["config"].items()) {
            Pt2Payload p;
            p.pathName = entry.at("path_name").get<std::string>();
            p.pickled = entry.value("use_pickle", false);
            p.isParam = entry.value("is_param", false);
            const ZipArchive::Entry* member = zip.find(folder + p.pathName);
            if (!member)
                throw std::runtime_error("its " + config.name + " names " + p.pathName +
                                         ", which the archive lacks");
            p.member = placeOf(zip, *member);
            if (!p.pickled) {
                const Json& meta = entry.at("tensor_meta");
                p.dtype = static_cast<int>(wholeOf(meta.at("dtype"), config.name));
                for (const Json& s : meta.at("sizes"))
                    p.sizes.push_back(wholeOf(s, config.name));
                for (const Json& s : meta.at("strides"))
                    p.strides.push_back(wholeOf(s, config.name));
                p.storageOffset = wholeOf(meta.at("storage_offset"), config.name);
                p.requiresGrad = meta.contains("requires_grad") &&
                                 meta.at("requires_grad").is_boolean() &&
                                 meta.at("requires_grad").get<bool>();
                if (p.sizes.size() != p.strides.size())
                    throw std::runtime_error("its " + config.name + " gives " + fqn + " " +
                                             std::to_string(p.sizes.size()) + " sizes and " +
                                             std::to_string(p.strides.size()) + " strides");
            }
            out.emplace(fqn, std::move(p));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("its " + config.name + " lacks what a payload config has (" +
                                 e.what() + ")");
    }
    return out;
}

} // namespace

std::optional<std::string> pt2ArchiveTop(ZipArchive& zip) {
    for (const ZipArchive::Entry& e : zip.entries()) {
        const std::size_t slash = e.name.find('/');
        if (slash == std::string::npos || e.name.substr(slash + 1) != "archive_format")
            continue;
        std::optional<std::string> format = zip.read(e, kLargestFormat);
        if (format && format->rfind("pt2", 0) == 0)
            return e.name.substr(0, slash + 1);
    }
    return std::nullopt;
}

std::vector<std::string> pt2ModelNames(const ZipArchive& zip, const std::string& top) {
    std::vector<std::string> names;
    const std::string folder = top + "models/";
    for (const ZipArchive::Entry& e : zip.entries())
        if (startsWith(e.name, folder) && endsWith(e.name, ".json") &&
            e.name.find('/', folder.size()) == std::string::npos)
            names.push_back(e.name.substr(folder.size(), e.name.size() - folder.size() - 5));
    std::sort(names.begin(), names.end());
    return names;
}

bool pt2IsCompiledOnly(const ZipArchive& zip, const std::string& top) {
    if (!pt2ModelNames(zip, top).empty())
        return false;
    for (const ZipArchive::Entry& e : zip.entries())
        if (startsWith(e.name, top + "data/aotinductor/"))
            return true;
    return false;
}

Pt2Model readPt2Model(ZipArchive& zip, const std::string& top, const std::string& name,
                      std::uint64_t maxProgramBytes) {
    Pt2Model m;
    m.name = name;
    const ZipArchive::Entry* program = zip.find(top + "models/" + name + ".json");
    if (!program)
        throw std::runtime_error("it holds no program called '" + name + "'");
    m.programJson = textOf(zip, *program, maxProgramBytes);
    const std::string weights = top + "data/weights/", constants = top + "data/constants/";
    if (const ZipArchive::Entry* e = zip.find(weights + name + ".pt"))
        m.pickledWeights = placeOf(zip, *e);
    else if (const ZipArchive::Entry* config = zip.find(weights + name + "_weights_config.json"))
        m.weights = payloadsOf(zip, *config, weights);
    else
        throw std::runtime_error("it lacks data/weights/" + name +
                                 "_weights_config.json, which "
                                 "torch.export.save writes");
    if (const ZipArchive::Entry* e = zip.find(constants + name + ".pt"))
        m.pickledConstants = placeOf(zip, *e);
    else if (const ZipArchive::Entry* config =
                 zip.find(constants + name + "_constants_config.json"))
        m.constants = payloadsOf(zip, *config, constants);
    if (const ZipArchive::Entry* e = zip.find(top + "data/sample_inputs/" + name + ".pt"))
        m.sampleInputs = placeOf(zip, *e);
    return m;
}

} // namespace fxview
