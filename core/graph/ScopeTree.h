#pragma once
// The module hierarchy of a graph: every scope its nodes name ("layers", "layers.0",
// "layers.0.attn"), nested by path, with how many nodes each holds. Which scopes are open is the
// view's business (ScopeView.h); this says what there is and how big each depth would draw.

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "Graph.h"

namespace fxview {

struct Scope {
    std::string path;   // "layers.0"
    std::string type;   // its module's class where a node says so ("__torch__.DecoderLayer")
    std::string parent; // "layers"; "" for a top-level scope
    int depth = 1;      // how many components the path has
    std::vector<std::string> children; // child scopes, in the order their first nodes come
    int nodeCount = 0;                 // shown top-level nodes inside it, nested scopes' included
    int ownNodes = 0;                  // shown top-level nodes whose scope is this one exactly
    // The first top-level node inside it in graph order (the order they run), hidden guards
    // too: a scope breakpoint stops before it; and the last shown one, which stepping over the
    // scope runs to (a hidden node runs with the next shown node, so no run stops after one).
    std::string firstNode, lastNode;
};

// The scopes opened by default: a graph of more than this many shown nodes opens collapsed to the
// deepest depth that draws at most kDefaultBoxes boxes and nodes.
constexpr int kCollapseAbove = 300;
constexpr int kDefaultBoxes = 150;

// A module class's own name, as a box or a list shows it: "__torch__.lm_models.DecoderLayer"
// -> "DecoderLayer".
std::string shortClassName(const std::string& type);

class ScopeTree {
public:
    ScopeTree() = default;
    explicit ScopeTree(const Graph& graph);

    bool empty() const { return scopes_.empty(); }
    int size() const { return static_cast<int>(scopes_.size()); }
    const Scope* find(const std::string& path) const;
    const std::vector<std::string>& roots() const { return roots_; }
    // Every scope, parents before children, siblings in graph order.
    std::vector<const Scope*> preorder() const;
    int maxDepth() const { return maxDepth_; }

    // Open when collapsed to `depth`: every scope of at most `depth` components (0: none open,
    // only the top-level scopes' boxes and the root's own nodes drawn).
    std::set<std::string> openToDepth(int depth) const;
    std::set<std::string> allOpen() const { return openToDepth(maxDepth_); }
    // How many boxes and nodes the picture draws with `open` open.
    int drawnCount(const std::set<std::string>& open) const;
    // What a model opens with: all open up to kCollapseAbove nodes, else the deepest depth that
    // draws at most kDefaultBoxes (depth 0 when none does).
    std::set<std::string> defaultOpen() const;

    // "layers.0.attn" -> {"layers", "layers.0", "layers.0.attn"}.
    static std::vector<std::string> chain(const std::string& scope);
    // The outermost scope around a node of `scope` that is not open, or "" when all are.
    static std::string closedAround(const std::string& scope, const std::set<std::string>& open);

private:
    std::unordered_map<std::string, Scope> scopes_;
    std::vector<std::string> roots_;
    int rootNodes_ = 0; // shown top-level nodes of the root scope
    int maxDepth_ = 0;
};

} // namespace fxview
