#pragma once
// Sample input specs: "3x4", "1x3x224x224", "2x8:int64", "file:input.pt", "example" (a .pt2's own
// example input).

#include <cstdint>
#include <string>
#include <vector>

namespace fxview {

struct InputSpec {
    std::vector<std::int64_t> shape;
    std::string dtype = "float32";
    std::string file;         // a tensor saved with torch.save; shape and dtype come from it
    bool example = false;     // the example input torch.export saved in the .pt2
    std::string text() const; // back to the spec syntax
};

// Parses one spec; on failure returns false and a sentence in `error`.
bool parseInputSpec(const std::string& text, InputSpec& spec, std::string& error);

// The dtypes a spec may name, as PyTorch spells them.
const std::vector<std::string>& supportedDtypes();

} // namespace fxview
