// A .pt2's serialized_exported_program.json through the importer's reader of it: every schema
// union, number, subgraph and tensor meta. A refusal is an exception with a sentence.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ExportedProgram.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        fxview::parseExportedProgram(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const std::runtime_error&) {
    }
    return 0;
}
