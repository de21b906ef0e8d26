#pragma once
// Core-internal, private to import/export/: builds the fx graph and its execution plan from a
// torch.export program, as PyTorch 2.6's deserializer builds its GraphModule. Its work is spread
// over two files:
//   ExportImporter.cpp   placeholders, values and their slots, the output and its out_spec
//                        structure, the importer itself
//   ExportCalls.cpp      call_function nodes: the ATen overload, its arguments, the getitems of
//                        an op returning several values
//   ExportHops.cpp       higher-order ops (torch.cond, while_loop, scan...) and their subgraphs
//                        (AutoFunctionalized.cpp: how auto_functionalized runs its op)

#include <torch/csrc/jit/runtime/operator.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ExportedModel.h"
#include "Graph.h"
#include "Importer.h"
#include "NodeNamer.h"
#include "PlanPrivate.h"

namespace fxview {

class ExportGraphBuilder {
public:
    explicit ExportGraphBuilder(const ExportedModel& model) : model_(model) {
        top_.nodes = &graph_.nodes;
        top_.steps = &plan_->top;
        scope_ = &top_;
    }

    TraceResult run();

private:
    // A graph's namespace: the program's, or a subgraph's (torch.cond's branches name their
    // placeholders x, p_fc_weight... again). A subgraph's nodes are shown as
    // `true_graph_0.sin`, so every name in the whole Graph stays unique.
    struct Namespace {
        std::string prefix;
        NodeNamer namer;
        std::map<std::string, int> slotOf; // serialized value name -> slot
        std::vector<Node>* nodes = nullptr;
        std::vector<int>* steps = nullptr;
    };

    const ExportedModel& model_;
    Graph graph_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    Namespace top_;
    Namespace* scope_;

    // Appends the node and its step; returns the node's name in its namespace. A name from the
    // program is kept as it is (sync_fx_node); one torch.fx makes up (`split_tensor`) is made
    // unique.
    enum class Naming { Program, Fresh };
    std::string emit(Node node, Step step, Naming naming = Naming::Program);

    void prefixRefs(Argument& a) const {
        if (a.kind == Argument::Kind::NodeRef)
            a.text = scope_->prefix + a.text;
        for (Argument& item : a.items)
            prefixRefs(item);
    }

    void placeholder(const ExportedInput& in);

    // A user input: its example value (serialized_example_inputs.pt) when the archive has one,
    // else its recorded shape; a dynamic dimension keeps its declared range for the check.
    PlaceholderSpec inputSpec(const std::string& name) const;

    ValueSource sourceOf(const ExportedValue& v) const;

    // "torch.ops.aten.linear.default" -> aten::linear with overload "".
    static std::optional<c10::OperatorName> operatorName(const std::string& target);

    // The operator `target` names ("torch.ops.aten.linear.default"), loading torchvision's or
    // torchaudio's library for their namespaces; null with `why` saying what is missing and
    // what would run it (`caller`: the higher-order op calling it, if any).
    std::shared_ptr<torch::jit::Operator>
    calledOperator(const std::string& target, const std::string& caller, std::string& why);

    // torch.fx's name for a node of this target when nothing names it:
    // "torch.ops.aten.split.Tensor" -> "split_tensor", "torch.ops.higher_order.cond" -> "cond".
    static std::string autoName(const std::string& target);

    static bool namesItsNode(const ExportedValue& v) {
        return v.kind == ExportedValue::Kind::Tensor || v.kind == ExportedValue::Kind::SymInt;
    }

    void callFunction(const ExportedNode& n);

    // deserialize_multiple_outputs: a getitem per output; a list output gets a getitem of its own
    // whose items are getitems again; a single list output's items are the node's.
    void getItems(const std::vector<ExportedValue>& outputs, const std::string& whole);

    void listItems(const std::vector<std::string>& names, const std::string& list) {
        for (std::size_t i = 0; i < names.size(); ++i)
            getItem(list, i, names[i]);
    }

    std::string getItem(const std::string& whole, std::size_t index, const std::string& name,
                        Naming naming = Naming::Program);

    // ExportHops.cpp: a torch.ops.higher_order.* node (cond, while_loop, scan, map_impl, the
    // grad-mode and autocast wrappers, with_effects; others drawn but not run).
    void higherOrder(const ExportedNode& n, Node node);

    // Puts the op's inputs in node.args (or kwargs, where the file names them), a get_attr and
    // a block for each subgraph, and the inputs at `flattened` (lists item by item) in
    // step.inputs.
    void hopArguments(const ExportedNode& n, Node& node, Step& step,
                      const std::vector<std::size_t>& flattened);

    // Names and emits the op, then the getitems of its outputs unless its one output is itself.
    void emitHop(const ExportedNode& n, Node node, Step step);

    std::pair<Block, StepBlock> subgraph(const std::string& name, const ExportedGraph& g,
                                         const std::string& scope);

    // The innermost module of "L__self__,,__main__.TinyNet;L__self___fc1,L['self'].fc1,..."
    // as a module path: "fc1". Nodes export adds itself (sym_size for a dynamic dimension) carry
    // a placeholder entry, "_empty_nn_module_stack_from_metadata_hook": no module.
    static std::pair<std::string, std::string> scopeOf(const std::string& stack);

    // ep.module()'s return from the graph's flat outputs: the user outputs (the buffers the
    // program mutates are applied, not returned) in the out_spec's structure. Unset when the
    // program keeps no structure fxview rebuilds, or it does not match the outputs.
    std::function<c10::IValue(const c10::IValue&)> outputShaper() const;

    static c10::IValue rebuilt(const OutputTree& tree, const std::vector<c10::IValue>& flat,
                               std::size_t& next);

    void output();
};

} // namespace fxview
