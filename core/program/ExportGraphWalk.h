#pragma once
// The fx graph of a torch.export program, as PyTorch's deserializer builds its GraphModule
// (torch/_export/serde/serialize.py, GraphModuleDeserializer), made without LibTorch: the window
// draws it from the build-time schema table while its engine starts, and the engine makes its
// execution plan beside the same walk (ExportPlanBuilder listens to it), so that the two graphs
// are one code's and cannot differ. Its work is spread over two files:
//   ExportGraphWalk.cpp  placeholders, call_function nodes and their arguments, the getitems of
//                        an op returning several values, the output
//   ExportWalkHops.cpp   higher-order ops (torch.cond, while_loop, scan...) and their subgraphs

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ExportedCallArguments.h"
#include "ExportedProgram.h"
#include "Graph.h"
#include "NodeNamer.h"
#include "OperatorSchema.h"

namespace fxview {

// How a higher-order op's inputs are laid out, read from the file once for the graph (a
// malformed op fails the whole program) and for the plan (which of them the op runs on).
struct HopLayout {
    enum class Kind {
        Cond,               // cond(pred, true_graph, false_graph, operands)
        WithEffects,        // with_effects(token, op, *args)
        AutoFunctionalized, // auto_functionalized[_v2](_mutable_op, **kwargs)
        WhileLoop,          // while_loop(cond_graph, body_graph, carried_inputs, additional_inputs)
        Scan,               // scan(combine_graph, init, xs, additional_inputs)
        Map,                // map_impl(body_graph, xs, pos_args)
        SetGrad,            // wrap_with_set_grad_enabled(enabled, graph, *args)
        Autocast,   // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, *args)
        Call,       // invoke_subgraph(subgraph, identifier, *operands)
        Unsupported // drawn, not run: `unsupported` says why
    };
    Kind kind = Kind::Unsupported;
    std::string op; // "cond", "while_loop"...: the target after torch.ops.higher_order.
    std::string unsupported;
    std::vector<std::size_t> operands; // the inputs the op runs on, lists item by item
    std::size_t carried = 0;           // WhileLoop: carried inputs; Scan: init's
    std::size_t mapped = 0;            // Scan, Map: the xs
};

// A node the walk has named and appended: its name in the whole graph
// (`true_graph_0.sin`) and in its own namespace (`sin`).
struct WalkedNode {
    std::string name;
    std::string local;
};

// What a walk asks for and tells as it goes, in graph order. The window's listener answers
// schemaOf from the build-time table and ignores the rest; the engine's makes a step per node.
class ExportWalkListener {
public:
    virtual ~ExportWalkListener() = default;
    // The schema of the operator a call's target names ("torch.ops.aten.add.Tensor"); null when
    // the op is not known, and the call is drawn with its inputs where the file spells them.
    virtual const OperatorSchema* schemaOf(const std::string& target) = 0;
    virtual void placeholder(const ExportedInput&, const WalkedNode&) {}
    // A Python-number function of symbolic sizes (`_operator.mul`), its inputs positional.
    virtual void symbolicCall(const ExportedNode&, const WalkedNode&) {}
    // An operator's call, its arguments placed by its schema; `placed` is null for an op
    // schemaOf did not know.
    virtual void call(const ExportedNode&, const std::vector<PlacedArgument>* placed,
                      const WalkedNode&) {}
    // Item `index` of the value of `whole` (a local name).
    virtual void getItem(const std::string& whole, std::size_t index, const WalkedNode&) {}
    // A higher-order op's subgraph: entered before its nodes, left after them. Its get_attr
    // follows it (subgraphAttribute), the op itself after every subgraph it takes (hop).
    virtual void enterSubgraph(const ExportedGraph&, const std::string& prefix) {}
    virtual void leaveSubgraph(const ExportedGraph&) {}
    virtual void subgraphAttribute(const ExportedValue& graph, const WalkedNode&) {}
    // `single`: its one tensor output is its value (else a getitem per output follows).
    virtual void hop(const ExportedNode&, const HopLayout&, bool single, const WalkedNode&) {}
    virtual void output(const WalkedNode&) {}
};

class ExportGraphWalk {
public:
    ExportGraphWalk(const ExportedProgram& program, ExportWalkListener& listener)
        : program_(program), listener_(listener) {
        top_.nodes = &graph_.nodes;
        scope_ = &top_;
    }

    // The graph; throws std::runtime_error with what is wrong in a program PyTorch would not
    // have written.
    Graph run();

    // torch.fx's name for a node of this target when nothing names it:
    // "torch.ops.aten.split.Tensor" -> "split_tensor", "torch.ops.higher_order.cond" -> "cond".
    static std::string autoName(const std::string& target);

    // The innermost module of "L__self__,,__main__.TinyNet;L__self___fc1,L['self'].fc1,..."
    // as a module path and its type: "fc1". Nodes export adds itself (sym_size for a dynamic
    // dimension) carry a placeholder entry, "_empty_nn_module_stack_from_metadata_hook": none.
    // A path nesting more than kMaxScopeDepth modules is refused with a sentence: no model
    // PyTorch exports nests so deep, and every scope's prefix is kept (memory grows with the
    // square of the depth).
    static std::pair<std::string, std::string> scopeOf(const std::string& stack);
    static constexpr int kMaxScopeDepth = 256;

    // Whether `target` with `arity` inputs is a Python-number function of symbolic sizes
    // ("_operator.floordiv", "torch.sym_max"), which the deserializer calls with every input
    // positional (SymbolicOps.h runs them).
    static bool isSymbolicCall(const std::string& target, std::size_t arity);

    // The graph may take at most this many times its program's JSON (and 16 MB whatever the
    // JSON): a node's getitems copy its stack trace and scope, so a 1 MB trace on a node with
    // 1,500 outputs made 1.5 GB of a 1 MB file. Real programs make 1.1 to 1.5 times theirs
    // (every .pt2 fixture of PyTorch 2.6 and 2.14, resnet18's core ATen IR the most).
    static constexpr std::size_t kMaxAmplification = 8;
    static constexpr std::size_t kAmplificationFloor = std::size_t(16) << 20;

private:
    // A graph's namespace: the program's, or a subgraph's (torch.cond's branches name their
    // placeholders x, p_fc_weight... again). A subgraph's nodes are shown as
    // `true_graph_0.sin`, so every name in the whole Graph stays unique.
    struct Namespace {
        std::string prefix;
        NodeNamer namer;
        std::vector<Node>* nodes = nullptr;
    };

    const ExportedProgram& program_;
    ExportWalkListener& listener_;
    Graph graph_;
    Namespace top_;
    Namespace* scope_;
    std::size_t madeBytes_ = 0; // what the nodes appended so far take, about
    // Throws the sentence of a graph past its budget when `more` bytes would take it there.
    void checkBudget(std::size_t more) const;

    // Names the node and appends it; a name from the program is kept as it is (sync_fx_node),
    // one torch.fx makes up (`split_tensor`) is made unique.
    enum class Naming { Program, Fresh };
    WalkedNode append(Node node, Naming naming = Naming::Program);

    void prefixRefs(Argument& a) const;
    void placeholder(const ExportedInput& in);
    void callFunction(const ExportedNode& n);

    static bool namesItsNode(const ExportedValue& v) {
        return v.kind == ExportedValue::Kind::Tensor || v.kind == ExportedValue::Kind::SymInt;
    }

    // deserialize_multiple_outputs: a getitem per output; a list output gets a getitem of its own
    // whose items are getitems again; a single list output's items are the node's.
    void getItems(const std::vector<ExportedValue>& outputs, const std::string& whole);
    void listItems(const std::vector<std::string>& names, const std::string& list) {
        for (std::size_t i = 0; i < names.size(); ++i)
            getItem(list, i, names[i]);
    }
    std::string getItem(const std::string& whole, std::size_t index, const std::string& name,
                        Naming naming = Naming::Program);

    // ExportWalkHops.cpp: a torch.ops.higher_order.* node.
    void higherOrder(const ExportedNode& n, Node node);
    HopLayout hopLayout(const ExportedNode& n) const;
    // Puts the op's inputs in node.args (or kwargs, where the file names them) and a get_attr
    // and a block for each subgraph.
    void hopArguments(const ExportedNode& n, Node& node);
    Block subgraph(const std::string& name, const ExportedGraph& g, const std::string& scope);

    void output();
};

} // namespace fxview
