#include "ScopeTree.h"

#include <functional>

namespace fxview {

std::string shortClassName(const std::string& type) {
    return type.substr(type.rfind('.') + 1); // npos + 1 is 0: the whole name
}

std::vector<std::string> ScopeTree::chain(const std::string& scope) {
    std::vector<std::string> paths;
    for (std::size_t dot = 0; !scope.empty();) {
        dot = scope.find('.', dot);
        paths.push_back(scope.substr(0, dot));
        if (dot == std::string::npos)
            break;
        ++dot;
    }
    return paths;
}

std::string ScopeTree::closedAround(const std::string& scope, const std::set<std::string>& open) {
    for (const std::string& path : chain(scope))
        if (!open.count(path))
            return path;
    return {};
}

ScopeTree::ScopeTree(const Graph& graph) {
    for (const Node& n : graph.nodes) {
        std::string parent;
        const std::vector<std::string> paths = chain(n.scope);
        for (std::size_t i = 0; i < paths.size(); ++i) {
            const std::string& path = paths[i];
            auto [it, made] = scopes_.try_emplace(path);
            Scope& s = it->second;
            if (made) {
                s.path = path;
                s.parent = parent;
                s.depth = static_cast<int>(i) + 1;
                s.firstNode = n.name;
                (parent.empty() ? roots_ : scopes_[parent].children).push_back(path);
                maxDepth_ = std::max(maxDepth_, s.depth);
            }
            // A hidden node runs along with the next shown one: a run stops after shown ones.
            if (!n.hidden || s.nodeCount == 0)
                s.lastNode = n.name;
            if (!n.hidden) {
                ++s.nodeCount;
                if (i + 1 == paths.size())
                    ++s.ownNodes;
            }
            parent = path;
        }
        if (paths.empty() && !n.hidden)
            ++rootNodes_;
        if (!paths.empty() && !n.scopeType.empty()) {
            Scope& own = scopes_[paths.back()];
            if (own.type.empty())
                own.type = n.scopeType;
        }
    }
}

const Scope* ScopeTree::find(const std::string& path) const {
    auto it = scopes_.find(path);
    return it == scopes_.end() ? nullptr : &it->second;
}

std::vector<const Scope*> ScopeTree::preorder() const {
    std::vector<const Scope*> out;
    out.reserve(scopes_.size());
    std::function<void(const std::string&)> visit = [&](const std::string& path) {
        const Scope& s = scopes_.at(path);
        out.push_back(&s);
        for (const std::string& child : s.children)
            visit(child);
    };
    for (const std::string& root : roots_)
        visit(root);
    return out;
}

std::set<std::string> ScopeTree::openToDepth(int depth) const {
    std::set<std::string> open;
    for (const auto& [path, scope] : scopes_)
        if (scope.depth <= depth)
            open.insert(path);
    return open;
}

int ScopeTree::drawnCount(const std::set<std::string>& open) const {
    std::function<int(const Scope&)> drawn = [&](const Scope& s) {
        if (!open.count(s.path))
            return s.nodeCount > 0 ? 1 : 0;
        int count = s.ownNodes;
        for (const std::string& child : s.children)
            count += drawn(scopes_.at(child));
        return count;
    };
    int count = rootNodes_;
    for (const std::string& root : roots_)
        count += drawn(scopes_.at(root));
    return count;
}

std::set<std::string> ScopeTree::defaultOpen() const {
    std::set<std::string> all = allOpen();
    if (drawnCount(all) <= kCollapseAbove)
        return all;
    for (int depth = maxDepth_ - 1; depth > 0; --depth) {
        std::set<std::string> open = openToDepth(depth);
        if (drawnCount(open) <= kDefaultBoxes)
            return open;
    }
    return {};
}

} // namespace fxview
