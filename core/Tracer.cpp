// The tracer walks the TorchScript graph of `forward`, inlining every call that torch.fx would
// trace through, and emits one fx node for each call torch.fx would record.

#include "Tracer.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <unordered_map>

#include "FxTargets.h"
#include "ModelPrivate.h"
#include "NodeNamer.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// What a TorchScript value stands for while tracing.
struct Binding {
    enum class Kind { Data, Module, Function };
    Kind kind = Kind::Data;
    Argument arg;                        // Data: a literal or a reference to a node
    std::optional<c10::IValue> constant; // Data: the literal itself, when it is one
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

// A raise-only guard: `if cond: raise ...` with nothing flowing out of either branch.
bool isRaiseOnlyGuard(const jit::Node* n) {
    if (n->kind() != c10::prim::If || n->outputs().size() != 0)
        return false;
    for (const jit::Block* b : n->blocks())
        for (const jit::Node* inner : b->nodes())
            if (inner->kind() == c10::prim::RaiseException)
                return true;
    return false;
}

class Tracer {
public:
    Graph trace(const jit::Module& root) {
        graph_.modelClass = root.type()->name()->qualifiedName();
        out_ = &graph_.nodes;
        std::shared_ptr<jit::Graph> g = root.get_method("forward").graph();

        Frame frame;
        Binding self;
        self.kind = Binding::Kind::Module;
        self.module = root;
        frame[g->inputs()[0]] = self;
        for (std::size_t i = 1; i < g->inputs().size(); ++i) {
            const jit::Value* input = g->inputs()[i];
            std::string target = baseName(input->debugName());
            if (target.empty())
                target = "input_" + std::to_string(i - 1);
            Node node;
            node.op = Op::Placeholder;
            node.target = target;
            frame[input] = data(Argument::ofNode(emit(std::move(node), target)));
        }
        traceNodes(g->block(), frame);

        Node output;
        output.op = Op::Output;
        output.target = "output";
        output.args.push_back(dataOf(frame, g->outputs()[0]).arg);
        emit(std::move(output), "output");

        graph_.recomputeUsers();
        hideWorkThatOnlyFeedsGuards();
        return std::move(graph_);
    }

private:
    Graph graph_;
    NodeNamer namer_;
    std::vector<Node>* out_ = nullptr;
    std::string scope_;
    std::unordered_map<std::string, std::string> getAttrNodes_; // attribute path -> node name
    int tensorConstants_ = 0;

    static Binding data(Argument arg, std::optional<c10::IValue> constant = std::nullopt) {
        Binding b;
        b.arg = std::move(arg);
        b.constant = std::move(constant);
        return b;
    }

    static Binding constant(const c10::IValue& v) { return data(literalOf(v), v); }

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

    std::string emit(Node node, const std::string& candidate) {
        // torch.fx snake_cases every candidate (Graph._target_to_str), module paths included.
        node.name = namer_.create(NodeNamer::snakeCase(candidate));
        if (node.scope.empty())
            node.scope = scope_;
        // Attributes are fetched at the top level so that every block can refer to them.
        std::vector<Node>* into = node.op == Op::GetAttr ? &graph_.nodes : out_;
        into->push_back(std::move(node));
        return into->back().name;
    }

    void traceNodes(const jit::Block* block, Frame& frame) {
        for (const jit::Node* n : block->nodes())
            traceNode(n, frame);
    }

    // Binds the outputs of an emitted node: one value is the node itself; several come out of
    // a tuple through getitem nodes, as torch.fx does for `a, b = f(x)`.
    void bindOutputs(const jit::Node* n, const std::string& name, Frame& frame) {
        if (n->outputs().size() == 1) {
            frame[n->outputs()[0]] = data(Argument::ofNode(name));
            return;
        }
        for (std::size_t i = 0; i < n->outputs().size(); ++i) {
            if (n->outputs()[i]->uses().empty())
                continue;
            frame[n->outputs()[i]] = data(Argument::ofNode(getItem(Argument::ofNode(name), i)));
        }
    }

    std::string getItem(Argument source, std::size_t index) {
        Node node;
        node.op = Op::CallFunction;
        node.target = "operator.getitem";
        node.args = {std::move(source), Argument::ofInt(static_cast<std::int64_t>(index))};
        return emit(std::move(node), "getitem");
    }

    void traceNode(const jit::Node* n, Frame& frame) {
        const c10::Symbol kind = n->kind();
        if (kind == c10::prim::Constant)
            return traceConstant(n, frame);
        if (kind == c10::prim::GetAttr)
            return traceGetAttr(n, frame);
        if (kind == c10::prim::CallMethod)
            return traceCallMethod(n, frame);
        if (kind == c10::prim::CallFunction)
            return traceCallFunction(n, frame);
        if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct)
            return traceConstruct(n, frame);
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
        if (value && value->isTensor()) {
            // torch.fx keeps tensor constants as attributes named _tensor_constantN.
            Node node;
            node.op = Op::GetAttr;
            node.target = "_tensor_constant" + std::to_string(tensorConstants_++);
            frame[out] = data(Argument::ofNode(emit(std::move(node), node.target)));
            return;
        }
        frame[out] = value ? constant(*value) : data(Argument::ofRepr(n->kind().toQualString()));
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
            // One get_attr node per parameter or buffer, reused by every access like torch.fx.
            auto it = getAttrNodes_.find(path);
            if (it == getAttrNodes_.end()) {
                Node node;
                node.op = Op::GetAttr;
                node.target = path;
                it = getAttrNodes_.emplace(path, emit(std::move(node), path)).first;
            }
            frame[n->output()] = data(Argument::ofNode(it->second));
        } else {
            // training flags, sizes, use_res_connect...: plain Python values in torch.fx
            frame[n->output()] = constant(value);
        }
    }

    void traceCallMethod(const jit::Node* n, Frame& frame) {
        const Binding& self = lookup(frame, n->inputs()[0]);
        const std::string method = n->s(c10::attr::name);
        if (self.kind != Binding::Kind::Module) {
            traceOperator(n, frame);
            return;
        }
        std::string pythonClass = pythonClassName(self.module.type()->name()->qualifiedName());
        // Tracing names the second call of a module forward1, forward2...: still a module call.
        if (isLeafModuleClass(pythonClass) && method.rfind("forward", 0) == 0) {
            Node node;
            node.op = Op::CallModule;
            node.target = self.path;
            node.moduleType = publicClassName(pythonClass);
            for (std::size_t i = 1; i < n->inputs().size(); ++i)
                node.args.push_back(dataOf(frame, n->inputs()[i]).arg);
            bindOutputs(n, emit(std::move(node), self.path), frame);
            return;
        }
        std::shared_ptr<jit::Graph> callee = self.module.get_method(method).graph();
        std::string savedScope = scope_;
        scope_ = self.path;
        inlineCall(*callee, n, 0, frame);
        scope_ = savedScope;
    }

    void traceCallFunction(const jit::Node* n, Frame& frame) {
        const Binding& fn = lookup(frame, n->inputs()[0]);
        if (fn.kind != Binding::Kind::Function) {
            traceOperator(n, frame);
            return;
        }
        std::string functional = functionalName(fn.function->qualname().qualifiedName());
        if (!functional.empty()) {
            // torch.fx records torch.nn.functional calls whole, through __torch_function__.
            Node node;
            node.op = Op::CallFunction;
            node.target = "torch.nn.functional." + functional;
            node.schema = fn.function->qualname().qualifiedName();
            addArguments(node, n, 1, fn.function->getSchema(), frame);
            bindOutputs(n, emit(std::move(node), functional), frame);
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
        traceNodes(callee.block(), inner);
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = lookup(inner, callee.outputs()[i]);
    }

    void traceConstruct(const jit::Node* n, Frame& frame) {
        std::vector<Argument> items;
        bool allConstant = true;
        for (const jit::Value* input : n->inputs()) {
            const Binding& b = dataOf(frame, input);
            items.push_back(b.arg);
            allConstant = allConstant && b.constant.has_value();
        }
        bool isList = n->kind() == c10::prim::ListConstruct;
        Binding b =
            data(isList ? Argument::ofList(std::move(items)) : Argument::ofTuple(std::move(items)));
        if (allConstant)
            b.constant = constructConstant(n, frame);
        frame[n->output()] = b;
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

    void traceUnpack(const jit::Node* n, Frame& frame) {
        const Binding& source = dataOf(frame, n->input());
        bool literal =
            source.arg.kind == Argument::Kind::List || source.arg.kind == Argument::Kind::Tuple;
        if (literal && source.arg.items.size() == n->outputs().size()) {
            std::vector<c10::IValue> values;
            if (source.constant)
                values = source.constant->isList() ? source.constant->toListRef().vec()
                                                   : source.constant->toTupleRef().elements().vec();
            for (std::size_t i = 0; i < n->outputs().size(); ++i)
                frame[n->outputs()[i]] = values.empty() ? data(source.arg.items[i])
                                                        : data(source.arg.items[i], values[i]);
            return;
        }
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = data(Argument::ofNode(getItem(source.arg, i)));
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
        Node node;
        node.op = Op::CallFunction;
        node.target = "prim::If";
        node.schema = "prim::If";
        node.args = {condition.arg};
        node.hidden = isRaiseOnlyGuard(n);
        const char* labels[] = {"true", "false"};
        for (std::size_t b = 0; b < n->blocks().size(); ++b)
            node.blocks.push_back(traceBlock(n->blocks()[b], labels[b], {}, frame));
        bindOutputs(n, emit(std::move(node), "cond"), frame);
    }

    void traceLoop(const jit::Node* n, Frame& frame) {
        Node node;
        node.op = Op::CallFunction;
        node.target = "prim::Loop";
        node.schema = "prim::Loop";
        for (const jit::Value* input : n->inputs())
            node.args.push_back(dataOf(frame, input).arg);
        const jit::Block* body = n->blocks()[0];
        std::vector<std::string> params;
        for (std::size_t i = 0; i < body->inputs().size(); ++i) {
            std::string name = baseName(body->inputs()[i]->debugName());
            params.push_back(namer_.create(name.empty() ? (i == 0 ? "i" : "carried") : name));
            frame[body->inputs()[i]] = data(Argument::ofNode(params.back()));
        }
        node.blocks.push_back(traceBlock(body, "body", params, frame));
        bindOutputs(n, emit(std::move(node), "loop"), frame);
    }

    // Traces a control-flow block into its own node list; values from outside stay visible.
    Block traceBlock(const jit::Block* block, const std::string& label,
                     std::vector<std::string> params, Frame& frame) {
        Block result;
        result.label = label;
        result.params = std::move(params);
        std::vector<Node>* saved = out_;
        out_ = &result.nodes;
        traceNodes(block, frame);
        for (const jit::Value* v : block->outputs())
            result.results.push_back(dataOf(frame, v).arg);
        out_ = saved;
        return result;
    }

    // Runs a side-effect-free operator on constant inputs, the way TorchScript's constant
    // propagation would, so that `_list_with_default([1, 1], ...)` or `len([..])` fold away.
    std::vector<c10::IValue> evaluate(const jit::Node* n, const Frame& frame) {
        jit::Stack stack;
        for (const jit::Value* input : n->inputs())
            stack.push_back(*dataOf(frame, input).constant);
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
        FxCall call = fxCallFor(ns, opName, operatorForm);
        node.op = call.op;
        node.target = call.target;
        bindOutputs(n, emit(std::move(node), call.candidate), frame);
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
    }
};

} // namespace

TraceResult traceModel(const Model& model) {
    TraceResult result;
    try {
        result.graph = Tracer().trace(model.d().module);
    } catch (const c10::Error& e) {
        result.error = "Cannot trace '" + model.source() +
                       "': " + std::string(e.what_without_backtrace()).substr(0, 300) + ".";
    } catch (const std::exception& e) {
        result.error = "Cannot trace '" + model.source() + "': " + e.what() + ".";
    }
    return result;
}

} // namespace fxview
