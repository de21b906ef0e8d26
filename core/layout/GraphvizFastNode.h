#pragma once

namespace fxview {

// How many times dot has called fxview's delete_fast_node (GraphvizFastNode.cpp) in this process.
// Zero after laying out a graph with clusters means the replacement is not in effect and dot is
// back to its quadratic assertion.
long graphvizFastNodeDeletions();

} // namespace fxview
