#pragma once
// The fx-style graph: what torch.fx.symbolic_trace would record for a model, as plain data.
// No LibTorch types here, so the UI and the printers can use it without torch's headers.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fxview {

enum class Op { Placeholder, GetAttr, CallModule, CallFunction, CallMethod, Output };

// torch.fx's spelling of an op: "placeholder", "call_module", ...
const char* opName(Op op);

// A literal or a reference in a node's args/kwargs, printed the way torch.fx prints it.
struct Argument {
    // Dict comes last: the engine protocol sends a kind as its number.
    enum class Kind { None, Bool, Int, Float, String, NodeRef, List, Tuple, Repr, Dict };

    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0.0;
    std::string text; // String value, referenced node name, or Repr text (e.g. "torch.float32")
    std::vector<Argument> items; // List/Tuple items; a Dict's (key, value) pairs as 2-tuples

    static Argument none() { return {}; }
    static Argument ofBool(bool v);
    static Argument ofInt(std::int64_t v);
    static Argument ofFloat(double v);
    static Argument ofString(std::string v);
    static Argument ofNode(std::string name);
    static Argument ofRepr(std::string text);
    static Argument ofList(std::vector<Argument> items);
    static Argument ofTuple(std::vector<Argument> items);
    // A dict literal ({'out': %x}); its items are (key, value) tuples, in insertion order.
    static Argument ofDict(std::vector<std::pair<Argument, Argument>> entries);

    bool isNode() const { return kind == Kind::NodeRef; }
    // Calls `visit` with the name of every node this argument refers to, nested ones included.
    void forEachNodeRef(const std::function<void(const std::string&)>& visit) const;
};

bool operator==(const Argument& a, const Argument& b);
inline bool operator!=(const Argument& a, const Argument& b) {
    return !(a == b);
}

struct KeywordArgument {
    std::string name;
    Argument value;
};

struct Node;

// A sub-graph of a control-flow node: a branch of an `if` or the body of a loop.
struct Block {
    std::string label;               // "true", "false", "body"
    std::vector<std::string> params; // values bound on entry (loop counter, carried values)
    std::vector<Node> nodes;
    std::vector<Argument> results; // what the block yields back to its node
    // A higher-order op's subgraph (torch.cond's true_graph_0): torch.fx prints it as a graph of
    // its own, not inside its node's line.
    bool subgraph = false;
};

// A tensor a node holds: a call_module's parameter, or what a get_attr reads.
struct HeldTensor {
    std::string name; // "weight", "bias"; the attribute path for get_attr
    std::vector<std::int64_t> shape;
    std::string dtype;
};

// What a placeholder stands for: an input of forward, or (in a torch.export program, whose
// signature lifts them into placeholders) a parameter, buffer or tensor constant.
enum class PlaceholderKind { Input, Parameter, Buffer, Constant };

// "parameter", "buffer", "constant", "input".
const char* placeholderKindName(PlaceholderKind kind);

// What one value a torch.export program returns is (its graph signature's output spec): a user
// output, or a buffer's or input's new value written back after the run (`target` names it).
struct OutputRole {
    std::string kind; // schema.py's spelling: "user_output", "buffer_mutation", ...
    std::string target;
};

struct Node {
    Op op = Op::CallFunction;
    std::string name;       // unique in the graph, named the way torch.fx names nodes
    std::string target;     // module path, attribute path, or qualified function/method name
    std::string schema;     // the TorchScript operator it runs ("aten::add.Tensor"), if any
    std::string moduleType; // for call_module: "torch.nn.Linear"
    // torch.fx's node.type where the tracer recorded one (a forward's annotation): printed
    // after the name, `%x : torch.Tensor [num_users=1]`; "" for none.
    std::string typeName;
    std::vector<Argument> args;
    std::vector<KeywordArgument> kwargs;
    std::vector<std::string> users; // nodes that consume this one, in graph order, unique
    std::string scope;              // module path whose code produced it; "" for the root
    std::string scopeType; // that module's class, where known ("torch.nn.modules.linear.Linear")
    bool hidden = false;   // a raise-only guard or work that only feeds one
    std::vector<Block> blocks;       // prim::If branches or prim::Loop body
    std::vector<HeldTensor> tensors; // call_module: its parameters; get_attr: the tensor
    PlaceholderKind placeholderKind = PlaceholderKind::Input; // placeholder only
    // Where in the model's source it was made, as Python prints a traceback:
    // `File "/m.py", line 12, in forward\n    x = self.fc(x)`, outermost frame first: a .pt2's
    // stack_trace, or what TorchScript's source ranges and inlined call sites say.
    std::string sourceTrace;
    std::vector<OutputRole> outputRoles; // output of a .pt2: one per returned value
    // A .pt2 node's tensor sizes as the program has them, where one is symbolic (a dynamic
    // dimension): "s77", "4"; empty when every size is a number or none is known.
    std::vector<std::string> symbolicShape;
    // A collapsed module scope drawn as one call_module (ScopeView.h): how many shown nodes it
    // stands for; 0 for every node of a traced graph.
    int collapsedNodes = 0;
    // The picture's, never an importer's (drawWeightsInside, ScopeView.h): a weight drawn as a
    // line inside the box of the one node that reads it, or not at all when nothing reads it...
    bool drawnInside = false;
    // ...and on that reader, the weights its box lists, in graph order.
    std::vector<HeldTensor> weightsInside;

    bool isInput() const {
        return op == Op::Placeholder && placeholderKind == PlaceholderKind::Input;
    }
    // Calls `visit` with every node this one takes a value from: what its args and kwargs name
    // and, for an if or a loop, what its blocks yield (not what the blocks' own nodes take).
    void forEachInput(const std::function<void(const std::string&)>& visit) const;
};

struct Graph {
    std::string modelClass; // e.g. "__torch__.TinyNet"
    std::vector<Node> nodes;

    // Pre-order walk over every node, block contents included; `depth` is the block nesting.
    void forEachNode(const std::function<void(const Node&, int depth)>& visit) const;
    // Recomputes every node's `users` from the args, kwargs and block results that name it.
    void recomputeUsers();
    // The node with this name, or nullptr.
    const Node* find(const std::string& name) const;
    // Number of nodes that are shown (hidden ones excluded unless asked for).
    int nodeCount(bool includeHidden = false) const;
};

} // namespace fxview
