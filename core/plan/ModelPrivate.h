#pragma once
// Core-internal: the LibTorch side of Model. Include only from core's .cpp files.

#include <torch/script.h>

#include <memory>

#include "Model.h"

namespace fxview {

// What an importer keeps of a file that is not a TorchScript module: a torch.export program
// (import's ExportedModel, which its importer reads back). The plan and the run only ask
// whether there is one, so they need to know no importer.
class ImportedProgram {
public:
    virtual ~ImportedProgram() = default;
};

struct Model::Private {
    std::string source;
    torch::jit::Module module;                 // a TorchScript archive or a built-in example
    std::shared_ptr<ImportedProgram> exported; // or a torch.export program (.pt2)
};

} // namespace fxview

namespace fxview {

// The first line of an exception's message, without LibTorch's C++ backtrace.
std::string firstLineOf(const std::exception& e);

} // namespace fxview
