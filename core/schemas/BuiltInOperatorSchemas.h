#pragma once
// The operator-schema table made at build time (fxview-schema-table, from the LibTorch fxview is
// built on, its own native ops and torchvision's and torchaudio's where the build's root has
// them): what the window, which never loads LibTorch, places a .pt2 call's arguments with. Its
// own library, fxview::schemas: the program writing it links fxview::import.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ExportedProgram.h"
#include "Graph.h"
#include "OperatorSchema.h"

namespace fxview {

// The schema of `qualifiedName` ("aten::add.Tensor", "aten::relu"); null when the table has
// none (an op of a library the build did not have, a newer ATen op).
const OperatorSchema* builtInOperatorSchema(std::string_view qualifiedName);

// How many schemas the table holds.
std::size_t builtInOperatorSchemaCount();

// The graph as the window draws it without LibTorch (ExportGraphWalk with the table's schemas);
// `unknown` gets the call targets the table lacks (a library's ops the engine may load, a newer
// ATen's), whose arguments the engine's graph may place otherwise. Throws as
// ExportGraphWalk::run.
Graph walkedWithBuiltInSchemas(const ExportedProgram& program, std::vector<std::string>& unknown);

// The same walk with an engine's own schemas first (`engineSchemas`: schema-table lines, as a
// Python engine sends those of its PyTorch for the program it loaded, Python-registered ops
// included), the table's for the ops it does not name.
Graph walkedWithSchemas(const ExportedProgram& program, std::string_view engineSchemas,
                        std::vector<std::string>& unknown);

} // namespace fxview
