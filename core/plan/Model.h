#pragma once
// A loaded model (a TorchScript module or a torch.export program), opaque outside core: LibTorch
// types stay behind the pimpl so that including this header costs nothing.

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

} // namespace fxview
