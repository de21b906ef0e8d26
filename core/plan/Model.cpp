#include "Model.h"

#include <c10/util/Exception.h>

#include "ModelPrivate.h"

namespace fxview {

Model::Model(std::unique_ptr<Private> d) : d_(std::move(d)) {}
Model::~Model() = default;

const std::string& Model::source() const {
    return d_->source;
}

std::string Model::className() const {
    if (d_->exported)
        return "torch.export program";
    return d_->module.type()->name()->qualifiedName();
}

std::string firstLineOf(const std::exception& e) {
    auto* torchError = dynamic_cast<const c10::Error*>(&e);
    std::string what = torchError ? torchError->what_without_backtrace() : e.what();
    // Errors raised inside a TorchScript method come wrapped: a TorchScript backtrace, then
    // the original "RuntimeError: ..." line, which is the one a person needs.
    const std::string marker = "Error: ";
    if (what.find("The following operation failed in the TorchScript interpreter") !=
        std::string::npos) {
        std::size_t at = what.rfind(marker);
        if (at != std::string::npos)
            what = what.substr(at + marker.size());
    }
    what.erase(0, what.find_first_not_of(" \n"));
    std::string line = what.substr(0, what.find('\n'));
    while (!line.empty() && (line.back() == ' ' || line.back() == '.' || line.back() == ':'))
        line.pop_back();
    return line;
}

} // namespace fxview
