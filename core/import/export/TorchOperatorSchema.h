#pragma once
// Core-internal: LibTorch's schema of an operator as fxview's torch-free OperatorSchema, the one
// conversion the engine (ExportCalls) and the build-time table (fxview-schema-table) share.

#include <string>

#include "OperatorSchema.h"

namespace c10 {
struct FunctionSchema;
}

namespace fxview {

OperatorSchema operatorSchemaOf(const c10::FunctionSchema& schema);

// The table of every operator registered in this process, a schemaTableLine each, sorted by
// name; a name TorchScript registers with two schemas (a few prim:: ops) is left out, since which
// one a lookup meant is not known. What fxview-schema-table writes for builtInOperatorSchema.
std::string registeredOperatorSchemaTable();

} // namespace fxview
