// The one place that talks to Graphviz. Graphviz is not thread-safe, not even for reads, so every
// cgraph/gvc call happens under one lock; results are copied into plain structs and the graph is
// closed before the lock is released.

#include "GraphLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "LayoutSegments.h"
#include "ScopeTree.h"

namespace fxview {

namespace {

// Above this many nodes dot is tuned for speed and the graph is laid out in pieces where it
// can be (see LayoutSegments.h), each piece at least kMinSegment nodes.
constexpr int kBigGraph = 400;
constexpr int kMinSegment = 60;
// Above this many ranks crossed by edges per node, dot's x placement is not iterated (see build).
// densenet121's three pieces cross 21, 46 and 105 per node; ResNets, MobileNetV2 and the generated
// chain under 1.
constexpr long kDenseEdges = 10;

std::mutex& graphvizLock() {
    static std::mutex lock;
    return lock;
}

// One context for the process: creating it loads Graphviz's plugins, which is slow.
GVC_t* context() {
    static GVC_t* gvc = gvContext();
    return gvc;
}

void set(void* object, const char* name, const std::string& value) {
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()),
              const_cast<char*>(""));
}

std::string inches(double points) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", points / 72.0);
    return buf;
}

const char* fillColor(Op op) {
    switch (op) {
    case Op::Placeholder:
        return "#d8f0d8";
    case Op::GetAttr:
        return "#f0e6d0";
    case Op::CallModule:
        return "#d6e4f5";
    case Op::CallFunction:
        return "#f5e0d0";
    case Op::CallMethod:
        return "#eadcf2";
    case Op::Output:
        return "#e0e0e0";
    }
    return "#ffffff";
}

// Builds the Agraph for a Graph: nodes in the cluster of their scope (nested like the module
// tree), block nodes in a cluster per block, an edge per use.
class AgraphBuilder {
public:
    AgraphBuilder(const Graph& graph, const LayoutOptions& options, bool withLabels)
        : graph_(graph), options_(options), labels_(withLabels) {
        Agdesc_t directed = Agdirected;
        g_ = agopen(const_cast<char*>("fx"), directed, nullptr);
    }
    ~AgraphBuilder() {
        if (g_)
            agclose(g_);
    }

    Agraph_t* build(const std::function<PointF(const Node&)>& boxSize, int nodeCount) {
        set(g_, "rankdir", "TB");
        set(g_, "nodesep", "0.25");
        set(g_, "ranksep", "0.35");
        set(g_, "splines", "spline"); // ortho and concentrate are known to hang or crash
        if (nodeCount > kBigGraph) {
            // Short network simplex and crossing minimisation: a 3,000-node graph lays out in
            // about half a second instead of minutes, with a few more crossings. (Measured on
            // chains with skips and clusters, 3,000 nodes: default 1.27 s; nslimit=1 0.52 s;
            // nslimit=0.3 0.34 s with edges as straight: mean chain offset 0.05 -> 0.01 in.)
            set(g_, "newrank", "true");
            set(g_, "nslimit", "0.3");
            set(g_, "nslimit1", "1");
            set(g_, "mclimit", "0.1");
            set(g_, "searchsize", "10");
            set(g_, "remincross", "false");
        }
        addNodes(graph_.nodes, nullptr, "", boxSize);
        addEdges(graph_.nodes);
        if (crossedRanks() > kDenseEdges * static_cast<long>(agnnodes(g_))) {
            // Edges that run past many ranks (densenet's concatenations) give dot's x-coordinate
            // network simplex tens of thousands of virtual nodes, and each of its iterations
            // walks them all; its first feasible placement is kept instead. densenet121: layout
            // 0.88 -> 0.44 s, graph 4% wider, edges as straight (mean end-to-end offset 316 vs
            // 317 pt). On chain-like graphs the iterations are cheap and keep clusters tight.
            set(g_, "nslimit", "0");
        }
        createEdges();
        return g_;
    }

    const std::map<Agraph_t*, ClusterBox>& clusters() const { return clusterInfo_; }
    const std::unordered_map<Agnode_t*, std::string>& nodeNames() const { return names_; }
    const std::set<Agedge_t*>& resultEdges() const { return resultEdges_; }

private:
    const Graph& graph_;
    LayoutOptions options_;
    bool labels_;
    Agraph_t* g_ = nullptr;
    std::unordered_map<std::string, Agnode_t*> nodes_;
    std::unordered_map<Agnode_t*, std::string> names_;
    std::map<std::string, Agraph_t*> clusterByKey_;
    std::map<std::string, int> runs_; // a scope's subgraph key -> how many runs it has had
    std::map<Agraph_t*, ClusterBox> clusterInfo_;
    std::set<Agedge_t*> resultEdges_;

    bool shown(const Node& n) const { return options_.draws(n); }

    Agraph_t* cluster(Agraph_t* parent, const std::string& key, const ClusterBox& info) {
        auto it = clusterByKey_.find(key);
        if (it != clusterByKey_.end())
            return it->second;
        std::string name = "cluster_" + std::to_string(clusterByKey_.size());
        Agraph_t* sub = agsubg(parent, const_cast<char*>(name.c_str()), 1);
        // Labelled in layout mode too, so that Graphviz leaves room for the title we draw.
        set(sub, "label", info.label);
        set(sub, "labeljust", "l");
        set(sub, "fontsize", "10");
        set(sub, "style", info.isBlock ? "dashed" : "rounded");
        set(sub, "margin", "10");
        clusterByKey_[key] = sub;
        clusterInfo_[sub] = info;
        return sub;
    }

    // The scope subgraphs each shown node of `nodes` goes in, outermost first: (path, key). A
    // scope is one subgraph for each run of its nodes: a module called twice with other work
    // between the calls (torch.export records resnet's one `relu` module around both relus of a
    // block) as one cluster would have to hold both ends of that work, and dot then pushes every
    // later cluster off to the side.
    using Homes = std::vector<std::vector<std::pair<std::string, std::string>>>;
    Homes scopeHomes(const std::vector<Node>& nodes, const std::string& rootKey,
                     std::map<std::string, int>& members) {
        Homes homes;
        const std::string* previous = nullptr; // the scope of the node drawn before
        for (const Node& n : nodes) {
            if (!shown(n))
                continue;
            homes.emplace_back();
            for (const std::string& path : ScopeTree::chain(n.scope)) {
                const std::string key = rootKey + "|" + path;
                const bool continues =
                    previous &&
                    (*previous == path || previous->compare(0, path.size() + 1, path + ".") == 0);
                int& run = runs_[key];
                if (!continues)
                    ++run;
                homes.back().emplace_back(path, key + "#" + std::to_string(run));
                ++members[homes.back().back().second];
            }
            previous = &n.scope;
        }
        return homes;
    }

    void addNodes(const std::vector<Node>& nodes, Agraph_t* within, const std::string& key,
                  const std::function<PointF(const Node&)>& boxSize) {
        std::map<std::string, int> members;
        const Homes homes = scopeHomes(nodes, key, members);
        std::size_t shownIndex = 0;
        for (const Node& n : nodes) {
            if (!shown(n))
                continue;
            // A frame around one box says nothing the box does not (a leaf module's call, as
            // torch.fx draws call_module): only runs of two or more nodes are framed.
            Agraph_t* home = within ? within : g_;
            for (const auto& [path, run] : homes[shownIndex++]) {
                if (members[run] < 2)
                    continue;
                ClusterBox info;
                info.id = path;
                info.label = path;
                home = cluster(home, run, info);
            }
            Agnode_t* a = agnode(home, const_cast<char*>(n.name.c_str()), 1);
            nodes_[n.name] = a;
            names_[a] = n.name;
            set(a, "shape", "box");
            if (labels_) {
                std::string target =
                    n.op == Op::Placeholder || n.op == Op::Output ? "" : "\\n" + n.target;
                set(a, "label", n.name + "\\n" + opName(n.op) + target);
                set(a, "style", "rounded,filled");
                set(a, "fillcolor", fillColor(n.op));
                set(a, "fontname", "Helvetica");
            } else {
                PointF size = boxSize(n);
                set(a, "label", "");
                set(a, "fixedsize", "true");
                set(a, "width", inches(size.x));
                set(a, "height", inches(size.y));
            }
            for (std::size_t b = 0; b < n.blocks.size(); ++b) {
                ClusterBox info;
                info.id = n.name + "/" + n.blocks[b].label;
                info.label = n.name + ": " + n.blocks[b].label;
                info.isBlock = true;
                Agraph_t* block = cluster(home, info.id, info);
                addNodes(n.blocks[b].nodes, block, info.id, boxSize);
            }
        }
    }

    struct PendingEdge {
        Agnode_t* from;
        Agnode_t* to;
        bool result;
    };
    std::vector<PendingEdge> pending_;

    void edge(const std::string& from, const std::string& to, bool result) {
        auto a = nodes_.find(from), b = nodes_.find(to);
        if (a == nodes_.end() || b == nodes_.end())
            return;
        pending_.push_back({a->second, b->second, result});
    }

    // Edges are made grouped by their tail, in node order, as `dot` makes them reading a file
    // written by agwrite: dot's ranking and positioning then take about 15% less time than with
    // edges grouped by head (measured on the 3,000-node chain).
    void createEdges() {
        std::stable_sort(pending_.begin(), pending_.end(),
                         [](const PendingEdge& x, const PendingEdge& y) {
                             return AGSEQ(x.from) < AGSEQ(y.from);
                         });
        for (const PendingEdge& p : pending_) {
            Agedge_t* e = agedge(g_, p.from, p.to, nullptr, 1);
            if (p.result) {
                resultEdges_.insert(e);
                set(e, "style", "dashed");
            }
        }
    }

    // How many ranks edges pass through without ending there, which dot fills with virtual nodes:
    // estimated from longest-path depths, the ranks newrank gives an fx graph.
    long crossedRanks() const {
        std::unordered_map<Agnode_t*, std::vector<Agnode_t*>> users;
        std::unordered_map<Agnode_t*, int> producersLeft, depth;
        for (const PendingEdge& p : pending_) {
            users[p.from].push_back(p.to);
            ++producersLeft[p.to];
        }
        std::vector<Agnode_t*> ready;
        for (Agnode_t* n = agfstnode(g_); n; n = agnxtnode(g_, n))
            if (producersLeft[n] == 0)
                ready.push_back(n);
        while (!ready.empty()) {
            Agnode_t* n = ready.back();
            ready.pop_back();
            for (Agnode_t* user : users[n]) {
                depth[user] = std::max(depth[user], depth[n] + 1);
                if (--producersLeft[user] == 0)
                    ready.push_back(user);
            }
        }
        long crossed = 0;
        for (const PendingEdge& p : pending_)
            crossed += std::max(0, depth[p.to] - depth[p.from] - 1);
        return crossed;
    }

    void addEdges(const std::vector<Node>& nodes) {
        for (const Node& n : nodes) {
            if (!shown(n))
                continue;
            std::set<std::string> producers;
            auto note = [&](const std::string& p) { producers.insert(p); };
            for (const Argument& a : n.args)
                a.forEachNodeRef(note);
            for (const KeywordArgument& k : n.kwargs)
                k.value.forEachNodeRef(note);
            for (const std::string& p : producers)
                edge(p, n.name, false);
            for (const Block& b : n.blocks) {
                std::set<std::string> results;
                for (const Argument& r : b.results)
                    r.forEachNodeRef([&](const std::string& p) { results.insert(p); });
                for (const std::string& p : results)
                    edge(p, n.name, true);
                addEdges(b.nodes);
            }
        }
    }
};

PointF toScene(const pointf& p, double top) {
    return PointF{p.x, top - p.y};
}

RectF boxToScene(const boxf& bb, double top) {
    return RectF{bb.LL.x, top - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
}

void collectClusters(Agraph_t* g, double top, const std::map<Agraph_t*, ClusterBox>& info,
                     std::vector<ClusterBox>& out) {
    for (Agraph_t* sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
        auto it = info.find(sub);
        if (it != info.end()) {
            ClusterBox c = it->second;
            c.box = boxToScene(GD_bb(sub), top);
            out.push_back(c);
        }
        collectClusters(sub, top, info, out);
    }
}

} // namespace

const NodeBox* GraphLayout::node(const std::string& name) const {
    for (const NodeBox& n : nodes)
        if (n.name == name)
            return &n;
    return nullptr;
}

namespace {

// One call of dot on the whole of `graph`, tuned for a graph of `tunedFor` nodes (a piece of a
// big graph gets the big graph's settings); the caller holds the Graphviz lock.
GraphLayout layOutWhole(const Graph& graph, const std::function<PointF(const Node&)>& boxSize,
                        const LayoutOptions& options, int tunedFor) {
    GraphLayout result;
    AgraphBuilder builder(graph, options, /*withLabels=*/false);
    Agraph_t* g = builder.build(boxSize, tunedFor);
    if (gvLayout(context(), g, "dot") != 0) {
        result.error = "Graphviz could not lay out this graph.";
        return result;
    }
    boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    result.bounds = boxToScene(bb, top);
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        NodeBox box;
        box.name = builder.nodeNames().at(n);
        double w = ND_width(n) * 72, h = ND_height(n) * 72;
        PointF centre = toScene(ND_coord(n), top);
        box.box = RectF{centre.x - w / 2, centre.y - h / 2, w, h};
        result.nodes.push_back(box);
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            EdgePath path;
            path.from = box.name;
            path.to = builder.nodeNames().at(aghead(e));
            path.toBlockResult = builder.resultEdges().count(e) > 0;
            if (splines* spl = ED_spl(e); spl && spl->size > 0) {
                const bezier& bz = spl->list[0];
                // bz.size is an int before Graphviz 13, a size_t after.
                for (std::size_t i = 0; i < static_cast<std::size_t>(bz.size); ++i)
                    path.spline.push_back(toScene(bz.list[i], top));
                path.hasArrow = bz.eflag != 0;
                path.arrowTip = path.hasArrow ? toScene(bz.ep, top) : path.spline.back();
            }
            result.edges.push_back(path);
        }
    }
    collectClusters(g, top, builder.clusters(), result.clusters);
    gvFreeLayout(context(), g);
    return result;
}

} // namespace

struct LayoutCache::Pieces {
    std::unordered_map<std::string, GraphLayout> byContent;
    int reused = 0, laidOut = 0;
};

LayoutCache::LayoutCache() : d(std::make_unique<Pieces>()) {}
LayoutCache::~LayoutCache() = default;
int LayoutCache::reused() const {
    return d->reused;
}
int LayoutCache::laidOut() const {
    return d->laidOut;
}

namespace {

// Pieces of a cached layout: small enough that opening one scope relays out little, big
// enough that dot still places the nodes of a block together.
constexpr int kMinCachedSegment = 12;
constexpr std::size_t kMaxCachedPieces = 4000;

// Everything dot's result depends on: each shown node's name, scope, box size and producers,
// block by block, and the tuning.
std::string contentKey(const Graph& part, const std::function<PointF(const Node&)>& boxSize,
                       const LayoutOptions& options, bool big) {
    std::string key = big ? "B" : "s";
    part.forEachNode([&](const Node& n, int depth) {
        if (!options.draws(n))
            return;
        PointF size = boxSize(n);
        key += "\n" + std::to_string(depth) + n.name + "|" + n.scope + "|" +
               std::to_string(size.x) + "x" + std::to_string(size.y) + "|" +
               std::to_string(n.blocks.size());
        n.forEachInput([&key](const std::string& p) { key += "," + p; });
    });
    return key;
}

} // namespace

GraphLayout layoutGraph(const Graph& graph, const std::function<PointF(const Node&)>& boxSize,
                        const LayoutOptions& options, LayoutCache* cache) {
    std::lock_guard<std::mutex> lock(graphvizLock());
    const int count = graph.nodeCount(options.showHidden);
    if (count <= kBigGraph && !cache)
        return layOutWhole(graph, boxSize, options, count);
    GraphSegments segments = cache ? splitAtCuts(graph, options, kMinCachedSegment, true)
                                   : splitAtCuts(graph, options, kMinSegment);
    std::vector<GraphLayout> parts;
    const int total = static_cast<int>(segments.parts.size());
    for (const Graph& part : segments.parts) {
        if (options.piecesDone && !options.piecesDone(static_cast<int>(parts.size()), total)) {
            GraphLayout cancelled;
            cancelled.error = kLayoutCancelled;
            return cancelled;
        }
        std::string key;
        if (cache) {
            key = contentKey(part, boxSize, options, count > kBigGraph);
            auto hit = cache->d->byContent.find(key);
            if (hit != cache->d->byContent.end()) {
                ++cache->d->reused;
                parts.push_back(hit->second);
                continue;
            }
        }
        parts.push_back(layOutWhole(part, boxSize, options, count));
        if (!parts.back().ok())
            return parts.back();
        if (cache) {
            ++cache->d->laidOut;
            if (cache->d->byContent.size() > kMaxCachedPieces)
                cache->d->byContent.clear();
            cache->d->byContent.emplace(std::move(key), parts.back());
        }
    }
    return parts.size() == 1 ? parts.front() : stackSegments(parts, segments.cuts);
}

std::string graphToDot(const Graph& graph, const LayoutOptions& options) {
    std::lock_guard<std::mutex> lock(graphvizLock());
    AgraphBuilder builder(graph, options, /*withLabels=*/true);
    // The same tuning as the app's layout, so that `dot` on this file draws the same picture.
    Agraph_t* g =
        builder.build([](const Node&) { return PointF{}; }, graph.nodeCount(options.showHidden));
    char* buffer = nullptr;
    std::size_t size = 0;
    FILE* out = open_memstream(&buffer, &size);
    agwrite(g, out);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

} // namespace fxview
