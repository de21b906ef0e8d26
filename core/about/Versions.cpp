#include "Versions.h"

#include <graphviz/graphviz_version.h>
#ifdef FXVIEW_WITH_LIBTORCH
#include <torch/version.h>
#endif

namespace fxview {

std::string fxviewVersion() {
    return FXVIEW_VERSION;
}

std::string libtorchVersion() {
#ifdef FXVIEW_WITH_LIBTORCH
    return TORCH_VERSION;
#else
    return "none";
#endif
}

std::string graphvizVersion() {
    return PACKAGE_VERSION;
}

std::string librariesText(const std::string& qtVersion) {
    // A window-only build (no LibTorch) runs files on the person's own PyTorch, a Python engine.
    std::string torch =
        libtorchVersion() == "none" ? std::string("no LibTorch") : "LibTorch " + libtorchVersion();
    return torch + ", Qt " + qtVersion + ", Graphviz " + graphvizVersion();
}

std::string versionText(const std::string& program, const std::string& qtVersion) {
    return program + " " + fxviewVersion() + " (" + librariesText(qtVersion) + ")";
}

} // namespace fxview
