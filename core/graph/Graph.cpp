#include "Graph.h"

#include <map>
#include <set>

namespace fxview {

const char* placeholderKindName(PlaceholderKind kind) {
    switch (kind) {
    case PlaceholderKind::Parameter:
        return "parameter";
    case PlaceholderKind::Buffer:
        return "buffer";
    case PlaceholderKind::Constant:
        return "constant";
    case PlaceholderKind::Input:
        break;
    }
    return "input";
}

const char* opName(Op op) {
    switch (op) {
    case Op::Placeholder:
        return "placeholder";
    case Op::GetAttr:
        return "get_attr";
    case Op::CallModule:
        return "call_module";
    case Op::CallFunction:
        return "call_function";
    case Op::CallMethod:
        return "call_method";
    case Op::Output:
        return "output";
    }
    return "?";
}

Argument Argument::ofBool(bool v) {
    Argument a;
    a.kind = Kind::Bool;
    a.boolean = v;
    return a;
}
Argument Argument::ofInt(std::int64_t v) {
    Argument a;
    a.kind = Kind::Int;
    a.integer = v;
    return a;
}
Argument Argument::ofFloat(double v) {
    Argument a;
    a.kind = Kind::Float;
    a.real = v;
    return a;
}
Argument Argument::ofString(std::string v) {
    Argument a;
    a.kind = Kind::String;
    a.text = std::move(v);
    return a;
}
Argument Argument::ofNode(std::string name) {
    Argument a;
    a.kind = Kind::NodeRef;
    a.text = std::move(name);
    return a;
}
Argument Argument::ofRepr(std::string text) {
    Argument a;
    a.kind = Kind::Repr;
    a.text = std::move(text);
    return a;
}
Argument Argument::ofList(std::vector<Argument> items) {
    Argument a;
    a.kind = Kind::List;
    a.items = std::move(items);
    return a;
}
Argument Argument::ofTuple(std::vector<Argument> items) {
    Argument a;
    a.kind = Kind::Tuple;
    a.items = std::move(items);
    return a;
}

Argument Argument::ofDict(std::vector<std::pair<Argument, Argument>> entries) {
    Argument a;
    a.kind = Kind::Dict;
    for (auto& [key, value] : entries)
        a.items.push_back(ofTuple({std::move(key), std::move(value)}));
    return a;
}

void Argument::forEachNodeRef(const std::function<void(const std::string&)>& visit) const {
    if (kind == Kind::NodeRef)
        visit(text);
    for (const Argument& item : items)
        item.forEachNodeRef(visit);
}

bool operator==(const Argument& a, const Argument& b) {
    return a.kind == b.kind && a.boolean == b.boolean && a.integer == b.integer &&
           a.real == b.real && a.text == b.text && a.items == b.items;
}

namespace {
void walk(const std::vector<Node>& nodes, int depth,
          const std::function<void(const Node&, int)>& visit) {
    for (const Node& node : nodes) {
        visit(node, depth);
        for (const Block& block : node.blocks)
            walk(block.nodes, depth + 1, visit);
    }
}

template <typename F> void forEachNodeMutable(std::vector<Node>& nodes, const F& visit) {
    for (Node& node : nodes) {
        visit(node);
        for (Block& block : node.blocks)
            forEachNodeMutable(block.nodes, visit);
    }
}
} // namespace

void Graph::forEachNode(const std::function<void(const Node&, int)>& visit) const {
    walk(nodes, 0, visit);
}

void Graph::recomputeUsers() {
    std::map<std::string, Node*> byName;
    forEachNodeMutable(nodes, [&](Node& n) {
        n.users.clear();
        byName[n.name] = &n;
    });
    // A user is recorded once however many times it names the node, as in torch.fx.
    std::map<std::string, std::set<std::string>> seen;
    auto addUse = [&](const std::string& producer, const std::string& user) {
        auto it = byName.find(producer);
        if (it != byName.end() && seen[producer].insert(user).second)
            it->second->users.push_back(user);
    };
    forEachNodeMutable(nodes, [&](Node& n) {
        n.forEachInput([&](const std::string& producer) { addUse(producer, n.name); });
    });
}

void Node::forEachInput(const std::function<void(const std::string&)>& visit) const {
    for (const Argument& a : args)
        a.forEachNodeRef(visit);
    for (const KeywordArgument& k : kwargs)
        k.value.forEachNodeRef(visit);
    // What a block yields is consumed by the control-flow node that owns it.
    for (const Block& b : blocks)
        for (const Argument& r : b.results)
            r.forEachNodeRef(visit);
}

const Node* Graph::find(const std::string& name) const {
    const Node* found = nullptr;
    forEachNode([&](const Node& n, int) {
        if (!found && n.name == name)
            found = &n;
    });
    return found;
}

int Graph::nodeCount(bool includeHidden) const {
    int count = 0;
    forEachNode([&](const Node& n, int) {
        if (includeHidden || !n.hidden)
            ++count;
    });
    return count;
}

} // namespace fxview
