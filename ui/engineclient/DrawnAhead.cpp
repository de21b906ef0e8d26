#include "engineclient/DrawnAhead.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "BuiltInOperatorSchemas.h"
#include "ExportedArchive.h"
#include "ZipArchive.h"

namespace fxview {

namespace {

constexpr std::uint64_t kLargestProgram = std::uint64_t(64) << 20;

} // namespace

std::optional<Graph> programDrawnAhead(const std::string& source) {
    // Only files: example:tinynet and python: sources have no archive here.
    if (source.empty() || (source.find(':') != std::string::npos && source.front() != '/'))
        return std::nullopt;
    try {
        ZipArchive zip;
        std::string why;
        if (!zip.open(source, why))
            return std::nullopt; // the engine says why, in its sentence
        // The window has no memory cap (its engine has): a program whose JSON alone is past
        // 64 MB (some 60,000 nodes; its parse takes about 15 times that) is left to the engine.
        for (const ZipArchive::Entry& e : zip.entries())
            if (e.name.ends_with(".json") && e.uncompressedSize > kLargestProgram)
                return std::nullopt;
        const ExportedArchive archive = readExportedArchive(zip);
        std::vector<std::string> unknown;
        Graph graph = walkedWithBuiltInSchemas(archive.program, unknown);
        if (!unknown.empty())
            return std::nullopt;
        return graph;
    } catch (const std::exception&) {
        // Not a .pt2 (a TorchScript archive), or one the engine will refuse with a sentence.
        return std::nullopt;
    }
}

} // namespace fxview
