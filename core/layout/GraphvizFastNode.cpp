// A replacement for one function of Graphviz's dot layout plugin, for speed.
//
// Debian's Graphviz 2.42 is built with assertions on, and dot's delete_fast_node (which unlinks a
// node from a graph's "fast" node list) first asserts that the node is in that list by walking it:
// O(nodes) per call. Dot calls it for every rank leader of every cluster and for virtual nodes it
// merges, while the list holds every virtual node of every long edge, so the walk becomes most of
// the layout of a clustered graph with long edges: 61 % of `dot -Tsvg` on densenet121 (3.5 s;
// 1.6 s without it, same output byte for byte).
//
// The plugin calls delete_fast_node through its PLT, so a definition exported from the executable
// takes its place (core's CMakeLists exports it). This one does the same unlinking as Graphviz's
// lib/dotgen/fastgr.c, without the walk.

#include "GraphvizFastNode.h"

#include <graphviz/types.h>

#include <atomic>

namespace {
std::atomic<long> deletions{0};
}

extern "C" void delete_fast_node(graph_t* g, node_t* n) {
    deletions.fetch_add(1, std::memory_order_relaxed);
    if (ND_next(n))
        ND_prev(ND_next(n)) = ND_prev(n);
    if (ND_prev(n))
        ND_next(ND_prev(n)) = ND_next(n);
    else
        GD_nlist(g) = ND_next(n);
}

namespace fxview {

long graphvizFastNodeDeletions() {
    return deletions.load(std::memory_order_relaxed);
}

} // namespace fxview
