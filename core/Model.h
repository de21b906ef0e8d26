#pragma once
// A loaded TorchScript model, opaque outside core: LibTorch types stay behind the pimpl so that
// including this header costs nothing.

#include <memory>
#include <string>
#include <vector>

namespace fxview {

class Model {
public:
    struct Private; // defined in ModelPrivate.h, for core's implementation files only

    explicit Model(std::unique_ptr<Private> d);
    ~Model();
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    // Where it came from: a file path or "example:NAME".
    const std::string& source() const;
    // The TorchScript class of the root module, e.g. "__torch__.TinyNet".
    std::string className() const;

    Private& d() const { return *d_; }

private:
    std::unique_ptr<Private> d_;
};

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
LoadResult loadModel(const std::string& source, const std::vector<std::string>& opLibraries = {});

} // namespace fxview
