#pragma once
// Core-internal: a torch.export archive (.pt2) opened for running: its program, parsed without
// LibTorch (ExportedProgram), and the tensors LibTorch reads from it. Include only from core's
// .cpp files.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

#include "ExportedProgram.h"
#include "Tracer.h"

namespace fxview {

struct ExportedModel {
    ExportedProgram program;
    std::map<std::string, at::Tensor> stateDict; // "fc1.weight" -> its tensor
    std::map<std::string, at::Tensor> constants; // tensor constants by name
    std::vector<c10::IValue> exampleInputs;      // the positional example inputs, if saved
};

// Reads `path`'s program and tensors; throws std::runtime_error with a sentence saying what is
// wrong with the file.
std::shared_ptr<ExportedModel> readExportedModel(const std::string& path);

// The fx graph torch.export.load(path).graph is, and the plan that runs it with LibTorch's
// operators: the second importer beside the TorchScript tracer.
TraceResult importExportedProgram(const ExportedModel& model);

} // namespace fxview
