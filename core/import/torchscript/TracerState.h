#pragma once
// Core-internal, and private to the tracer: the Tracer class and the state of one trace. Its work
// is spread over five files, one for each thing a TorchScript node can become:
//   Tracer.cpp            the walk over a graph, the fx nodes it emits and their names, the
//                         hiding of guard-only work; traceModule and the TorchScript importer
//   TracerOperators.cpp   constants, folding, operator calls
//   TracerLiterals.cpp    list, tuple and dict literals (appends, `d[k] = v`, `items[0]`)
//   TracerCalls.cpp       attribute reads, module and function calls, inlining
//   TracerControlFlow.cpp if, loop and their blocks, torch._assert
//   TracerHeld.cpp        tensors known while tracing (buffers, what is computed from them and
//                         literals alone), run while tracing as torch.fx runs them in Python
// Include only from those.

#include <torch/csrc/jit/ir/ir.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "Graph.h"
#include "Importer.h"
#include "NodeNamer.h"
#include "PlanPrivate.h"
#include "SourceSpelling.h"
#include "TensorSubscript.h"

namespace fxview {

// Ints, floats, strings, devices... and lists and tuples of them: values folded into args.
bool isPlainDataType(const c10::TypePtr& t);

// Walks the TorchScript graph of `forward`, inlining every call that torch.fx would trace
// through, and emits one fx node, with the step that runs it, for each call torch.fx would
// record. One Tracer traces one graph.
class Tracer {
public:
    using Constructs = std::unordered_set<const torch::jit::Node*>;

    // `sharedLiterals`: list and dict literals (their construct nodes) to make as objects of
    // their own, each made by a node every use shares. `runHeldTensors`: run what uses only
    // buffers and literals while tracing, as torch.fx does (see TracerHeld.cpp).
    explicit Tracer(Constructs sharedLiterals = {}, bool runHeldTensors = true)
        : sharedLiterals_(std::move(sharedLiterals)), runHeldTensors_(runHeldTensors) {}
    TraceResult trace(const torch::jit::Module& root);
    // A function torch.fx keeps whole (torch.fx.wrap), traced on its own for Step Into: its
    // arguments are the placeholders.
    TraceResult trace(torch::jit::Function& function);
    // The literals this trace found changed where they cannot be folded (in a branch or loop
    // body that runs at run time): the trace is wrong, and is made again with them shared.
    const Constructs& changedAtRunTime() const { return changedAtRunTime_; }
    // Whether running held tensors while tracing was wrong for this model (one is written in
    // place, or reaches a place that needs a node): the trace is made again without.
    bool heldTensorsFailed() const { return heldWritten_ || heldEscaped_; }

private:
    // What a TorchScript value stands for while tracing.
    struct Binding {
        // Modules and functions are objects Python passes around, never values of the graph:
        // followed while tracing, as the interpreter follows them. A Group is a tuple or list
        // holding some (`(self.a, self.b)`); a Choice is the one an if picked at run time
        // (`m = self.a if c else self.b`), whose calls become an if on the same condition.
        enum class Kind { Data, Module, Function, Group, Choice };
        Kind kind = Kind::Data;
        Argument arg;                        // Data: a literal or a reference to a node
        std::optional<c10::IValue> constant; // Data: the literal itself, when it is one
        ValueSource source;                  // Data; Choice: its condition's
        torch::jit::Module module;           // Module
        std::string path; // Module: "layer1.0"; held Data: the attribute it is, or ""
        torch::jit::Function* function = nullptr; // Function
        std::vector<Binding> items;               // Group: its items; Choice: true, false
        int block = 0; // Data: the run-time block a list or dict literal was made in
        // Data: a tensor known while tracing that is no node (yet): a buffer or a tensor made
        // from buffers and literals alone, `constant` its value. torch.fx holds such a tensor
        // as a real one, runs in Python what uses only such values, and makes a get_attr at
        // each use by a node (of `path`, or of a _tensor_constantN).
        bool held = false;
    };

    using Frame = std::unordered_map<const torch::jit::Value*, Binding>;

    struct TraceError : std::runtime_error {
        using std::runtime_error::runtime_error;
    };

    // Tracer.cpp: the walk, and the nodes it emits.
    TraceResult traceGraph(const torch::jit::Graph& graph, const c10::FunctionSchema& schema,
                           const Binding* self);
    void traceNodes(const torch::jit::Block* block, Frame& frame);
    void traceNode(const torch::jit::Node* n, Frame& frame);
    static std::string baseName(const std::string& debugName);
    static Argument literalOf(const c10::IValue& v);
    static bool atDefault(const std::optional<c10::IValue>& constant, const c10::Argument& formal);
    static Binding data(Argument arg, ValueSource source,
                        std::optional<c10::IValue> constant = std::nullopt);
    static Binding constant(const c10::IValue& v);
    const Binding& lookup(const Frame& frame, const torch::jit::Value* v) const;
    const Binding& dataOf(const Frame& frame, const torch::jit::Value* v) const;
    std::vector<ValueSource> sourcesOf(const Frame& frame, const torch::jit::Node* n,
                                       std::size_t first) const;
    int emit(Node node, const std::string& candidate, Step step);
    Binding valueOf(int id) const;
    Binding emitValue(Node node, const std::string& candidate, Step step);
    void emitFor(const torch::jit::Node* n, Node node, const std::string& candidate, Step step,
                 Frame& frame);
    // Emits `node` as the value of `outputs` (one: the node; several: getitems of it).
    void emitValues(const std::vector<const torch::jit::Value*>& outputs, Node node,
                    const std::string& candidate, Step step, Frame& frame);
    Binding getItem(const Binding& source, std::size_t index, int unpacked = -1);
    void hideWorkThatOnlyFeedsGuards();

    // TracerLiterals.cpp: list, tuple and dict literals folded into args.
    c10::IValue constructConstant(const torch::jit::Node* n, const Frame& frame) const;
    void traceConstruct(const torch::jit::Node* n, Frame& frame);
    bool mutatedElsewhere(const torch::jit::Node* construct) const;
    bool foldedHere(const Binding& literal, const torch::jit::Node* construct);
    bool appendsToLiteral(const torch::jit::Node* n, const Frame& frame) const;
    void traceAppend(const torch::jit::Node* n, Frame& frame);
    void traceUnpack(const torch::jit::Node* n, Frame& frame);
    bool traceDict(const torch::jit::Node* n, Frame& frame);
    bool traceSetItem(const torch::jit::Node* n, Frame& frame);
    static void setItem(Binding& dict, const c10::IValue& key, const Argument& keyArg,
                        const Binding& value);
    bool traceLiteralItem(const torch::jit::Node* n, Frame& frame);
    bool traceKnownWhileTracing(const torch::jit::Node* n, Frame& frame);

    // TracerOperators.cpp: constants folded into args, and the nodes operators become.
    void traceConstant(const torch::jit::Node* n, Frame& frame);
    std::vector<c10::IValue> evaluate(const torch::jit::Node* n, const Frame& frame);
    bool foldable(const torch::jit::Node* n, const Frame& frame) const;
    std::optional<std::pair<Argument, Argument>> subscriptOf(const torch::jit::Node* n,
                                                             const Frame& frame);
    bool subscriptContinues(const torch::jit::Node* n, const Frame& frame);
    std::string tensorAttributeRead(const torch::jit::Node* n);
    void traceOperator(const torch::jit::Node* n, Frame& frame);
    bool addWrittenArguments(Node& node, const torch::jit::Node* n,
                             const c10::FunctionSchema& schema, const Frame& frame,
                             const std::string& opName);
    void addArguments(Node& node, const torch::jit::Node* n, std::size_t first,
                      const c10::FunctionSchema& schema, const Frame& frame);
    bool addFunctionalArguments(Node& node, const torch::jit::Node* n,
                                const c10::FunctionSchema& schema, const Frame& frame,
                                const std::string& function);

    // TracerCalls.cpp: attributes, and the calls that are kept or inlined.
    void traceGetAttr(const torch::jit::Node* n, Frame& frame);
    void traceSetAttr(const torch::jit::Node* n, Frame& frame);
    void readPendingAttributes(const torch::jit::Node* n, Frame& frame);
    Binding attributeNode(const std::string& path, const c10::IValue& value);
    void traceCallMethod(const torch::jit::Node* n, Frame& frame);
    bool traceIdentityCall(const torch::jit::Node* n, const Binding& self,
                           const std::string& pythonClass, const torch::jit::Value* passed,
                           Frame& frame);
    void traceCallFunction(const torch::jit::Node* n, Frame& frame);
    void inlineCall(const torch::jit::Graph& callee, const torch::jit::Node* n, std::size_t first,
                    Frame& frame);

    // TracerHeld.cpp: held tensors.
    Binding heldValue(const c10::IValue& value, std::string path) const;
    bool runHeld(const torch::jit::Node* n, Frame& frame);
    Binding materialize(const Binding& held);
    // Gives the held tensors among `n`'s inputs (from `first`) a get_attr node each, in input
    // order, for as long as it lives: what torch.fx's create_arg does at a node's creation.
    class HeldUses {
    public:
        HeldUses(Tracer& tracer, const torch::jit::Node* n, Frame& frame, std::size_t first = 0);
        ~HeldUses();
        HeldUses(const HeldUses&) = delete;
        HeldUses& operator=(const HeldUses&) = delete;

    private:
        Frame& frame_;
        std::vector<std::pair<const torch::jit::Value*, Binding>> saved_;
    };

    // TracerControlFlow.cpp: ifs, loops, their blocks, and torch._assert.
    void traceIf(const torch::jit::Node* n, Frame& frame);
    void traceLoop(const torch::jit::Node* n, Frame& frame);
    bool unrollLoop(const torch::jit::Node* n, Frame& frame);
    // Whether `user` may run while tracing, in the place of `home`: every block between them is
    // an if's branch (folded when its condition is known) or the body of a loop without `break`
    // (unrolled when its range is known). Where it turns out not to, the trace starts over
    // (changedAtRunTime).
    static bool mayRunInPlaceOf(const torch::jit::Node* user, const torch::jit::Block* home);
    Block traceBlock(const torch::jit::Block* block, const std::string& label,
                     std::vector<std::string> params, std::vector<int> paramSlots, Frame& frame);
    // A block whose nodes `body` traces, its results the values it returns.
    Block traceBlockOf(const std::string& label, std::vector<std::string> params,
                       std::vector<int> paramSlots,
                       const std::function<std::vector<const torch::jit::Value*>()>& body,
                       Frame& frame);
    // A call on the module an if picked (a Choice): an if on the same condition, each branch
    // the call on its own module.
    void traceChosenCall(const torch::jit::Node* n, const Binding& choice, Frame& frame);
    // A tuple or list made of, unpacked into or indexed for objects (modules, functions,
    // Groups, Choices) that the graph never holds as values: followed here; false for any
    // other node.
    bool traceObjectNode(const torch::jit::Node* n, Frame& frame);
    std::optional<std::pair<Binding, const torch::jit::Value*>>
    assertMessage(const torch::jit::Node* n, const Frame& frame);
    void traceAssert(const Binding& condition, const Binding& message,
                     const torch::jit::Value* messageValue, Frame& frame);
    std::string tracedMessage(const Binding& b, const torch::jit::Value* message,
                              const Frame& frame) const;
    static std::string pythonStr(const Binding& b);

    Graph graph_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    NodeNamer namer_;
    std::vector<Node>* out_ = nullptr;
    std::vector<int>* outSteps_ = nullptr;
    std::string scope_;
    std::string scopeType_; // the class of the module whose code is being inlined
    std::unordered_map<std::string, Binding> getAttrNodes_; // attribute path -> its node
    int tensorConstants_ = 0;
    SourceSpelling sourceSpelling_; // method or function, as the model's code wrote it
    TensorSubscript subscript_{sourceSpelling_};
    // Tensor attributes read but not yet used: path and value (see traceGetAttr).
    struct PendingAttribute {
        const torch::jit::Value* value;
        std::string path;
        c10::IValue attribute;
    };
    std::vector<PendingAttribute> pendingAttributes_;        // in the order the graph reads them
    std::unordered_map<std::string, Binding> setAttributes_; // module path.field -> value set
    int runtimeBlocks_ = 0; // depth inside branches and loop bodies that run at run time
    int currentBlock_ = 0;  // which of those the walk is in (0: the graph's own)
    int blockSerial_ = 0;
    const Constructs sharedLiterals_;
    Constructs changedAtRunTime_;
    const bool runHeldTensors_;
    bool heldWritten_ = false;         // an in-place op wrote a held tensor
    mutable bool heldEscaped_ = false; // a held tensor reached code that needs a node
    std::unordered_map<const c10::TensorImpl*, std::string> tensorConstantNames_;
    std::unordered_map<const c10::TensorImpl*, std::string> bufferPaths_; // held buffers
    std::vector<std::string> assertMessages_; // the nodes formatting torch._assert messages
    // Where the nodes emitted now come from: the TorchScript node being traced, and the calls
    // it was inlined through (outermost first), for each node's source lines.
    const torch::jit::Node* current_ = nullptr;
    std::vector<const torch::jit::Node*> callSites_;
    StepBlock lastBlock_; // the plan side of the block traceBlock just traced

    // Makes `n` the node being traced until the end of the scope.
    struct Tracing {
        Tracing(Tracer& t, const torch::jit::Node* n) : tracer(t), saved(t.current_) {
            t.current_ = n;
        }
        ~Tracing() { tracer.current_ = saved; }
        Tracing(const Tracing&) = delete;
        Tracing& operator=(const Tracing&) = delete;
        Tracer& tracer;
        const torch::jit::Node* saved;
    };
};

} // namespace fxview
