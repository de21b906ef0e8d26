#pragma once
// Built-in example models, opened as "example:NAME" without any file.

#include <string>
#include <vector>

namespace fxview {

struct ExampleInfo {
    std::string name;        // "tinynet"
    std::string description; // one line for menus and --help
};

const std::vector<ExampleInfo>& examples();

} // namespace fxview
