#include "LayoutSegments.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace fxview {

namespace {

bool shown(const Node& n, const LayoutOptions& options) {
    return options.draws(n);
}

// Every shown node's name mapped to the position of the top-level node it belongs to (itself,
// or the if or loop whose block holds it).
void mapOwners(const std::vector<Node>& nodes, int owner, const LayoutOptions& options,
               std::unordered_map<std::string, int>& ownerOf) {
    for (const Node& n : nodes) {
        if (!shown(n, options))
            continue;
        ownerOf[n.name] = owner;
        for (const Block& b : n.blocks)
            mapOwners(b.nodes, owner, options, ownerOf);
    }
}

// The edges the layout draws (as GraphLayout's builder makes them): producer to consumer for
// every node an argument names, and a block's results to its if or loop.
void forEachEdge(const std::vector<Node>& nodes, const LayoutOptions& options,
                 const std::function<void(const std::string&, const std::string&)>& edge) {
    for (const Node& n : nodes) {
        if (!shown(n, options))
            continue;
        n.forEachInput([&](const std::string& producer) { edge(producer, n.name); });
        for (const Block& b : n.blocks)
            forEachEdge(b.nodes, options, edge);
    }
}

void translate(RectF& r, double dx, double dy) {
    r.x += dx;
    r.y += dy;
}

RectF united(const RectF& a, const RectF& b) {
    double left = std::min(a.x, b.x), top = std::min(a.y, b.y);
    double right = std::max(a.x + a.width, b.x + b.width);
    double bottom = std::max(a.y + a.height, b.y + b.height);
    return RectF{left, top, right - left, bottom - top};
}

} // namespace

GraphSegments splitAtCuts(const Graph& graph, const LayoutOptions& options, int minNodes,
                          bool sourcesHang) {
    // Positions of the shown top-level nodes, and the edges between those positions.
    std::vector<std::size_t> top; // position -> index in graph.nodes
    std::unordered_map<std::string, int> ownerOf;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        if (shown(graph.nodes[i], options)) {
            mapOwners({graph.nodes[i]}, static_cast<int>(top.size()), options, ownerOf);
            top.push_back(i);
        }
    const int count = static_cast<int>(top.size());
    std::vector<int> cover(static_cast<std::size_t>(count) + 1, 0); // edges passing over
    std::vector<bool> hasUser(static_cast<std::size_t>(count), false);
    std::vector<bool> hasProducer(static_cast<std::size_t>(count), false);
    forEachEdge(graph.nodes, options, [&](const std::string& from, const std::string& to) {
        auto a = ownerOf.find(from), b = ownerOf.find(to);
        if (a == ownerOf.end() || b == ownerOf.end() || a->second == b->second)
            return;
        int lo = std::min(a->second, b->second), hi = std::max(a->second, b->second);
        hasUser[static_cast<std::size_t>(lo)] = true;
        hasProducer[static_cast<std::size_t>(hi)] = true;
        cover[static_cast<std::size_t>(lo) + 1] += 1; // passes over lo+1 .. hi-1
        cover[static_cast<std::size_t>(hi)] -= 1;
    });
    // The last node after the first with no producer, and how many nodes up to each position
    // feed nothing: the two cut conditions below, each answered in constant time.
    int lastSource = 0;
    std::vector<int> withoutUser(static_cast<std::size_t>(count) + 1, 0);
    for (int p = 0; p < count; ++p) {
        if (p > 0 && !hasProducer[static_cast<std::size_t>(p)])
            lastSource = p;
        withoutUser[static_cast<std::size_t>(p) + 1] =
            withoutUser[static_cast<std::size_t>(p)] +
            (hasUser[static_cast<std::size_t>(p)] ? 0 : 1);
    }
    std::vector<int> cuts;
    int start = 0, passing = 0;
    for (int c = 1; c + 1 < count; ++c) {
        passing += cover[static_cast<std::size_t>(c)];
        if (passing != 0 || c - start + 1 < minNodes || count - c < minNodes ||
            !graph.nodes[top[static_cast<std::size_t>(c)]].blocks.empty()) // an if or loop
            continue;                                                      // is never shared
        // The part [start, c]: the cut must be its lowest node, so every other one feeds
        // something; and the part from c on must hang below it: no other node without a
        // producer up to the next cut (checked up to the end here, conservatively).
        bool everyOneFeeds = withoutUser[static_cast<std::size_t>(c)] ==
                             withoutUser[static_cast<std::size_t>(start)];
        if (!everyOneFeeds || (lastSource > c && !sourcesHang))
            continue;
        cuts.push_back(c);
        start = c;
    }
    GraphSegments segments;
    int from = 0;
    cuts.push_back(count - 1);
    for (int cut : cuts) {
        Graph part;
        part.modelClass = graph.modelClass;
        for (std::size_t i = top[static_cast<std::size_t>(from)];
             i <= top[static_cast<std::size_t>(cut)]; ++i)
            part.nodes.push_back(graph.nodes[i]);
        segments.parts.push_back(std::move(part));
        if (cut != count - 1)
            segments.cuts.push_back(graph.nodes[top[static_cast<std::size_t>(cut)]].name);
        from = cut;
    }
    return segments;
}

GraphLayout stackSegments(const std::vector<GraphLayout>& parts,
                          const std::vector<std::string>& cuts) {
    GraphLayout out = parts.front();
    std::map<std::string, std::size_t> clusterAt;
    for (std::size_t i = 0; i < out.clusters.size(); ++i)
        clusterAt[out.clusters[i].id] = i;
    // Each cut is placed by the part before it: found there, not in everything placed so far
    // (a layout cut into 12-node pieces has hundreds of cuts).
    std::size_t previousStart = 0;
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const std::string& cut = cuts[k - 1];
        const NodeBox* placed = nullptr;
        for (std::size_t i = previousStart; i < out.nodes.size() && !placed; ++i)
            if (out.nodes[i].name == cut)
                placed = &out.nodes[i];
        const NodeBox* local = parts[k].node(cut);
        if (!placed || !local) {
            out.error = "The graph's pieces could not be joined at " + cut + ".";
            return out;
        }
        double dx = placed->box.x + placed->box.width / 2 - local->box.x - local->box.width / 2;
        double dy = placed->box.y + placed->box.height / 2 - local->box.y - local->box.height / 2;
        previousStart = out.nodes.size();
        for (NodeBox n : parts[k].nodes) {
            if (n.name == cut)
                continue;
            translate(n.box, dx, dy);
            out.nodes.push_back(n);
        }
        for (EdgePath e : parts[k].edges) {
            for (PointF& p : e.spline)
                p = PointF{p.x + dx, p.y + dy};
            e.arrowTip = PointF{e.arrowTip.x + dx, e.arrowTip.y + dy};
            out.edges.push_back(e);
        }
        for (ClusterBox c : parts[k].clusters) {
            translate(c.box, dx, dy);
            auto it = clusterAt.find(c.id);
            if (it != clusterAt.end()) {
                RectF& box = out.clusters[it->second].box;
                box = united(box, c.box);
            } else {
                clusterAt[c.id] = out.clusters.size();
                out.clusters.push_back(c);
            }
        }
        RectF bounds = parts[k].bounds;
        translate(bounds, dx, dy);
        out.bounds = united(out.bounds, bounds);
    }
    return out;
}

} // namespace fxview
