#include "ExecutedPath.h"

#include <unordered_map>

#include "NodeNamer.h"

namespace fxview {

namespace {

class PathBuilder {
public:
    PathBuilder(const Graph& graph, std::unordered_map<std::string, ValueSummary>* values)
        : values_(values) {
        path_.modelClass = graph.modelClass;
    }

    void apply(const PathEvent& e) {
        const Node& n = *e.node;
        switch (e.kind) {
        case PathEvent::Kind::Ran:
            if (n.blocks.empty()) // control flow leaves no node; its blocks' nodes do
                ran(n, e.value);
            break;
        case PathEvent::Kind::HopRan:
            ran(n, e.value);
            break;
        case PathEvent::Kind::BranchDone:
            bindValue(n, n.blocks[static_cast<std::size_t>(e.block)].results, 0);
            break;
        case PathEvent::Kind::LoopEnter:
            bindParams(n, 0, n.args, 2);
            break;
        case PathEvent::Kind::LoopNext:
            bindParams(n, e.iteration, n.blocks[0].results, 1);
            break;
        case PathEvent::Kind::LoopSkipped:
            bindValue(n, n.args, 2);
            break;
        case PathEvent::Kind::LoopDone:
            bindValue(n, n.blocks[0].results, 1);
            break;
        }
    }

    Graph take() {
        path_.recomputeUsers();
        return std::move(path_);
    }

private:
    Graph path_;
    std::unordered_map<std::string, ValueSummary>* values_;
    NodeNamer namer_;
    std::unordered_map<std::string, Argument> valueOf_; // original name -> what it is now

    Argument map(const Argument& a) const {
        if (a.kind == Argument::Kind::NodeRef) {
            auto it = valueOf_.find(a.text);
            return it == valueOf_.end() ? a : it->second;
        }
        Argument mapped = a;
        for (Argument& item : mapped.items)
            item = map(item);
        return mapped;
    }

    void ran(const Node& n, const ValueSummary& value) {
        if (n.hidden)
            return;
        // getitem of a control-flow node's results picks the item directly.
        if (n.target == "operator.getitem" && n.args.size() == 2 &&
            n.args[1].kind == Argument::Kind::Int) {
            Argument source = map(n.args[0]);
            auto index = static_cast<std::size_t>(n.args[1].integer);
            if ((source.kind == Argument::Kind::Tuple || source.kind == Argument::Kind::List) &&
                index < source.items.size()) {
                valueOf_[n.name] = source.items[index];
                return;
            }
        }
        Node copy = n;
        copy.users.clear();
        for (Argument& a : copy.args)
            a = map(a);
        for (KeywordArgument& k : copy.kwargs)
            k.value = map(k.value);
        copy.name = n.op == Op::Output ? "output" : namer_.create(n.name);
        valueOf_[n.name] = Argument::ofNode(copy.name);
        if (values_)
            (*values_)[copy.name] = value;
        path_.nodes.push_back(std::move(copy));
    }

    // The control-flow node's value: the arguments from `first` on (one value or a tuple).
    void bindValue(const Node& n, const std::vector<Argument>& values, std::size_t first) {
        std::vector<Argument> mapped;
        for (std::size_t i = first; i < values.size(); ++i)
            mapped.push_back(map(values[i]));
        valueOf_[n.name] = mapped.size() == 1 ? mapped[0] : Argument::ofTuple(mapped);
    }

    void bindParams(const Node& loop, std::int64_t iteration, const std::vector<Argument>& carried,
                    std::size_t first) {
        const std::vector<std::string>& params = loop.blocks[0].params;
        std::vector<Argument> values;
        for (std::size_t i = first; i < carried.size(); ++i)
            values.push_back(map(carried[i]));
        if (!params.empty())
            valueOf_[params[0]] = Argument::ofInt(iteration);
        for (std::size_t i = 1; i < params.size() && i - 1 < values.size(); ++i)
            valueOf_[params[i]] = values[i - 1];
    }
};

} // namespace

Graph buildExecutedPath(const Graph& graph, const std::vector<PathEvent>& log,
                        std::unordered_map<std::string, ValueSummary>* values) {
    PathBuilder builder(graph, values);
    for (const PathEvent& e : log)
        builder.apply(e);
    return builder.take();
}

} // namespace fxview
