#include "Versions.h"

#include <graphviz/graphviz_version.h>
#include <torch/version.h>

namespace fxview {

std::string fxviewVersion() {
    return FXVIEW_VERSION;
}

std::string libtorchVersion() {
    return TORCH_VERSION;
}

std::string graphvizVersion() {
    return PACKAGE_VERSION;
}

std::string librariesText(const std::string& qtVersion) {
    return "LibTorch " + libtorchVersion() + ", Qt " + qtVersion + ", Graphviz " +
           graphvizVersion();
}

std::string versionText(const std::string& program, const std::string& qtVersion) {
    return program + " " + fxviewVersion() + " (" + librariesText(qtVersion) + ")";
}

} // namespace fxview
