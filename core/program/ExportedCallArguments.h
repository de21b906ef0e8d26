#pragma once
// Where a .pt2 call's arguments go in its fx node, as PyTorch's deserialize_inputs puts them:
// positional or keyword by how the file says the call spelled them, else positional while the
// schema argument has no default. Torch-free, so that the engine and the window (from the
// build-time schema table) draw the same node.

#include <vector>

#include "ExportedProgram.h"
#include "OperatorSchema.h"

namespace fxview {

struct PlacedArgument {
    enum class Place { Positional, Keyword, Omitted };
    Place place = Place::Omitted;
    const ExportedValue* value = nullptr; // null when the call leaves it to the schema's default
};

// One entry per schema argument, in the schema's order; throws std::runtime_error naming the op
// and the argument when a positional one is missing.
std::vector<PlacedArgument> placedArguments(const OperatorSchema& schema, const ExportedNode& n);

} // namespace fxview
