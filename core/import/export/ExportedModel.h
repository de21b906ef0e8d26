#pragma once
// Core-internal: a torch.export archive (.pt2) opened for running: its program, read without
// LibTorch (ExportedArchive), and the tensors LibTorch reads from it. Include only from core's
// .cpp files.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <torch/script.h>

#include "ExportedArchive.h"
#include "ModelPrivate.h"

namespace fxview {

// The weights are not read when the archive is opened: the graph and its picture need only the
// JSON, and a big model's weights are most of the file (vit_b_16: 346 of 347 MB). They are read,
// through a mapping of the file, when the program first runs.
class ExportedModel : public ImportedProgram, public std::enable_shared_from_this<ExportedModel> {
public:
    ExportedProgram program;
    std::vector<c10::IValue> exampleInputs; // the positional example inputs, if saved
    std::string note; // ExportedArchive's: which program of several this is, or ""

    // The parameter or persistent buffer `name` ("fc1.weight"), or with `constant` a tensor
    // constant or non-persistent buffer; throws std::runtime_error with a sentence when the
    // weights cannot be read or lack it.
    at::Tensor weight(const std::string& name, bool constant) const;

private:
    friend std::shared_ptr<ExportedModel> readExportedModel(const std::string& path,
                                                            const std::string& program);
    void readWeights() const;
    std::string path_;
    ExportedArchive pieces_; // where the weights lie (its program is moved to `program`)
    mutable std::mutex mutex_;
    mutable bool read_ = false;
    mutable std::string error_; // why the weights could not be read, once tried
    mutable std::map<std::string, at::Tensor> stateDict_, constants_;
};

// Reads `path`'s program, example inputs and where its weights are, from either layout: the
// legacy zip (PyTorch 2.2 to 2.7) or the PT2 archive (2.8 on; `program` names one of its
// models/, "" for the only one). Throws std::runtime_error with a sentence saying what is wrong
// with the file.
std::shared_ptr<ExportedModel> readExportedModel(const std::string& path,
                                                 const std::string& program = {});

} // namespace fxview
