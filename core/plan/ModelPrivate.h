#pragma once
// Core-internal: the LibTorch side of Model. Include only from core's .cpp files.

#include <torch/script.h>

#include <memory>

#include "Model.h"

namespace fxview {

class ExportedModel; // ExportedModel.h

struct Model::Private {
    std::string source;
    torch::jit::Module module;               // a TorchScript archive or a built-in example
    std::shared_ptr<ExportedModel> exported; // or a torch.export program (.pt2)
};

} // namespace fxview

namespace fxview {

// The first line of an exception's message, without LibTorch's C++ backtrace.
std::string firstLineOf(const std::exception& e);

} // namespace fxview
