// The tracer walks the TorchScript graph of `forward`, inlining every call that torch.fx would
// trace through, and emits one fx node for each call torch.fx would record.

#include "Tracer.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <unordered_map>

#include "FxTargets.h"
#include "FxText.h"
#include "InterpreterOps.h"
#include "ModelPrivate.h"
#include "NodeNamer.h"
#include "PlanPrivate.h"
#include "SourceSpelling.h"
#include "TensorSubscript.h"
#include "TorchValues.h"
#include "TracerPrivate.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// What a TorchScript value stands for while tracing.
struct Binding {
    enum class Kind { Data, Module, Function };
    Kind kind = Kind::Data;
    Argument arg;                        // Data: a literal or a reference to a node
    std::optional<c10::IValue> constant; // Data: the literal itself, when it is one
    ValueSource source;                  // Data: how the interpreter gets the value
    jit::Module module;                  // Module
    std::string path;                    // Module: "layer1.0"
    jit::Function* function = nullptr;   // Function
};

using Frame = std::unordered_map<const jit::Value*, Binding>;

struct TraceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string baseName(const std::string& debugName) {
    std::string name = debugName.substr(0, debugName.find('.'));
    bool numeric = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
    return name.empty() || numeric ? std::string() : name;
}

std::string joinPath(const std::string& parent, const std::string& child) {
    return parent.empty() ? child : parent + "." + child;
}

std::string scalarTypeRepr(std::int64_t code) {
    switch (static_cast<c10::ScalarType>(code)) {
    case c10::ScalarType::Float:
        return "torch.float32";
    case c10::ScalarType::Double:
        return "torch.float64";
    case c10::ScalarType::Half:
        return "torch.float16";
    case c10::ScalarType::BFloat16:
        return "torch.bfloat16";
    case c10::ScalarType::Long:
        return "torch.int64";
    case c10::ScalarType::Int:
        return "torch.int32";
    case c10::ScalarType::Short:
        return "torch.int16";
    case c10::ScalarType::Char:
        return "torch.int8";
    case c10::ScalarType::Byte:
        return "torch.uint8";
    case c10::ScalarType::Bool:
        return "torch.bool";
    case c10::ScalarType::ComplexFloat:
        return "torch.complex64";
    case c10::ScalarType::ComplexDouble:
        return "torch.complex128";
    default:
        return "torch." + std::string(c10::toString(static_cast<c10::ScalarType>(code)));
    }
}

// A constant as torch.fx would print it in args.
Argument literalOf(const c10::IValue& v) {
    if (v.isNone())
        return Argument::none();
    if (v.isBool())
        return Argument::ofBool(v.toBool());
    if (v.isInt())
        return Argument::ofInt(v.toInt());
    if (v.isDouble())
        return Argument::ofFloat(v.toDouble());
    if (v.isString())
        return Argument::ofString(v.toStringRef());
    if (v.isList()) {
        std::vector<Argument> items;
        for (const c10::IValue& item : v.toListRef())
            items.push_back(literalOf(item));
        return Argument::ofList(std::move(items));
    }
    if (v.isTuple()) {
        std::vector<Argument> items;
        for (const c10::IValue& item : v.toTupleRef().elements())
            items.push_back(literalOf(item));
        return Argument::ofTuple(std::move(items));
    }
    if (v.isDevice())
        return Argument::ofRepr("device(type='" + v.toDevice().str() + "')");
    std::ostringstream repr;
    repr << v;
    return Argument::ofRepr(repr.str());
}

bool isPlainDataType(const c10::TypePtr& t) {
    switch (t->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
    case c10::TypeKind::NoneType:
    case c10::TypeKind::NumberType:
    case c10::TypeKind::DeviceObjType:
        return true;
    case c10::TypeKind::ListType:
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::TupleType: {
        for (const c10::TypePtr& contained : t->containedTypes())
            if (!isPlainDataType(contained))
                return false;
        return true;
    }
    default:
        return false;
    }
}

bool isScalarTypeArgument(const c10::Argument& a) {
    c10::TypePtr t = a.real_type();
    if (auto optional = t->cast<c10::OptionalType>())
        t = optional->getElementType();
    return t->kind() == c10::TypeKind::ScalarTypeType;
}

// A guard: `if cond: raise ...` or `if cond: warnings.warn(...)` with nothing flowing out of
// either branch. torch.fx never records one (a Proxy condition cannot be traced through).
bool isRaiseOnlyGuard(const jit::Node* n) {
    if (n->kind() != c10::prim::If || n->outputs().size() != 0)
        return false;
    for (const jit::Block* b : n->blocks())
        for (const jit::Node* inner : b->nodes())
            if (inner->kind() == c10::prim::RaiseException || inner->kind() == c10::aten::warn)
                return true;
    return false;
}

// A Python number the tracer turned into a tensor: 0-dim, on the CPU, int64, float64 or bool
// (torch.tensor(3.0) would be float32, a tensor constant of the model's own).
bool isTracedScalar(const at::Tensor& t) {
    auto type = t.scalar_type();
    return t.dim() == 0 && t.device().is_cpu() && !t.requires_grad() &&
           (type == c10::ScalarType::Long || type == c10::ScalarType::Double ||
            type == c10::ScalarType::Bool);
}

class Tracer {
public:
    TraceResult trace(const jit::Module& root) {
        graph_.modelClass = root.type()->name()->qualifiedName();
        Binding self;
        self.kind = Binding::Kind::Module;
        self.module = root;
        jit::Method forward = root.get_method("forward");
        return traceGraph(*forward.graph(), forward.function().getSchema(), &self);
    }

    // A function torch.fx keeps whole (torch.fx.wrap), traced on its own for Step Into: its
    // arguments are the placeholders.
    TraceResult trace(jit::Function& function) {
        graph_.modelClass = function.qualname().qualifiedName();
        return traceGraph(*jit::toGraphFunction(function).graph(), function.getSchema(), nullptr);
    }

private:
    TraceResult traceGraph(const jit::Graph& graph, const c10::FunctionSchema& schema,
                           const Binding* self) {
        const jit::Graph* g = &graph;
        out_ = &graph_.nodes;
        outSteps_ = &plan_->top;
        Frame frame;
        const std::size_t first = self ? 1 : 0; // a method's graph starts with self
        if (self)
            frame[g->inputs()[0]] = *self;
        for (std::size_t i = first; i < g->inputs().size(); ++i) {
            const jit::Value* input = g->inputs()[i];
            std::string target = baseName(input->debugName());
            if (target.empty())
                target = "input_" + std::to_string(i - first);
            Node node;
            node.op = Op::Placeholder;
            node.target = target;
            PlaceholderSpec spec;
            spec.name = target;
            spec.type = input->type();
            if (i < schema.arguments().size() && schema.arguments()[i].default_value()) {
                // torch.fx keeps a default as the placeholder's one arg: `(default=None)`.
                spec.defaultValue = *schema.arguments()[i].default_value();
                node.args.push_back(literalOf(*spec.defaultValue));
            }
            plan_->inputs.push_back(std::move(spec));
            Step step;
            step.kind = Step::Kind::Placeholder;
            step.index = plan_->placeholders++;
            frame[input] = emitValue(std::move(node), target, std::move(step));
        }
        traceNodes(g->block(), frame);

        Node output;
        output.op = Op::Output;
        output.target = "output";
        const Binding& result = dataOf(frame, g->outputs()[0]);
        output.args.push_back(result.arg);
        Step step;
        step.kind = Step::Kind::Output;
        step.inputs.push_back(result.source);
        emit(std::move(output), "output", std::move(step));

        graph_.recomputeUsers();
        hideWorkThatOnlyFeedsGuards();
        TraceResult traced;
        traced.graph = std::move(graph_);
        traced.plan = std::move(plan_);
        return traced;
    }

    Graph graph_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    NodeNamer namer_;
    std::vector<Node>* out_ = nullptr;
    std::vector<int>* outSteps_ = nullptr;
    std::string scope_;
    std::unordered_map<std::string, Binding> getAttrNodes_; // attribute path -> its node
    int tensorConstants_ = 0;
    SourceSpelling sourceSpelling_; // method or function, as the model's code wrote it
    TensorSubscript subscript_{sourceSpelling_};
    // Tensor attributes read but not yet used: path and value (see traceGetAttr).
    struct PendingAttribute {
        const jit::Value* value;
        std::string path;
        c10::IValue attribute;
    };
    std::vector<PendingAttribute> pendingAttributes_; // in the order the graph reads them
    std::vector<std::string> assertMessages_;         // the nodes formatting torch._assert messages
    // Where the nodes emitted now come from: the TorchScript node being traced, and the calls
    // it was inlined through (outermost first), for each node's source lines.
    const jit::Node* current_ = nullptr;
    std::vector<const jit::Node*> callSites_;

    // Makes `n` the node being traced until the end of the scope.
    struct Tracing {
        Tracing(Tracer& t, const jit::Node* n) : tracer(t), saved(t.current_) { t.current_ = n; }
        ~Tracing() { tracer.current_ = saved; }
        Tracing(const Tracing&) = delete;
        Tracing& operator=(const Tracing&) = delete;
        Tracer& tracer;
        const jit::Node* saved;
    };

    static Binding data(Argument arg, ValueSource source,
                        std::optional<c10::IValue> constant = std::nullopt) {
        Binding b;
        b.arg = std::move(arg);
        b.source = std::move(source);
        b.constant = std::move(constant);
        return b;
    }

    static Binding constant(const c10::IValue& v) {
        return data(literalOf(v), ValueSource::ofConstant(v), v);
    }

    const Binding& lookup(const Frame& frame, const jit::Value* v) const {
        auto it = frame.find(v);
        if (it == frame.end())
            throw TraceError("value %" + v->debugName() + " is used before it is defined");
        return it->second;
    }

    const Binding& dataOf(const Frame& frame, const jit::Value* v) const {
        const Binding& b = lookup(frame, v);
        if (b.kind != Binding::Kind::Data)
            throw TraceError("a module or function (%" + v->debugName() +
                             ") is used as a value, which torch.fx cannot show");
        return b;
    }

    std::vector<ValueSource> sourcesOf(const Frame& frame, const jit::Node* n,
                                       std::size_t first) const {
        std::vector<ValueSource> sources;
        for (std::size_t i = first; i < n->inputs().size(); ++i)
            sources.push_back(dataOf(frame, n->inputs()[i]).source);
        return sources;
    }

    // Adds the node and the step that computes it; returns the step id.
    int emit(Node node, const std::string& candidate, Step step) {
        // torch.fx snake_cases every candidate (Graph._target_to_str), module paths included.
        node.name = namer_.create(NodeNamer::snakeCase(candidate));
        if (node.scope.empty())
            node.scope = scope_;
        if (node.sourceTrace.empty() && current_)
            node.sourceTrace = sourceSpelling_.traceback(callSites_, current_);
        step.name = node.name;
        step.slot = plan_->slotCount++;
        int id = static_cast<int>(plan_->steps.size());
        plan_->stepOf[node.name] = id;
        // Attributes are fetched at the top level so that every block can refer to them.
        bool topLevel = node.op == Op::GetAttr;
        (topLevel ? graph_.nodes : *out_).push_back(std::move(node));
        (topLevel ? plan_->top : *outSteps_).push_back(id);
        plan_->steps.push_back(std::move(step));
        return id;
    }

    // The binding of a node's single value.
    Binding valueOf(int id) const {
        const Step& step = plan_->steps[static_cast<std::size_t>(id)];
        return data(Argument::ofNode(step.name), ValueSource::ofSlot(step.slot));
    }

    Binding emitValue(Node node, const std::string& candidate, Step step) {
        return valueOf(emit(std::move(node), candidate, std::move(step)));
    }

    void traceNodes(const jit::Block* block, Frame& frame) {
        for (const jit::Node* n : block->nodes())
            traceNode(n, frame);
    }

    // Emits a node for `n` and binds its outputs: one value is the node itself; several come
    // out of a tuple through getitem nodes, as torch.fx does for `a, b = f(x)`.
    void emitFor(const jit::Node* n, Node node, const std::string& candidate, Step step,
                 Frame& frame) {
        step.outputs = static_cast<int>(n->outputs().size());
        Binding value = emitValue(std::move(node), candidate, std::move(step));
        if (n->outputs().size() == 1) {
            frame[n->outputs()[0]] = value;
            return;
        }
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            if (!n->outputs()[i]->uses().empty())
                frame[n->outputs()[i]] = getItem(value, i);
    }

    // Item `index` of a tuple or list; `unpacked`, when it is one of `a, b = items`: how many
    // items there must be (TorchScript's ListUnpack raises otherwise).
    Binding getItem(const Binding& source, std::size_t index, int unpacked = -1) {
        Node node;
        node.op = Op::CallFunction;
        node.target = "operator.getitem";
        node.args = {source.arg, Argument::ofInt(static_cast<std::int64_t>(index))};
        Step step;
        step.kind = Step::Kind::GetItem;
        step.index = static_cast<int>(index);
        step.unpacked = unpacked;
        step.inputs = {source.source};
        return emitValue(std::move(node), "getitem", std::move(step));
    }

    void traceNode(const jit::Node* n, Frame& frame) {
        Tracing tracing(*this, n);
        readPendingAttributes(n, frame);
        const c10::Symbol kind = n->kind();
        if (kind == c10::prim::Constant)
            return traceConstant(n, frame);
        if (kind == c10::prim::GetAttr)
            return traceGetAttr(n, frame);
        if (kind == c10::prim::CallMethod)
            return traceCallMethod(n, frame);
        if (kind == c10::prim::CallFunction)
            return traceCallFunction(n, frame);
        if (kind == c10::prim::ListConstruct && mutatedElsewhere(n))
            return traceOperator(n, frame); // a real list object, shared by every use
        if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct)
            return traceConstruct(n, frame);
        if (kind == c10::aten::append && appendsToLiteral(n, frame))
            return traceAppend(n, frame);
        if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack)
            return traceUnpack(n, frame);
        if (kind == c10::prim::unchecked_cast) {
            frame[n->output()] = lookup(frame, n->input());
            return;
        }
        if (kind == c10::prim::Uninitialized) {
            frame[n->output()] = constant(c10::IValue());
            return;
        }
        if (kind == c10::prim::If)
            return traceIf(n, frame);
        if (kind == c10::prim::Loop)
            return traceLoop(n, frame);
        traceOperator(n, frame);
    }

    void traceConstant(const jit::Node* n, Frame& frame) {
        const jit::Value* out = n->output();
        if (auto fn = out->type()->cast<c10::FunctionType>()) {
            Binding b;
            b.kind = Binding::Kind::Function;
            b.function = fn->function();
            frame[out] = b;
            return;
        }
        c10::optional<c10::IValue> value = jit::toIValue(out);
        if (!value)
            throw TraceError("a constant of type " + out->type()->repr_str() + " cannot be read");
        if (value->isTensor() && isTracedScalar(value->toTensor())) {
            // Tracing `x * 2` stores the 2 as a 0-dim int64 (a Python float: float64) tensor
            // constant; torch.fx shows the number. The op still runs on the tensor, as traced.
            const at::Tensor& t = value->toTensor();
            Argument literal =
                t.scalar_type() == c10::ScalarType::Bool   ? Argument::ofBool(t.item<bool>())
                : t.scalar_type() == c10::ScalarType::Long ? Argument::ofInt(t.item<std::int64_t>())
                                                           : Argument::ofFloat(t.item<double>());
            frame[out] = data(std::move(literal), ValueSource::ofConstant(*value));
            return;
        }
        if (value->isTensor()) {
            // torch.fx keeps tensor constants as attributes named _tensor_constantN.
            Node node;
            node.op = Op::GetAttr;
            node.target = "_tensor_constant" + std::to_string(tensorConstants_++);
            Step step;
            step.kind = Step::Kind::Attribute;
            step.attribute = *value;
            std::string target = node.target;
            frame[out] = emitValue(std::move(node), target, std::move(step));
            return;
        }
        frame[out] = constant(*value);
    }

    void traceGetAttr(const jit::Node* n, Frame& frame) {
        const Binding& owner = lookup(frame, n->input());
        const std::string field = n->s(c10::attr::name);
        if (owner.kind != Binding::Kind::Module) {
            traceOperator(n, frame); // an attribute of a TorchScript class object
            return;
        }
        c10::IValue value = owner.module.attr(field);
        std::string path = joinPath(owner.path, field);
        if (value.isModule()) {
            Binding b;
            b.kind = Binding::Kind::Module;
            b.module = value.toModule();
            b.path = path;
            frame[n->output()] = b;
        } else if (value.isTensor()) {
            // torch.fx records a get_attr where Python reads the attribute, right at its use; a
            // traced graph reads them all up front. Read where first used when every use is a
            // node of this block (one inside a branch must not be the only place it is read,
            // and the block's return is no node the tracer visits: `return self.w`).
            bool sameBlock = true;
            for (const jit::Use& use : n->output()->uses())
                sameBlock = sameBlock && use.user->owningBlock() == n->owningBlock() &&
                            use.user != n->owningBlock()->return_node();
            if (sameBlock && !getAttrNodes_.count(path)) {
                pendingAttributes_.push_back({n->output(), path, value});
                return;
            }
            frame[n->output()] = attributeNode(path, value);
        } else {
            // training flags, sizes, use_res_connect...: plain Python values in torch.fx
            frame[n->output()] = constant(value);
        }
    }

    // Attributes not read yet (see traceGetAttr) are read when `n` uses them, in its argument
    // order (a traced graph lists a layer_norm's bias before its weight; Python reads weight
    // first), and all of them before a call into a module or function: `self.scale *
    // self.block(x)` reads scale before block runs.
    void readPendingAttributes(const jit::Node* n, Frame& frame) {
        const bool call =
            n->kind() == c10::prim::CallMethod || n->kind() == c10::prim::CallFunction;
        auto read = [&](std::size_t i) {
            const PendingAttribute& p = pendingAttributes_[i];
            Tracing tracing(*this, p.value->node()); // its line is where it was read
            frame[p.value] = attributeNode(p.path, p.attribute);
            pendingAttributes_.erase(pendingAttributes_.begin() + static_cast<std::ptrdiff_t>(i));
        };
        if (call) {
            while (!pendingAttributes_.empty())
                read(0);
            return;
        }
        for (const jit::Value* input : n->inputs())
            for (std::size_t i = 0; i < pendingAttributes_.size(); ++i)
                if (pendingAttributes_[i].value == input) {
                    read(i);
                    break;
                }
    }

    // One get_attr node per parameter or buffer, reused by every access like torch.fx.
    Binding attributeNode(const std::string& path, const c10::IValue& value) {
        auto it = getAttrNodes_.find(path);
        if (it == getAttrNodes_.end()) {
            Node node;
            node.op = Op::GetAttr;
            node.target = path;
            node.tensors.push_back(heldTensor(path, value.toTensor()));
            Step step;
            step.kind = Step::Kind::Attribute;
            step.attribute = value;
            it = getAttrNodes_.emplace(path, emitValue(std::move(node), path, std::move(step)))
                     .first;
        }
        return it->second;
    }

    void traceCallMethod(const jit::Node* n, Frame& frame) {
        const Binding& self = lookup(frame, n->inputs()[0]);
        const std::string method = n->s(c10::attr::name);
        if (self.kind != Binding::Kind::Module) {
            traceOperator(n, frame);
            return;
        }
        std::string pythonClass = pythonClassName(self.module.type()->name()->qualifiedName());
        std::shared_ptr<jit::Graph> callee = self.module.get_method(method).graph();
        if (const jit::Value* passed = elidedIdentityArgument(n, *callee))
            if (traceIdentityCall(n, self, pythonClass, passed, frame))
                return;
        // Tracing names the second call of a module forward1, forward2...: still a module call.
        if (isLeafModuleClass(pythonClass) && method.rfind("forward", 0) == 0) {
            Node node;
            node.op = Op::CallModule;
            node.target = self.path;
            node.moduleType = publicClassName(pythonClass);
            for (const auto& p : self.module.named_parameters(/*recurse=*/true))
                node.tensors.push_back(heldTensor(p.name, p.value));
            for (std::size_t i = 1; i < n->inputs().size(); ++i)
                node.args.push_back(dataOf(frame, n->inputs()[i]).arg);
            Step step;
            step.kind = Step::Kind::CallModule;
            step.module = self.module;
            step.function = &self.module.get_method(method).function();
            step.inputs = sourcesOf(frame, n, 1);
            emitFor(n, std::move(node), self.path, std::move(step), frame);
            return;
        }
        std::string savedScope = scope_;
        scope_ = self.path;
        inlineCall(*callee, n, 0, frame);
        scope_ = savedScope;
    }

    // A traced call of a module whose forward returned its input unchanged (nn.Identity,
    // StochasticDepth in eval mode) keeps the call but neither its argument nor its result:
    // `%14 : NoneType = prim::CallMethod[name="forward"](%stochastic_depth)`, the next op using
    // the value from before the call. torch.fx records the call on that value. The argument is
    // taken to be the latest tensor made before the call that is used after it (the call's
    // own argument in `x = self.sd(x); x + y`), and the uses after the call see the call's node.
    static const jit::Value* elidedIdentityArgument(const jit::Node* n, const jit::Graph& callee) {
        bool empty = n->inputs().size() == 1 && n->outputs().size() == 1 &&
                     n->output()->type()->kind() == c10::TypeKind::NoneType &&
                     callee.inputs().size() == 1 && callee.outputs().size() == 1 &&
                     callee.outputs()[0]->type()->kind() == c10::TypeKind::NoneType;
        for (const jit::Node* inner : callee.nodes())
            empty = empty && inner->kind() == c10::prim::Constant;
        if (!empty)
            return nullptr;
        auto usedAfter = [n](const jit::Value* v) {
            if (v->type()->kind() != c10::TypeKind::TensorType)
                return false;
            for (const jit::Use& use : v->uses())
                if (use.user->isAfter(n))
                    return true;
            return false;
        };
        for (const jit::Node* p = n->prev(); p != n->owningBlock()->param_node(); p = p->prev())
            for (std::size_t i = p->outputs().size(); i-- > 0;)
                if (usedAfter(p->outputs()[i]))
                    return p->outputs()[i];
        for (std::size_t i = n->owningBlock()->inputs().size(); i-- > 0;)
            if (usedAfter(n->owningBlock()->inputs()[i]))
                return n->owningBlock()->inputs()[i];
        return nullptr;
    }

    // Emits the identity call torch.fx would record, if it records one: a leaf module is a
    // call_module; StochasticDepth calls torch.fx.wrap'ped stochastic_depth (its p and mode are
    // not in a traced archive: only the input is shown). Any other module's forward returned
    // its input in Python too, which torch.fx traces through, recording nothing.
    bool traceIdentityCall(const jit::Node* n, const Binding& self, const std::string& pythonClass,
                           const jit::Value* passed, Frame& frame) {
        bool leaf = isLeafModuleClass(pythonClass);
        bool stochasticDepth = pythonClass == "torchvision.ops.stochastic_depth.StochasticDepth";
        if (!leaf && !stochasticDepth)
            return false;
        const Binding& input = dataOf(frame, passed);
        Node node;
        node.op = leaf ? Op::CallModule : Op::CallFunction;
        node.target = leaf ? self.path : "torchvision.ops.stochastic_depth.stochastic_depth";
        if (leaf)
            node.moduleType = publicClassName(pythonClass);
        node.args.push_back(input.arg);
        Step step;
        step.kind = Step::Kind::PassThrough;
        step.inputs = {input.source};
        frame[passed] =
            emitValue(std::move(node), leaf ? self.path : "stochastic_depth", std::move(step));
        frame[n->output()] = constant(c10::IValue());
        return true;
    }

    void traceCallFunction(const jit::Node* n, Frame& frame) {
        const Binding& fn = lookup(frame, n->inputs()[0]);
        if (fn.kind != Binding::Kind::Function) {
            traceOperator(n, frame);
            return;
        }
        const std::string qualified = fn.function->qualname().qualifiedName();
        std::string functional = functionalName(qualified);
        std::string wrapped = fxWrappedFunction(qualified);
        if (!functional.empty() || !wrapped.empty()) {
            // torch.fx records torch.nn.functional calls whole, through __torch_function__, and
            // the functions their libraries wrap with torch.fx.wrap; Step Into shows the body.
            Node node;
            node.op = Op::CallFunction;
            node.target = functional.empty() ? wrapped : "torch.nn.functional." + functional;
            node.schema = qualified;
            addArguments(node, n, 1, fn.function->getSchema(), frame);
            Step step;
            step.kind = Step::Kind::Function;
            step.function = fn.function;
            step.inputs = sourcesOf(frame, n, 1);
            std::string candidate =
                functional.empty() ? wrapped.substr(wrapped.rfind('.') + 1) : functional;
            emitFor(n, std::move(node), candidate, std::move(step), frame);
            return;
        }
        inlineCall(*jit::toGraphFunction(*fn.function).graph(), n, 1, frame);
    }

    // Traces `callee` in place of call node `n`; its inputs are the call's inputs from `first`
    // (CallMethod passes self as the callee's first input too).
    void inlineCall(const jit::Graph& callee, const jit::Node* n, std::size_t first, Frame& frame) {
        Frame inner;
        for (std::size_t i = first; i < n->inputs().size(); ++i)
            inner[callee.inputs()[i - first]] = lookup(frame, n->inputs()[i]);
        callSites_.push_back(n);
        traceNodes(callee.block(), inner);
        callSites_.pop_back();
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = lookup(inner, callee.outputs()[i]);
    }

    // Construct nodes have no schema to run through, so their constants are built here.
    c10::IValue constructConstant(const jit::Node* n, const Frame& frame) const {
        std::vector<c10::IValue> items;
        for (const jit::Value* input : n->inputs())
            items.push_back(*dataOf(frame, input).constant);
        if (n->kind() == c10::prim::TupleConstruct)
            return c10::ivalue::Tuple::create(std::move(items));
        c10::impl::GenericList list(
            n->output()->type()->expectRef<c10::ListType>().getElementType());
        for (c10::IValue& item : items)
            list.push_back(std::move(item));
        return list;
    }

    void traceConstruct(const jit::Node* n, Frame& frame) {
        std::vector<Argument> items;
        ValueSource source;
        bool isList = n->kind() == c10::prim::ListConstruct;
        source.kind = isList ? ValueSource::Kind::List : ValueSource::Kind::Tuple;
        if (isList)
            source.listElement = n->output()->type()->expectRef<c10::ListType>().getElementType();
        bool allConstant = true;
        for (const jit::Value* input : n->inputs()) {
            const Binding& b = dataOf(frame, input);
            items.push_back(b.arg);
            source.items.push_back(b.source);
            allConstant = allConstant && b.constant.has_value();
        }
        Argument arg =
            isList ? Argument::ofList(std::move(items)) : Argument::ofTuple(std::move(items));
        // A list that grows by appends stays a literal, even when it starts out constant.
        bool appendedTo = isList && std::any_of(n->output()->uses().begin(),
                                                n->output()->uses().end(), [](const jit::Use& u) {
                                                    return u.user->kind() == c10::aten::append;
                                                });
        if (allConstant && !appendedTo) {
            c10::IValue value = constructConstant(n, frame);
            frame[n->output()] = data(std::move(arg), ValueSource::ofConstant(value), value);
        } else {
            frame[n->output()] = data(std::move(arg), std::move(source));
        }
    }

    // A list literal is folded into each use ([%a, %b]) as torch.fx records Python lists. A
    // list that is appended to in the block that made it stays a literal that grows: each use
    // sees its items at that point (`cat([%pool0, %conv2])`), and the append leaves no node,
    // as in torch.fx. Any other mutation (in a loop body or a callee, insert, pop, ...) needs
    // one real list object: such a list is made by a node of its own, which all uses share.
    static bool mutatedElsewhere(const jit::Node* construct) {
        for (const jit::Use& use : construct->output()->uses()) {
            const jit::Node* user = use.user;
            if (user->kind() == c10::aten::append && use.offset == 0 &&
                user->owningBlock() == construct->owningBlock())
                continue;
            if (mutates(use, 0))
                return true;
        }
        return false;
    }

    // Whether `use` may change the list it is handed: an operator whose schema writes to that
    // argument, or a method or function whose own graph does so with its parameter.
    static bool mutates(const jit::Use& use, int depth) {
        const jit::Node* user = use.user;
        if (user->kind() == c10::prim::CallMethod || user->kind() == c10::prim::CallFunction) {
            const jit::Graph* callee = calleeGraph(user);
            // CallFunction's first input is the function; the callee's graph does not have it.
            std::size_t param =
                user->kind() == c10::prim::CallFunction ? use.offset - 1 : use.offset;
            if (!callee || depth > 8 || param >= callee->inputs().size())
                return true; // cannot look inside: assume it does
            for (const jit::Use& inner : callee->inputs()[param]->uses())
                if (mutates(inner, depth + 1))
                    return true;
            return false;
        }
        if (user->kind() == c10::prim::Loop || user->kind() == c10::prim::If)
            return true; // carried into control flow: one real object keeps it right
        const c10::FunctionSchema* schema = user->maybeSchema();
        if (!schema || use.offset >= schema->arguments().size())
            return false;
        const c10::AliasInfo* alias = schema->arguments()[use.offset].alias_info();
        return alias && alias->isWrite();
    }

    static const jit::Graph* calleeGraph(const jit::Node* call) {
        jit::Function* fn = nullptr;
        if (call->kind() == c10::prim::CallMethod) {
            if (auto cls = call->inputs()[0]->type()->cast<c10::ClassType>())
                fn = cls->findMethod(call->s(c10::attr::name));
        } else if (auto type = call->inputs()[0]->type()->cast<c10::FunctionType>()) {
            fn = type->function();
        }
        return fn && fn->isGraphFunction() ? jit::toGraphFunction(*fn).graph().get() : nullptr;
    }

    bool appendsToLiteral(const jit::Node* n, const Frame& frame) const {
        const jit::Value* list = n->inputs()[0];
        const Binding& b = dataOf(frame, list);
        return list->node()->kind() == c10::prim::ListConstruct &&
               list->node()->owningBlock() == n->owningBlock() && !b.constant &&
               b.source.kind == ValueSource::Kind::List;
    }

    void traceAppend(const jit::Node* n, Frame& frame) {
        const Binding& item = dataOf(frame, n->inputs()[1]);
        Binding& list = frame[n->inputs()[0]];
        list.arg.items.push_back(item.arg);
        list.source.items.push_back(item.source);
        if (n->outputs().size() == 1)
            frame[n->output()] = list;
    }

    void traceUnpack(const jit::Node* n, Frame& frame) {
        const Binding& source = dataOf(frame, n->input());
        bool literal = source.source.kind == ValueSource::Kind::List ||
                       source.source.kind == ValueSource::Kind::Tuple;
        if (source.constant) {
            std::vector<c10::IValue> values = source.constant->isList()
                                                  ? source.constant->toListRef().vec()
                                                  : source.constant->toTupleRef().elements().vec();
            for (std::size_t i = 0; i < n->outputs().size() && i < values.size(); ++i)
                frame[n->outputs()[i]] = constant(values[i]);
            return;
        }
        if (literal && source.source.items.size() == n->outputs().size()) {
            for (std::size_t i = 0; i < n->outputs().size(); ++i)
                frame[n->outputs()[i]] = data(source.arg.items[i], source.source.items[i]);
            return;
        }
        Binding whole = source;
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = getItem(whole, i, static_cast<int>(n->outputs().size()));
    }

    // The message of `torch._assert(cond, message)`, which TorchScript inlines from its builtin
    // `def _assert(condition, message): assert condition, message` as an if whose false branch
    // raises "AssertionError: " + message (one constant string when the message is one). The
    // message, and the value it came from (none for a constant), or nullopt for any other if.
    std::optional<std::pair<Binding, const jit::Value*>> assertMessage(const jit::Node* n,
                                                                       const Frame& frame) {
        if (!isRaiseOnlyGuard(n) || n->blocks().size() != 2 ||
            n->blocks()[0]->nodes().begin() != n->blocks()[0]->nodes().end() ||
            sourceSpelling_.builtinDefinition(n) != "_assert")
            return std::nullopt;
        std::vector<const jit::Node*> raise(n->blocks()[1]->nodes().begin(),
                                            n->blocks()[1]->nodes().end());
        if (raise.empty() || raise.back()->kind() != c10::prim::RaiseException)
            return std::nullopt;
        if (raise.size() == 2 && raise[0]->kind() == c10::aten::add &&
            raise[0]->inputs().size() == 2)
            return std::make_pair(dataOf(frame, raise[0]->inputs()[1]), raise[0]->inputs()[1]);
        const Binding& whole = dataOf(frame, raise.back()->inputs()[0]);
        const std::string prefix = "AssertionError: ";
        if (raise.size() != 1 || !whole.constant || !whole.constant->isString() ||
            whole.constant->toStringRef().rfind(prefix, 0) != 0)
            return std::nullopt;
        return std::make_pair(
            constant(c10::IValue(whole.constant->toStringRef().substr(prefix.size()))),
            static_cast<const jit::Value*>(nullptr));
    }

    // torch.fx records torch._assert as a call: `_assert(eq, 'Wrong image height! Expected 224
    // but got Proxy(getitem_2)!')`, its f-string made while tracing, a Proxy printed as
    // Proxy(name). fxview shows that text and keeps the aten::format that builds the real
    // message hidden (torch.fx has no node for it); the step raises with the real message.
    void traceAssert(const Binding& condition, const Binding& message,
                     const jit::Value* messageValue, Frame& frame) {
        Node node;
        node.op = Op::CallFunction;
        node.target = "torch._assert";
        node.args = {condition.arg,
                     Argument::ofString(tracedMessage(message, messageValue, frame))};
        Step step;
        step.kind = Step::Kind::Assert;
        step.inputs = {condition.source, message.source};
        if (message.arg.isNode())
            assertMessages_.push_back(message.arg.text);
        emitValue(std::move(node), "_assert", std::move(step));
    }

    // The message torch.fx's trace would have made: an f-string's `{}` filled with each value's
    // str(), a traced value's being "Proxy(name)".
    std::string tracedMessage(const Binding& b, const jit::Value* message,
                              const Frame& frame) const {
        if (b.constant && b.constant->isString())
            return b.constant->toStringRef();
        if (!message)
            return std::string();
        const jit::Node* format = message->node();
        if (format->kind() != c10::aten::format || format->inputs().empty() ||
            !dataOf(frame, format->inputs()[0]).constant)
            return b.arg.isNode() ? "Proxy(" + b.arg.text + ")" : std::string();
        std::string pattern = dataOf(frame, format->inputs()[0]).constant->toStringRef();
        std::string text;
        std::size_t next = 1;
        for (std::size_t i = 0; i < pattern.size(); ++i) {
            if (pattern.compare(i, 2, "{}") != 0 || next >= format->inputs().size()) {
                text += pattern[i];
                continue;
            }
            const Binding& value = dataOf(frame, format->inputs()[next++]);
            text += value.arg.isNode() ? "Proxy(" + value.arg.text + ")" : pythonStr(value);
            ++i;
        }
        return text;
    }

    static std::string pythonStr(const Binding& b) {
        if (!b.constant)
            return formatArgument(b.arg);
        const c10::IValue& v = *b.constant;
        if (v.isString())
            return v.toStringRef();
        if (v.isDouble())
            return pythonFloatRepr(v.toDouble());
        return formatArgument(b.arg);
    }

    void traceIf(const jit::Node* n, Frame& frame) {
        const Binding& condition = dataOf(frame, n->input());
        if (condition.constant && condition.constant->isBool()) {
            // Known while tracing (a flag attribute like use_res_connect): torch.fx would only
            // ever see the branch taken, so that branch is inlined.
            const jit::Block* taken = n->blocks()[condition.constant->toBool() ? 0 : 1];
            traceNodes(taken, frame);
            for (std::size_t i = 0; i < n->outputs().size(); ++i)
                frame[n->outputs()[i]] = lookup(frame, taken->outputs()[i]);
            return;
        }
        if (auto message = assertMessage(n, frame))
            return traceAssert(condition, message->first, message->second, frame);
        Node node;
        node.op = Op::CallFunction;
        node.target = "prim::If";
        node.schema = "prim::If";
        node.args = {condition.arg};
        node.hidden = isRaiseOnlyGuard(n);
        Step step;
        step.kind = Step::Kind::If;
        step.inputs = {condition.source};
        const char* labels[] = {"true", "false"};
        for (std::size_t b = 0; b < n->blocks().size(); ++b) {
            node.blocks.push_back(traceBlock(n->blocks()[b], labels[b], {}, {}, frame));
            step.blocks.push_back(lastBlock_);
        }
        // A hidden guard takes a name of its own, so the ifs a person sees are cond, cond_1...
        std::string candidate = node.hidden ? "guard" : "cond";
        emitFor(n, std::move(node), candidate, std::move(step), frame);
    }

    void traceLoop(const jit::Node* n, Frame& frame) {
        Node node;
        node.op = Op::CallFunction;
        node.target = "prim::Loop";
        node.schema = "prim::Loop";
        for (const jit::Value* input : n->inputs())
            node.args.push_back(dataOf(frame, input).arg);
        Step step;
        step.kind = Step::Kind::Loop;
        step.inputs = sourcesOf(frame, n, 0);
        const jit::Block* body = n->blocks()[0];
        std::vector<std::string> params;
        std::vector<int> paramSlots;
        for (std::size_t i = 0; i < body->inputs().size(); ++i) {
            std::string name = baseName(body->inputs()[i]->debugName());
            params.push_back(namer_.create(name.empty() ? (i == 0 ? "i" : "carried") : name));
            paramSlots.push_back(plan_->slotCount++);
            frame[body->inputs()[i]] =
                data(Argument::ofNode(params.back()), ValueSource::ofSlot(paramSlots.back()));
        }
        node.blocks.push_back(traceBlock(body, "body", params, paramSlots, frame));
        step.blocks.push_back(lastBlock_);
        emitFor(n, std::move(node), "loop", std::move(step), frame);
    }

    StepBlock lastBlock_; // the plan side of the block traceBlock just traced

    // Traces a control-flow block into its own node list; values from outside stay visible.
    Block traceBlock(const jit::Block* block, const std::string& label,
                     std::vector<std::string> params, std::vector<int> paramSlots, Frame& frame) {
        Block result;
        result.label = label;
        result.params = std::move(params);
        StepBlock steps;
        steps.params = std::move(paramSlots);
        std::vector<Node>* savedNodes = out_;
        std::vector<int>* savedSteps = outSteps_;
        out_ = &result.nodes;
        outSteps_ = &steps.steps;
        traceNodes(block, frame);
        for (const jit::Value* v : block->outputs()) {
            result.results.push_back(dataOf(frame, v).arg);
            steps.results.push_back(dataOf(frame, v).source);
        }
        out_ = savedNodes;
        outSteps_ = savedSteps;
        lastBlock_ = std::move(steps);
        return result;
    }

    // Runs a side-effect-free operator on constant inputs, the way TorchScript's constant
    // propagation would, so that `_list_with_default([1, 1], ...)` or `len([..])` fold away.
    std::vector<c10::IValue> evaluate(const jit::Node* n, const Frame& frame) {
        jit::Stack stack;
        for (const jit::Value* input : n->inputs())
            stack.push_back(*dataOf(frame, input).constant);
        if (n->schema().is_vararg()) // as the interpreter's OPN does (see Step::varargCount)
            stack.emplace_back(static_cast<std::int64_t>(n->inputs().size()));
        n->getOperation()(stack);
        return stack;
    }

    bool foldable(const jit::Node* n, const Frame& frame) const {
        if (!n->maybeSchema() || n->hasSideEffects() || n->isNondeterministic())
            return false;
        for (const jit::Value* input : n->inputs()) {
            auto it = frame.find(input);
            if (it == frame.end() || !it->second.constant || it->second.constant->isTensor())
                return false;
        }
        for (const jit::Value* output : n->outputs())
            if (!isPlainDataType(output->type()))
                return false;
        return true;
    }

    // When `n` is the last link of a Tensor subscript that torch.fx would record as one
    // getitem (see TensorSubscript): the subscripted tensor and the index.
    std::optional<std::pair<Argument, Argument>> subscriptOf(const jit::Node* n,
                                                             const Frame& frame) {
        std::vector<const jit::Node*> chain = subscript_.chainEndingAt(n);
        if (chain.empty())
            return std::nullopt;
        std::optional<Argument> index =
            TensorSubscript::index(chain, [&](const jit::Value* v) -> std::optional<c10::IValue> {
                if (v->node()->kind() == c10::prim::Constant)
                    return jit::toIValue(v);
                auto it = frame.find(v);
                if (it == frame.end() || it->second.kind != Binding::Kind::Data)
                    return std::nullopt;
                return it->second.constant;
            });
        if (!index)
            return std::nullopt;
        return std::make_pair(dataOf(frame, chain[0]->inputs()[0]).arg, *index);
    }

    // Whether `n` is an earlier link of a subscript whose last link becomes one getitem.
    bool subscriptContinues(const jit::Node* n, const Frame& frame) {
        if (!subscript_.continues(n))
            return false;
        const jit::Node* last = n;
        while (subscript_.continues(last))
            last = last->output()->uses()[0].user;
        return subscriptOf(last, frame).has_value();
    }

    // The Tensor attribute `n` reads, if the model's code read one: TorchScript compiles
    // `x.dtype` to prim::dtype, `x.shape` to aten::size(x) and `x.ndim` to aten::dim(x); the
    // last two are method calls too (`x.size()`), which only the source tells apart.
    std::string tensorAttributeRead(const jit::Node* n) {
        const c10::Symbol kind = n->kind();
        if (kind == c10::prim::dtype || kind == c10::prim::device)
            return kind.toUnqualString();
        if (n->inputs().size() != 1 || (kind != c10::aten::size && kind != c10::aten::dim))
            return {};
        std::string read = sourceSpelling_.attributeRead(n);
        return read == (kind == c10::aten::size ? "shape" : "ndim") ? read : std::string();
    }

    void traceOperator(const jit::Node* n, Frame& frame) {
        if (foldable(n, frame)) {
            std::vector<c10::IValue> values = evaluate(n, frame);
            for (std::size_t i = 0; i < n->outputs().size(); ++i)
                frame[n->outputs()[i]] = constant(values[i]);
            return;
        }
        const c10::FunctionSchema* schema = n->maybeSchema();
        const std::string ns = n->kind().ns().toUnqualString();
        const std::string opName = n->kind().toUnqualString();

        Node node;
        node.schema = n->kind().toQualString();
        if (schema && !schema->overload_name().empty())
            node.schema += "." + schema->overload_name();
        if (schema) {
            addArguments(node, n, 0, *schema, frame);
        } else {
            for (const jit::Value* input : n->inputs())
                node.args.push_back(dataOf(frame, input).arg);
        }
        // `x + y` has alpha 1; anything else was spelled torch.add(x, y, alpha=...).
        bool operatorForm = node.kwargs.empty();
        FxCall call = fxCallFor(ns, opName, operatorForm, sourceSpelling_.at(n, opName));
        if (auto subscript = subscriptOf(n, frame)) {
            // x[:, 0]: one getitem on the subscripted tensor, as torch.fx records it.
            call = {Op::CallFunction, "operator.getitem", "getitem"};
            node.args = {subscript->first, subscript->second};
            node.kwargs.clear();
        }
        node.hidden = subscriptContinues(n, frame); // the earlier links of such a subscript
        if (std::string attribute = tensorAttributeRead(n); !attribute.empty()) {
            // `x.shape`, `x.dtype`: torch.fx records the attribute read as getattr(x, 'shape').
            call = {Op::CallFunction, "builtins.getattr", "getattr"};
            node.args = {node.args.at(0), Argument::ofString(attribute)};
            node.kwargs.clear();
        }
        node.op = call.op;
        node.target = call.target;
        // warnings.warn is Python's, not a tensor op: torch.fx records no node for it. It runs,
        // hidden, and its message reaches the person through the run (status bar, fxtrace).
        // print() likewise (torch.fx's trace prints a Proxy and records nothing).
        node.hidden = node.hidden || n->kind() == c10::aten::warn || n->kind() == c10::prim::Print;

        Step step;
        // The script's own `raise`/`assert`: run by the interpreter so its message is the one
        // the person sees.
        step.kind = n->kind() == c10::prim::RaiseException ? Step::Kind::Raise
                    : n->kind() == c10::aten::warn         ? Step::Kind::Warn
                                                           : Step::Kind::Operator;
        step.inputs = sourcesOf(frame, n, 0);
        // Graphs built by older front ends may omit trailing arguments the schema has since
        // gained (prim::RaiseException's cls); the operator pops them all, so defaults go in.
        if (schema)
            for (std::size_t i = n->inputs().size(); i < schema->arguments().size(); ++i)
                if (schema->arguments()[i].default_value())
                    step.inputs.push_back(
                        ValueSource::ofConstant(*schema->arguments()[i].default_value()));
        if (schema && schema->is_vararg())
            step.varargCount = static_cast<int>(n->inputs().size());
        try {
            // Raise and Warn are run by the interpreter itself, from their inputs.
            if (step.kind == Step::Kind::Operator)
                step.operation = interpreterOperation(n);
        } catch (const std::exception&) {
            // Kept in the graph; running it reports that LibTorch has no operator for it.
            step.unsupported = node.schema;
        }
        emitFor(n, std::move(node), call.candidate, std::move(step), frame);
    }

    // Fills args and kwargs the way Python code would have written the call: keyword-only
    // arguments as kwargs, and arguments left at their default value dropped.
    void addArguments(Node& node, const jit::Node* n, std::size_t first,
                      const c10::FunctionSchema& schema, const Frame& frame) {
        const auto& formals = schema.arguments();
        std::vector<Argument> positional;
        std::vector<bool> isDefault;
        for (std::size_t i = first; i < n->inputs().size(); ++i) {
            const Binding& b = dataOf(frame, n->inputs()[i]);
            std::size_t f = i - first;
            Argument value = b.arg;
            bool atDefault = false;
            if (f < formals.size()) {
                const c10::Argument& formal = formals[f];
                if (b.constant && b.constant->isInt() && isScalarTypeArgument(formal))
                    value = Argument::ofRepr(scalarTypeRepr(b.constant->toInt()));
                atDefault = b.constant && formal.default_value() &&
                            literalOf(*formal.default_value()) == literalOf(*b.constant);
                if (formal.kwarg_only()) {
                    if (!atDefault)
                        node.kwargs.push_back({formal.name(), value});
                    continue;
                }
            }
            positional.push_back(value);
            isDefault.push_back(atDefault);
        }
        while (!isDefault.empty() && isDefault.back()) {
            isDefault.pop_back();
            positional.pop_back();
        }
        node.args = std::move(positional);
    }

    // Guards run but are hidden, and so is the scalar work whose only users are hidden.
    void hideWorkThatOnlyFeedsGuards() {
        std::unordered_map<std::string, Node*> byName;
        std::function<void(std::vector<Node>&, bool)> index = [&](std::vector<Node>& nodes,
                                                                  bool insideHidden) {
            for (Node& node : nodes) {
                node.hidden = node.hidden || insideHidden;
                byName[node.name] = &node;
                for (Block& b : node.blocks)
                    index(b.nodes, node.hidden);
            }
        };
        index(graph_.nodes, false);
        bool changed = true;
        while (changed) {
            changed = false;
            for (auto& [name, node] : byName) {
                if (node->hidden || node->users.empty() || node->op == Op::Placeholder ||
                    node->op == Op::CallModule || node->op == Op::Output)
                    continue;
                bool allHidden = true;
                for (const std::string& user : node->users) {
                    auto it = byName.find(user);
                    allHidden = allHidden && it != byName.end() && it->second->hidden;
                }
                if (allHidden) {
                    node->hidden = true;
                    changed = true;
                }
            }
        }
        // What builds a torch._assert's message is hidden, though its inputs are not: torch.fx
        // records `x.shape` in `f"... {x.shape}"` and nothing for the f-string.
        for (const std::string& name : assertMessages_)
            if (auto it = byName.find(name); it != byName.end())
                it->second->hidden = true;
    }
};

} // namespace

// A module's forward or a function, traced; what the tracer cannot follow becomes a sentence.
template <class Code> TraceResult traceOrExplain(Code& code, const std::string& source) {
    try {
        return Tracer().trace(code);
    } catch (const std::exception& e) {
        TraceResult result;
        result.error = "Cannot follow the code of '" + source + "': " + firstLineOf(e) +
                       "; please report this model so fxview can learn its construct.";
        return result;
    }
}

TraceResult traceModule(const torch::jit::Module& module, const std::string& source) {
    return traceOrExplain(module, source);
}

TraceResult traceFunction(torch::jit::Function& function, const std::string& source) {
    return traceOrExplain(function, source);
}

namespace {

class TorchScriptImporter : public GraphImporter {
public:
    bool reads(const Model& model) const override { return !model.d().exported; }
    TraceResult importGraph(const Model& model) const override {
        return traceModule(model.d().module, model.source());
    }
};

} // namespace

const GraphImporter& torchScriptImporter() {
    static const TorchScriptImporter importer;
    return importer;
}

} // namespace fxview
