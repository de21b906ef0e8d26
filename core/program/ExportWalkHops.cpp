// The higher-order ops of a torch.export program (torch.ops.higher_order.*), as PyTorch's
// deserializer makes them: every input positional unless the file names it a keyword
// (deserialize_hoo_inputs), each subgraph a get_attr before the op and a block inside it, the
// op named by the file's Node.name (else its one output, else its target). Which inputs each op
// runs on is its HopLayout; how it runs is the engine's (ExportHops.cpp).

#include <algorithm>
#include <stdexcept>

#include "ExportGraphWalk.h"

namespace fxview {

namespace {

using K = ExportedValue::Kind;

const std::string kHigherOrder = "torch.ops.higher_order.";

// Why a higher-order op's inputs are not what PyTorch writes for it.
[[noreturn]] void malformed(const ExportedNode& n, const std::string& what) {
    throw std::runtime_error(n.target + "'s inputs are not as PyTorch writes them: " + what);
}

const ExportedValue& inputAt(const ExportedNode& n, std::size_t i, K kind, const char* what) {
    if (i >= n.inputs.size() || n.inputs[i].second.kind != kind)
        malformed(n, std::string("input ") + std::to_string(i) + " should be " + what);
    return n.inputs[i].second;
}

std::vector<std::size_t> inputsFrom(const ExportedNode& n, std::size_t first) {
    std::vector<std::size_t> inputs;
    for (std::size_t i = first; i < n.inputs.size(); ++i)
        inputs.push_back(i);
    return inputs;
}

} // namespace

HopLayout ExportGraphWalk::hopLayout(const ExportedNode& n) const {
    HopLayout layout;
    layout.op = n.target.substr(kHigherOrder.size());
    const std::string& op = layout.op;
    using H = HopLayout::Kind;
    if (op == "cond") {
        // The branch's placeholders take the operands.
        layout.kind = H::Cond;
        layout.operands = inputsFrom(n, 0);
        return layout;
    }
    if (op == "with_effects") {
        inputAt(n, 1, K::Operator, "an operator");
        layout.kind = H::WithEffects;
        layout.operands = inputsFrom(n, 2);
        layout.operands.insert(layout.operands.begin(), 0);
        return layout;
    }
    if (op == "auto_functionalized" || op == "auto_functionalized_v2") {
        // Each keyword's value whole (lists as lists), named for the call.
        inputAt(n, 0, K::Operator, "an operator");
        layout.kind = H::AutoFunctionalized;
        return layout;
    }
    // A node of a known op that is not as PyTorch writes it is drawn, and says why it cannot run.
    try {
        if (op == "while_loop") {
            layout.kind = H::WhileLoop;
            layout.carried = inputAt(n, 2, K::Tensors, "the carried inputs").names.size();
            inputAt(n, 3, K::Tensors, "the additional inputs");
            layout.operands = {2, 3};
        } else if (op == "scan") {
            layout.kind = H::Scan;
            layout.carried = inputAt(n, 1, K::Tensors, "init").names.size();
            layout.mapped = inputAt(n, 2, K::Tensors, "xs").names.size();
            inputAt(n, 3, K::Tensors, "the additional inputs");
            layout.operands = {1, 2, 3};
        } else if (op == "map_impl") {
            layout.kind = H::Map;
            layout.mapped = inputAt(n, 1, K::Tensors, "xs").names.size();
            inputAt(n, 2, K::Tensors, "the other arguments");
            layout.operands = {1, 2};
        } else if (op == "wrap_with_set_grad_enabled") {
            inputAt(n, 0, K::Bool, "a bool");
            inputAt(n, 1, K::Graph, "a graph");
            layout.kind = H::SetGrad;
            layout.operands = inputsFrom(n, 2);
        } else if (op == "wrap_with_autocast") {
            inputAt(n, 0, K::String, "a device type");
            inputAt(n, 2, K::Bool, "enabled");
            inputAt(n, 3, K::Bool, "cache_enabled");
            inputAt(n, 4, K::Graph, "a graph");
            layout.kind = H::Autocast;
            layout.operands = inputsFrom(n, 5);
        } else if (op == "invoke_subgraph") {
            inputAt(n, 0, K::Graph, "a graph");
            layout.kind = H::Call;
            layout.operands = inputsFrom(n, 2);
        } else {
            layout.unsupported = n.target + ", a higher-order op fxview draws but does not run yet";
        }
    } catch (const std::runtime_error& e) {
        layout = HopLayout{H::Unsupported, op, e.what(), {}, 0, 0};
    }
    return layout;
}

void ExportGraphWalk::hopArguments(const ExportedNode& n, Node& node) {
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& [name, v] = n.inputs[i];
        const int kind = i < n.inputKinds.size() ? n.inputKinds[i] : 0;
        // A subgraph's get_attr is named as torch.fx names it: invoke_subgraph's second call of
        // repeated_subgraph0 gets repeated_subgraph0_1, its block and nodes named after that.
        const std::string local = v.kind == K::Graph ? scope_->namer.create(v.name) : "";
        Argument argument = v.kind == K::Graph ? Argument::ofNode(local) : exportedArgument(v);
        if (kind == 1 || name.empty())
            node.args.push_back(std::move(argument));
        else
            node.kwargs.push_back({name, std::move(argument)});
        if (v.kind != K::Graph)
            continue;
        node.blocks.push_back(subgraph(local, *v.graph, node.scope));
        Node attr;
        attr.op = Op::GetAttr;
        attr.name = local;
        attr.target = v.name;
        attr.scope = node.scope;
        listener_.subgraphAttribute(v, append(std::move(attr)));
    }
}

void ExportGraphWalk::higherOrder(const ExportedNode& n, Node node) {
    const HopLayout layout = hopLayout(n);
    hopArguments(n, node);
    using H = HopLayout::Kind;
    const std::size_t blocks = layout.kind == H::WhileLoop ? 2 : 1;
    if (layout.kind != H::Cond && layout.kind != H::WithEffects &&
        layout.kind != H::AutoFunctionalized && layout.kind != H::Unsupported &&
        node.blocks.size() != blocks)
        malformed(n, "it should have " + std::to_string(blocks) + " subgraph(s)");
    // deserialize_node: the file's name; else the one output, when it is the op's value.
    bool single =
        n.outputs.size() == 1 && n.outputs[0].kind == K::Tensor && n.hopSingleTensorReturn;
    node.name = !n.name.empty() ? n.name : single ? n.outputs[0].name : autoName(n.target);
    WalkedNode walked =
        append(std::move(node), !n.name.empty() || single ? Naming::Program : Naming::Fresh);
    listener_.hop(n, layout, single, walked);
    if (!single)
        getItems(n.outputs, walked.local);
}

Block ExportGraphWalk::subgraph(const std::string& name, const ExportedGraph& g,
                                const std::string& scope) {
    Block block;
    block.label = name;
    block.subgraph = true;
    Namespace inner;
    inner.prefix = scope_->prefix + name + ".";
    inner.nodes = &block.nodes;
    Namespace* outer = scope_;
    scope_ = &inner;
    listener_.enterSubgraph(g, inner.prefix);
    for (const ExportedValue& in : g.inputs) {
        inner.namer.claim(in.name);
        block.params.push_back(inner.prefix + in.name);
    }
    for (const ExportedNode& n : g.nodes)
        callFunction(n);
    for (const ExportedValue& out : g.outputs) {
        Argument result = exportedArgument(out);
        prefixRefs(result);
        block.results.push_back(result);
    }
    listener_.leaveSubgraph(g);
    for (Node& n : block.nodes)
        if (n.scope.empty())
            n.scope = scope;
    scope_ = outer;
    return block;
}

} // namespace fxview
