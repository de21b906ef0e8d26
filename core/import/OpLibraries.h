#pragma once
// Op libraries: shared objects whose static initialisers register ops with LibTorch's dispatcher
// (TORCH_LIBRARY), as Python's torch.ops.load_library loads them. torchvision's and torchaudio's
// ops (torchvision::nms, roi_align, torchaudio::_lfilter...) live in the libraries their Python
// packages install; a person's own ops in a library of their own (`--ops LIB.so`).

#include <string>

namespace fxview {

// Loads `path` into this process ("" when it is loaded, else the sentence saying why not).
std::string loadOpLibrary(const std::string& path);

// The library the root's Python package installs for the op namespace `ns` ("torchvision",
// "torchaudio"), loaded once; false when no package provides that namespace or it fails to load.
bool loadPackagedOpLibrary(const std::string& ns);

} // namespace fxview
