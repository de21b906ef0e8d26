#pragma once
// Core-internal: the importer for torch.export programs (exportedProgramImporter() in
// Importer.h): the graph PyTorch 2.6's deserializer builds from an ExportedModel, and the plan
// that runs it with LibTorch's ATen operators.

#include "ExportedModel.h"
#include "Importer.h"
