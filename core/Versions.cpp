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

} // namespace fxview
