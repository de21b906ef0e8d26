#pragma once
// Big graphs laid out in pieces. A node that every path from the graph's start to its end runs
// through (a "cut": densenet's transition layers, the joins between a ResNet's stages) splits
// the graph into segments with no edge between them but through it. Each segment is laid out
// by itself and the pieces are stacked, the cut node shared. dot's crossing minimisation grows
// much faster than linearly with the long edges a rank holds, so pieces are far cheaper than
// the whole (densenet121: about 0.7 s of segments against 2.8 s whole, in `dot` itself).

#include <string>
#include <vector>

#include "Graph.h"
#include "GraphLayout.h"

namespace fxview {

struct GraphSegments {
    std::vector<Graph> parts;      // each ends with the cut node the next one starts with
    std::vector<std::string> cuts; // cuts[k] joins parts[k] and parts[k + 1]
};

// Splits at cuts so that every part has at least `minNodes` shown nodes; a graph that cannot be
// split that way comes back as one part. A cut qualifies only if, in the part it ends, every
// other node has a user in that part, and in the part it starts, every other node has a
// producer there: then the cut is that part's lowest and the next part's highest node.
// With `sourcesHang`, a node without producers (a get_attr of a scope's weight) may sit in a
// part below its cut: dot ranks it beside the cut, below the previous part, so nothing overlaps;
// pieces of a collapsed view are cut that way between every pair of boxes.
GraphSegments splitAtCuts(const Graph& graph, const LayoutOptions& options, int minNodes,
                          bool sourcesHang = false);

// Stacks the parts' layouts: each part moved so that its copy of the cut lies on the previous
// part's, that copy dropped, clusters of the same scope merged into one rectangle.
GraphLayout stackSegments(const std::vector<GraphLayout>& parts,
                          const std::vector<std::string>& cuts);

} // namespace fxview
