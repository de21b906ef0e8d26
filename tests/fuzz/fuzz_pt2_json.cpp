// A .pt2's serialized_exported_program.json through the importer's reader of it: every schema
// union, number, subgraph and tensor meta; then the walk of the program it read (fxview-reader
// does it for the window while the engine starts, the engine beside its plan). A refusal is an
// exception with a sentence.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ExportGraphWalk.h"
#include "ExportedProgram.h"
#include "FewSchemas.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const fxview::ExportedProgram program =
            fxview::parseExportedProgram(std::string(reinterpret_cast<const char*>(data), size));
        FewSchemas listener;
        fxview::ExportGraphWalk(program, listener).run();
    } catch (const std::runtime_error&) {
    }
    return 0;
}
