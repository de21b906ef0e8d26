#pragma once
// The one interface fxview's importers implement: an opened model (a TorchScript module, a
// torch.export program) in, the fx-style Graph and the plan that runs it out. Everything after
// this — the interpreter, the scene, export, the app and fxtrace — is the same for every format.

#include <memory>
#include <string>
#include <vector>

#include "Model.h"
#include "TraceResult.h"

namespace fxview {

// A model or the one sentence that says why there is none and what to do about it.
struct LoadResult {
    std::shared_ptr<Model> model;
    std::string error;
    // Said about the file, not wrong with it: which program of several was opened, or "".
    std::string note;
    bool ok() const { return model != nullptr; }
};

// Opens `source`: a TorchScript archive (.pt/.pth/.zip from torch.jit.save), a torch.export
// program (.pt2) or "example:NAME", after loading the op libraries `opLibraries` (a person's own
// ops, as torch.ops.load_library). torchvision's and torchaudio's ops are loaded when the model
// calls them. Never throws; anything that is not a loadable model comes back as `error`.
// ModelLoading.cpp.
LoadResult loadModel(const std::string& source, const std::vector<std::string>& opLibraries = {});

class GraphImporter {
public:
    virtual ~GraphImporter() = default;
    // Whether this importer reads `model` (what loadModel opened it as).
    virtual bool reads(const Model& model) const = 0;
    // The graph torch.fx would show for it; an error sentence instead of throwing.
    virtual TraceResult importGraph(const Model& model) const = 0;
};

// The importer for TorchScript archives and built-in examples (import/torchscript/Tracer.cpp)
// and the one for torch.export programs (import/export/ExportImporter.cpp).
const GraphImporter& torchScriptImporter();
const GraphImporter& exportedProgramImporter();

// The model's graph, by whichever importer reads it.
TraceResult importGraph(const Model& model);

} // namespace fxview
