#pragma once
// An operator torch.profiler recorded inside a node's range (docs/cost.md): what the Python
// engine's Profile with operators reports for each node, over its one profiled run.

#include <cstdint>
#include <string>

namespace fxview {

struct OperatorTime {
    std::string name;    // "aten::addmm"
    double selfUs = 0;   // its own CPU time, its children's left out
    double deviceUs = 0; // its own time on the device (CUDA), 0 on the CPU
    std::int64_t calls = 0;
};

} // namespace fxview
