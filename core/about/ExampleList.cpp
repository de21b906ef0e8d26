// The built-in examples' names and descriptions, apart from their LibTorch builders
// (Examples.cpp), so that the window lists them without linking LibTorch.

#include "Examples.h"

namespace fxview {

const std::vector<ExampleInfo>& examples() {
    static const std::vector<ExampleInfo> list = {
        {"tinynet", "the seed model: Linear(4, 8), relu, Linear(8, 2); input 3x4"},
        {"branchy", "an if on the data and a for loop, to show control flow; input 1x4"},
        {"smallcnn", "Conv2d/BatchNorm2d/ReLU blocks, a residual add, a pool and a Linear head; "
                     "input 1x3x32x32"}};
    return list;
}

} // namespace fxview
