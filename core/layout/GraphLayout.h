#pragma once
// Graphviz's `dot` layout of an fx-style graph, as plain data: node boxes, edge splines and the
// rectangles of module scopes and control-flow blocks. No Graphviz type leaves GraphLayout.cpp.
// Coordinates are in points, y pointing down, origin at the top-left of the drawing.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Graph.h"

namespace fxview {

struct PointF {
    double x = 0, y = 0;
};

struct RectF {
    double x = 0, y = 0, width = 0, height = 0;
    bool contains(const PointF& p, double tolerance = 0) const {
        return p.x >= x - tolerance && p.x <= x + width + tolerance && p.y >= y - tolerance &&
               p.y <= y + height + tolerance;
    }
    bool contains(const RectF& r) const {
        return contains(PointF{r.x, r.y}) && contains(PointF{r.x + r.width, r.y + r.height});
    }
};

struct NodeBox {
    std::string name;
    RectF box;
};

struct EdgePath {
    std::string from, to;
    // A cubic B-spline as Graphviz computed it: start point, then three points per segment
    // (two control points and an end point), ready for QPainterPath::cubicTo.
    std::vector<PointF> spline;
    bool hasArrow = false;
    PointF arrowTip;            // where the arrow head touches the target box
    bool toBlockResult = false; // a block yields this value to its control-flow node
};

struct ClusterBox {
    std::string id;    // "layer1.0", or "cond_1/true" for a block
    std::string label; // what the cluster shows
    bool isBlock = false;
    RectF box;
};

struct GraphLayout {
    RectF bounds;
    std::vector<NodeBox> nodes;
    std::vector<EdgePath> edges;
    std::vector<ClusterBox> clusters;
    std::string error;
    bool ok() const { return error.empty(); }
    const NodeBox* node(const std::string& name) const;
};

struct LayoutOptions {
    bool showHidden = false;
    // Whether `n` is a box of the picture: hidden nodes only when asked for, and never a weight
    // its reader's box lists (Node::drawnInside).
    bool draws(const Node& n) const { return (showHidden || !n.hidden) && !n.drawnInside; }
    // For a layout off the GUI thread: called after each piece of a layout in pieces with
    // (pieces done, pieces); false stops it there, with kLayoutCancelled as its error.
    std::function<bool(int done, int total)> piecesDone;
};

inline constexpr const char* kLayoutCancelled = "The layout was cancelled.";

// The pieces of a graph laid out before (LayoutSegments.h), by what they hold: laying out a graph
// again after one module scope opened or closed reuses every piece it did not touch, so that
// the picture above the change stays exactly where it was and only that piece costs time.
class LayoutCache {
public:
    LayoutCache();
    ~LayoutCache();
    int reused() const;  // pieces taken from the cache since it was made
    int laidOut() const; // pieces dot laid out

private:
    friend GraphLayout layoutGraph(const Graph&, const std::function<PointF(const Node&)>&,
                                   const LayoutOptions&, LayoutCache*);
    struct Pieces;
    std::unique_ptr<Pieces> d;
};

// Lays the graph out top to bottom; `boxSize` gives each node's box in points. With a cache the
// graph is laid out in small pieces wherever it can be cut, each looked up first.
GraphLayout layoutGraph(const Graph& graph, const std::function<PointF(const Node&)>& boxSize,
                        const LayoutOptions& options = {}, LayoutCache* cache = nullptr);

// The graph as Graphviz DOT source with labels and clusters, which `dot -Tsvg` renders.
std::string graphToDot(const Graph& graph, const LayoutOptions& options = {});

} // namespace fxview
