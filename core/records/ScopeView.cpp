#include "ScopeView.h"

#include <algorithm>

#include "NodeNamer.h"

namespace fxview {

namespace {

template <typename T> void addOnce(std::vector<T>& list, const T& item) {
    if (std::find(list.begin(), list.end(), item) == list.end())
        list.push_back(item);
}

void renameRefs(Argument& a, const std::unordered_map<std::string, std::string>& boxOf) {
    if (a.isNode()) {
        auto it = boxOf.find(a.text);
        if (it != boxOf.end())
            a.text = it->second;
    }
    for (Argument& item : a.items)
        renameRefs(item, boxOf);
}

// A node shown as it is whose arguments name nodes now inside boxes: they name the boxes.
void renameRefs(Node& n, const std::unordered_map<std::string, std::string>& boxOf) {
    for (Argument& a : n.args)
        renameRefs(a, boxOf);
    for (KeywordArgument& k : n.kwargs)
        renameRefs(k.value, boxOf);
    for (Block& b : n.blocks) {
        for (Node& inner : b.nodes)
            renameRefs(inner, boxOf);
        for (Argument& r : b.results)
            renameRefs(r, boxOf);
    }
}

void markInside(const Node& n, const std::string& box,
                std::unordered_map<std::string, std::string>& boxOf) {
    boxOf[n.name] = box;
    for (const Block& b : n.blocks)
        for (const Node& inner : b.nodes)
            markInside(inner, box, boxOf);
}

// Calls `use(producer, consumer)` for every value a node takes: its arguments, and for an if or
// a loop what its blocks' nodes take and what the blocks yield back to it.
void forEachUse(const Node& n,
                const std::function<void(const std::string&, const std::string&)>& use) {
    n.forEachInput([&](const std::string& producer) { use(producer, n.name); });
    for (const Block& b : n.blocks)
        for (const Node& inner : b.nodes)
            forEachUse(inner, use);
}

std::string shapesOf(const std::vector<std::string>& nodes,
                     const std::function<const NodeRecord*(const std::string&)>& recordOf) {
    std::string text;
    int shown = 0;
    for (const std::string& name : nodes) {
        const NodeRecord* r = recordOf(name);
        if (!r || r->state != NodeState::Done)
            continue;
        if (++shown > 2) {
            text += ", …";
            break;
        }
        text += (text.empty() ? "" : ", ") + shortDescription(r->value);
    }
    return text;
}

// A weight outside every scope (a .pt2 lifts parameters and buffers to placeholders at the top)
// whose every user is inside one box goes into that box: drawn outside, dozens of them would
// make a row as wide as the model has weights, all feeding the same few boxes.
void foldWeights(const Graph& graph, ScopeView& view, std::vector<std::string>& order) {
    std::unordered_map<std::string, std::string> folded; // weight -> its box
    for (const Node& n : graph.nodes) {
        const bool weight = (n.op == Op::Placeholder && !n.isInput()) || n.op == Op::GetAttr;
        if (!weight || n.users.empty() || view.boxOf.count(n.name))
            continue;
        auto first = view.boxOf.find(n.users.front());
        if (first == view.boxOf.end())
            continue;
        bool oneBox = std::all_of(n.users.begin(), n.users.end(), [&](const std::string& u) {
            auto it = view.boxOf.find(u);
            return it != view.boxOf.end() && it->second == first->second;
        });
        if (!oneBox)
            continue;
        view.boxes[first->second].weights.push_back(n.name);
        folded.emplace(n.name, first->second);
    }
    for (const auto& [name, box] : folded)
        view.boxOf[name] = box;
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](const std::string& name) { return folded.count(name) > 0; }),
                order.end());
}

bool isWeight(const Node& n) {
    return ((n.op == Op::Placeholder && !n.isInput()) || n.op == Op::GetAttr) && !n.hidden &&
           n.tensors.size() == 1; // a tensor, not a module or a packed-params object
}

// One list of nodes (the graph's, or a block's): a weight's reader must be beside it.
void drawInside(std::vector<Node>& nodes, int& count) {
    std::unordered_map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        at[nodes[i].name] = i;
    for (Node& weight : nodes) {
        if (!isWeight(weight) || weight.users.size() > 1 || weight.drawnInside)
            continue; // drawn inside already: a graph folded twice lists each weight once
        if (!weight.users.empty()) {
            auto reader = at.find(weight.users.front());
            if (reader == at.end())
                continue;
            Node& r = nodes[reader->second];
            if (r.hidden || isWeight(r))
                continue;
            r.weightsInside.push_back(weight.tensors.front());
        }
        weight.drawnInside = true;
        ++count;
    }
    for (Node& n : nodes)
        for (Block& b : n.blocks)
            drawInside(b.nodes, count);
}

void mapReaders(const std::vector<Node>& nodes,
                std::unordered_map<std::string, std::string>& readerOf) {
    for (const Node& n : nodes) {
        if (n.drawnInside && !n.users.empty())
            readerOf[n.name] = n.users.front();
        for (const Block& b : n.blocks)
            mapReaders(b.nodes, readerOf);
    }
}

} // namespace

int drawWeightsInside(Graph& graph) {
    int count = 0;
    drawInside(graph.nodes, count);
    return count;
}

const ScopeBox* ScopeView::box(const std::string& name) const {
    auto it = boxes.find(name);
    return it == boxes.end() ? nullptr : &it->second;
}

const std::string& ScopeView::shownName(const std::string& node) const {
    auto it = boxOf.find(node);
    if (it != boxOf.end())
        return it->second;
    auto reader = weightReader.find(node);
    return reader == weightReader.end() ? node : shownName(reader->second);
}

std::string ScopeView::boxFor(const std::string& scope) const {
    for (const Node& n : graph.nodes) // the first in graph order, if it has several
        if (const ScopeBox* b = box(n.name); b && b->scope == scope)
            return n.name;
    return {};
}

const ScopeBox* ScopeView::boxRunning(const std::string& node) const {
    auto it = boxOf.find(node);
    if (it == boxOf.end())
        return nullptr;
    const ScopeBox* b = box(it->second);
    bool member = std::find(b->members.begin(), b->members.end(), node) != b->members.end();
    return member ? b : nullptr;
}

std::vector<std::string> ScopeView::valuesOf(const std::string& from, const std::string& to) const {
    auto it = edgeValues.find({from, to});
    return it == edgeValues.end() ? std::vector<std::string>{from} : it->second;
}

namespace {

ScopeView collapsed(const Graph& graph, const ScopeTree& tree, const std::set<std::string>& open);

} // namespace

ScopeView collapseScopes(const Graph& graph, const ScopeTree& tree,
                         const std::set<std::string>& open, bool weightsAsNodes) {
    ScopeView view = collapsed(graph, tree, open);
    if (!weightsAsNodes && drawWeightsInside(view.graph) > 0)
        mapReaders(view.graph.nodes, view.weightReader);
    return view;
}

namespace {

ScopeView collapsed(const Graph& graph, const ScopeTree& tree, const std::set<std::string>& open) {
    ScopeView view;
    view.graph.modelClass = graph.modelClass;
    NodeNamer namer;
    graph.forEachNode([&](const Node& n, int) { namer.claim(n.name); });
    // A scope's nodes in one run are one box. A scope whose nodes come in two runs with
    // something drawn between them (a module called twice, or a shared one called from inside
    // another) is two boxes, as torch.fx records two calls: one box would need its own output
    // before its input, a cycle.
    std::unordered_map<std::string, std::string> runOf; // scope -> its box still taking nodes
    std::string lastDrawn;                              // the last shown node or box in order
    std::vector<std::string> order; // the view's nodes: a node's own name, or a box's
    for (const Node& n : graph.nodes) {
        std::string closed = ScopeTree::closedAround(n.scope, open);
        if (closed.empty()) {
            order.push_back(n.name);
            if (!n.hidden)
                lastDrawn = n.name;
            continue;
        }
        auto run = runOf.find(closed);
        // A run goes on over hidden nodes, and until it has a shown node of its own.
        if (run == runOf.end() ||
            (!n.hidden && lastDrawn != run->second && view.boxes[run->second].shownMembers > 0)) {
            // Named as torch.fx names a call_module of that path: "layers.0" -> layers_0.
            std::string name = namer.create(closed);
            view.boxes[name].scope = closed;
            order.push_back(name);
            run = runOf.insert_or_assign(closed, name).first;
        }
        ScopeBox& box = view.boxes[run->second];
        box.members.push_back(n.name);
        if (box.first.empty())
            box.first = n.name;
        if (!n.hidden) {
            box.last = n.name;
            ++box.shownMembers;
            lastDrawn = run->second;
        }
        markInside(n, run->second, view.boxOf);
    }
    if (view.boxes.empty()) {
        view.graph = graph;
        return view;
    }
    foldWeights(graph, view, order);

    // What crosses each box's border, and what each merged edge carries.
    for (const Node& n : graph.nodes)
        forEachUse(n, [&](const std::string& producer, const std::string& consumer) {
            const std::string& from = view.shownName(producer);
            const std::string& to = view.shownName(consumer);
            if (from == to)
                return;
            bool fromBox = view.boxes.count(from) > 0, toBox = view.boxes.count(to) > 0;
            if (!fromBox && !toBox)
                return;
            addOnce(view.edgeValues[{from, to}], producer);
            if (toBox)
                addOnce(view.boxes[to].inputs, producer);
            if (fromBox)
                addOnce(view.boxes[from].outputs, producer);
        });

    std::unordered_map<std::string, const Node*> byName;
    for (const Node& n : graph.nodes)
        byName[n.name] = &n;
    view.graph.nodes.reserve(order.size());
    for (const std::string& name : order) {
        auto box = view.boxes.find(name);
        if (box == view.boxes.end()) {
            Node n = *byName.at(name);
            renameRefs(n, view.boxOf);
            view.graph.nodes.push_back(std::move(n));
            continue;
        }
        const Scope* scope = tree.find(box->second.scope);
        Node b;
        b.op = Op::CallModule;
        b.name = name;
        b.target = box->second.scope;
        b.moduleType = scope ? scope->type : "";
        b.scope = scope ? scope->parent : "";
        b.collapsedNodes = box->second.shownMembers;
        b.hidden = b.collapsedNodes == 0; // nothing in it a person would see
        if (b.hidden)                     // only guards: they run with the next shown node
            box->second.last = box->second.members.back();
        std::vector<std::string> producers;
        for (const std::string& input : box->second.inputs)
            addOnce(producers, view.shownName(input));
        for (const std::string& p : producers)
            b.args.push_back(Argument::ofNode(p));
        view.graph.nodes.push_back(std::move(b));
    }
    view.graph.recomputeUsers();
    return view;
}

} // namespace

ScopeRun scopeRun(const ScopeBox& box,
                  const std::function<const NodeRecord*(const std::string&)>& recordOf,
                  bool currentInside) {
    ScopeRun run;
    bool anyDone = false;
    for (const std::string& member : box.members) {
        const NodeRecord* r = recordOf(member);
        if (r && r->state == NodeState::Failed)
            run.state = ScopeRun::State::Failed;
        anyDone = anyDone || (r && r->state == NodeState::Done);
    }
    if (run.state != ScopeRun::State::Failed) {
        run.state = currentInside ? ScopeRun::State::Running
                    : anyDone     ? ScopeRun::State::Done
                                  : ScopeRun::State::NotRun;
    }
    std::string in = shapesOf(box.inputs, recordOf), out = shapesOf(box.outputs, recordOf);
    if (!in.empty() || !out.empty())
        run.shapes = (in.empty() ? "?" : in) + " → " + (out.empty() ? "?" : out);
    return run;
}

} // namespace fxview
