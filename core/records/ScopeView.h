#pragma once
// The graph as the picture draws it at an expansion state: every scope that is not open (while
// its parents are) becomes one node standing for all of its nodes, a "box". A box is what
// torch.fx would record had that module been a leaf: a call_module of the scope's path, its
// arguments the values flowing in from outside, its users those taking what flows out; edges
// between boxes are merged, one per producer/consumer pair. The printers and the layout take the
// view's graph as they take any other.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "Graph.h"
#include "RunRecord.h"
#include "ScopeTree.h"

namespace fxview {

struct ScopeBox {
    std::string scope;                // "layers.0"
    std::vector<std::string> members; // the top-level nodes inside, in graph order
    // Where a breakpoint on the box stops (before its first node, a hidden guard too) and what
    // stepping over it runs to (its last shown node: a hidden one runs with the next shown).
    std::string first, last;
    int shownMembers = 0;
    std::vector<std::string> inputs;  // nodes outside whose values its members use, in order
    std::vector<std::string> outputs; // members whose values a node outside uses, in order
    // Weights only its members read (a .pt2's parameter and buffer placeholders, which its
    // signature lifts to the top): folded into the box as they would be into a leaf module.
    std::vector<std::string> weights;
};

struct ScopeView {
    Graph graph;
    std::unordered_map<std::string, ScopeBox> boxes; // by the box node's name
    // Every node inside a box (block contents included) -> the box's name.
    std::unordered_map<std::string, std::string> boxOf;
    // An edge with a box at either end -> the real nodes whose values it carries.
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> edgeValues;

    bool collapsed() const { return !boxes.empty(); }
    const ScopeBox* box(const std::string& name) const;
    // Weights drawn inside the box of the node that reads them (drawWeightsInside) -> that node.
    std::unordered_map<std::string, std::string> weightReader;
    // The name the picture shows `node` under: itself, the box it is inside, or the node whose
    // box lists it.
    const std::string& shownName(const std::string& node) const;
    // The box node drawn for `scope` (its first, if it was called twice), or "" when the scope
    // is open or inside another box.
    std::string boxFor(const std::string& scope) const;
    // The box `node` runs in as one of its members (not a weight folded into it), or nullptr.
    const ScopeBox* boxRunning(const std::string& node) const;
    // The real nodes an edge of the picture carries: its producer, or what a merged edge merges.
    std::vector<std::string> valuesOf(const std::string& from, const std::string& to) const;
};

// Closes every scope not in `open` (whose parents are): `open` empty is everything collapsed to
// the top-level scopes, tree.allOpen() the whole graph. Weights are drawn inside their readers'
// boxes (drawWeightsInside) unless `weightsAsNodes`.
ScopeView collapseScopes(const Graph& graph, const ScopeTree& tree,
                         const std::set<std::string>& open, bool weightsAsNodes = false);

// A weight (a .pt2's parameter, buffer or constant placeholder, or a get_attr of a tensor) that
// one node reads is drawn as a line in that node's box, as Netron draws them, and one nothing
// reads is not drawn: as boxes of their own, resnet18.pt2's 122 make a row 20 times as wide as
// the model. Only the picture's flags change (Node::drawnInside, Node::weightsInside): the graph
// and its text stay PyTorch's. Returns the weights no longer drawn as boxes.
int drawWeightsInside(Graph& graph);

// A box's run state, derived from its members' records: not run, running (the current node is
// inside it: `currentInside`), done, failed; with the shapes flowing in and out once known.
struct ScopeRun {
    enum class State { NotRun, Running, Done, Failed } state = State::NotRun;
    std::string shapes; // "[1, 16, 64] → [1, 16, 64]"
};
ScopeRun scopeRun(const ScopeBox& box,
                  const std::function<const NodeRecord*(const std::string&)>& recordOf,
                  bool currentInside);

} // namespace fxview
