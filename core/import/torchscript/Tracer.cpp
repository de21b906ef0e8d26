// The tracer's walk: a graph's placeholders and output, the dispatch of each TorchScript node to
// what it becomes, and the emission of fx nodes with their names, scopes, source lines and steps;
// once the graph is complete, the hiding of work that only feeds guards. Here too are
// traceModule, traceFunction and the TorchScript importer. What each kind of node becomes is in
// TracerOperators.cpp, TracerCalls.cpp and TracerControlFlow.cpp (see TracerState.h).

#include "Tracer.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <functional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "ModelPrivate.h"
#include "PlanPrivate.h"
#include "SourceSignature.h"
#include "TracerPrivate.h"
#include "TracerState.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

} // namespace

TraceResult Tracer::trace(const jit::Module& root) {
    graph_.modelClass = root.type()->name()->qualifiedName();
    Binding self;
    self.kind = Binding::Kind::Module;
    self.module = root;
    jit::Method forward = root.get_method("forward");
    return traceGraph(*forward.graph(), forward.function().getSchema(), &self);
}

TraceResult Tracer::trace(jit::Function& function) {
    graph_.modelClass = function.qualname().qualifiedName();
    return traceGraph(*jit::toGraphFunction(function).graph(), function.getSchema(), nullptr);
}

TraceResult Tracer::traceGraph(const jit::Graph& graph, const c10::FunctionSchema& schema,
                               const Binding* self) {
    const jit::Graph* g = &graph;
    out_ = &graph_.nodes;
    outSteps_ = &plan_->top;
    Frame frame;
    const std::size_t first = self ? 1 : 0; // a method's graph starts with self
    if (self)
        frame[g->inputs()[0]] = *self;
    const std::vector<std::string> annotations = parameterAnnotations(graph, schema.name());
    for (std::size_t i = first; i < g->inputs().size(); ++i) {
        const jit::Value* input = g->inputs()[i];
        std::string target = baseName(input->debugName());
        if (target.empty())
            target = "input_" + std::to_string(i - first);
        Node node;
        node.op = Op::Placeholder;
        node.target = target;
        if (i - first < annotations.size())
            node.typeName = annotations[i - first];
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
    Binding result = lookup(frame, g->outputs()[0]);
    // A held tensor returned from an inlined call: its get_attr is made for the output.
    result = result.held ? materialize(result) : dataOf(frame, g->outputs()[0]);
    output.args.push_back(result.arg);
    Step step;
    step.kind = Step::Kind::Output;
    step.inputs.push_back(result.source);
    emit(std::move(output), "output", std::move(step));

    graph_.recomputeUsers();
    hideWorkThatOnlyFeedsGuards();
    // Step Into opens a call_module's module or a call_function's own graph with this tracer.
    plan_->traceCallee = [](const Step& s) {
        return s.kind == Step::Kind::CallModule ? traceModule(s.module, s.name)
                                                : traceFunction(*s.function, s.name);
    };
    TraceResult traced;
    traced.graph = std::move(graph_);
    traced.plan = std::move(plan_);
    return traced;
}

void Tracer::traceNodes(const jit::Block* block, Frame& frame) {
    for (const jit::Node* n : block->nodes())
        traceNode(n, frame);
}

void Tracer::traceNode(const jit::Node* n, Frame& frame) {
    Tracing tracing(*this, n);
    if (runHeld(n, frame))
        return;
    readPendingAttributes(n, frame);
    const c10::Symbol kind = n->kind();
    if (kind == c10::prim::Constant)
        return traceConstant(n, frame);
    if (kind == c10::prim::GetAttr)
        return traceGetAttr(n, frame);
    // Calls pass held tensors on (an inlined body runs on them too); a kept call makes their
    // get_attrs (HeldUses in TracerCalls.cpp).
    if (kind == c10::prim::CallMethod)
        return traceCallMethod(n, frame);
    if (kind == c10::prim::CallFunction)
        return traceCallFunction(n, frame);
    if (kind == c10::prim::unchecked_cast) {
        frame[n->output()] = lookup(frame, n->input());
        return;
    }
    // A value set as a module attribute, or carried into a loop the trace unrolls, stays held:
    // Python holds the real tensor there too.
    if (kind == c10::prim::SetAttr)
        return traceSetAttr(n, frame);
    if (kind == c10::prim::Loop)
        return traceLoop(n, frame);
    HeldUses heldUses(*this, n, frame);
    if (traceObjectNode(n, frame))
        return;
    if (kind == c10::prim::ListConstruct && mutatedElsewhere(n))
        return traceOperator(n, frame); // a real list object, shared by every use
    if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct)
        return traceConstruct(n, frame);
    if (kind == c10::aten::append && appendsToLiteral(n, frame))
        return traceAppend(n, frame);
    if (traceDict(n, frame) || traceSetItem(n, frame))
        return;
    if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack)
        return traceUnpack(n, frame);
    if (kind == c10::prim::Uninitialized) {
        frame[n->output()] = constant(c10::IValue());
        return;
    }
    if (kind == c10::prim::If)
        return traceIf(n, frame);
    traceOperator(n, frame);
}

bool Tracer::traceObjectNode(const jit::Node* n, Frame& frame) {
    const c10::Symbol kind = n->kind();
    auto isObject = [&](const jit::Value* v) {
        auto it = frame.find(v);
        return it != frame.end() && it->second.kind != Binding::Kind::Data;
    };
    if (kind == c10::prim::TupleConstruct || kind == c10::prim::ListConstruct) {
        if (std::none_of(n->inputs().begin(), n->inputs().end(), isObject))
            return false;
        Binding group;
        group.kind = Binding::Kind::Group;
        for (const jit::Value* input : n->inputs())
            group.items.push_back(lookup(frame, input));
        frame[n->output()] = std::move(group);
        return true;
    }
    const bool unpack = kind == c10::prim::TupleUnpack || kind == c10::prim::ListUnpack;
    const bool index = kind == c10::prim::TupleIndex || kind == c10::aten::__getitem__;
    if ((!unpack && !index) || n->inputs().empty() || !isObject(n->inputs()[0]))
        return false;
    const Binding& group = lookup(frame, n->inputs()[0]);
    if (group.kind != Binding::Kind::Group)
        throw TraceError("a module or function is unpacked or indexed without being in a tuple");
    if (unpack) {
        if (group.items.size() != n->outputs().size())
            throw TraceError("a tuple of modules is unpacked into another number of names");
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = group.items[i];
        return true;
    }
    const Binding& at = dataOf(frame, n->inputs()[1]);
    if (!at.constant || !at.constant->isInt())
        throw TraceError("a tuple of modules is indexed by a value known only at run time, "
                         "which torch.fx cannot record");
    std::int64_t i = at.constant->toInt();
    const auto size = static_cast<std::int64_t>(group.items.size());
    if (i < 0)
        i += size;
    if (i < 0 || i >= size)
        throw TraceError("a tuple of modules is indexed past its end");
    frame[n->output()] = group.items[static_cast<std::size_t>(i)];
    return true;
}

std::string Tracer::baseName(const std::string& debugName) {
    std::string name = debugName.substr(0, debugName.find('.'));
    bool numeric = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
    return name.empty() || numeric ? std::string() : name;
}

// A constant as torch.fx would print it in args.
Argument Tracer::literalOf(const c10::IValue& v) {
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

Tracer::Binding Tracer::data(Argument arg, ValueSource source,
                             std::optional<c10::IValue> constant) {
    Binding b;
    b.arg = std::move(arg);
    b.source = std::move(source);
    b.constant = std::move(constant);
    return b;
}

Tracer::Binding Tracer::constant(const c10::IValue& v) {
    return data(literalOf(v), ValueSource::ofConstant(v), v);
}

const Tracer::Binding& Tracer::lookup(const Frame& frame, const jit::Value* v) const {
    auto it = frame.find(v);
    if (it == frame.end())
        throw TraceError("value %" + v->debugName() + " is used before it is defined");
    return it->second;
}

const Tracer::Binding& Tracer::dataOf(const Frame& frame, const jit::Value* v) const {
    const Binding& b = lookup(frame, v);
    if (b.kind != Binding::Kind::Data)
        throw TraceError("a module or function (%" + v->debugName() +
                         ") is used as a value, which torch.fx cannot show");
    if (b.held) {
        heldEscaped_ = true; // a place that needs a node, which HeldUses did not cover
        throw TraceError("the tensor %" + v->debugName() + " is used where it has no node");
    }
    return b;
}

std::vector<ValueSource> Tracer::sourcesOf(const Frame& frame, const jit::Node* n,
                                           std::size_t first) const {
    std::vector<ValueSource> sources;
    for (std::size_t i = first; i < n->inputs().size(); ++i)
        sources.push_back(dataOf(frame, n->inputs()[i]).source);
    return sources;
}

// Adds the node and the step that computes it; returns the step id.
int Tracer::emit(Node node, const std::string& candidate, Step step) {
    // torch.fx snake_cases every candidate (Graph._target_to_str), module paths included.
    node.name = namer_.create(NodeNamer::snakeCase(candidate));
    if (node.scope.empty())
        node.scope = scope_;
    if (node.scopeType.empty() && node.scope == scope_ && !scope_.empty())
        node.scopeType = scopeType_;
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
Tracer::Binding Tracer::valueOf(int id) const {
    const Step& step = plan_->steps[static_cast<std::size_t>(id)];
    return data(Argument::ofNode(step.name), ValueSource::ofSlot(step.slot));
}

Tracer::Binding Tracer::emitValue(Node node, const std::string& candidate, Step step) {
    return valueOf(emit(std::move(node), candidate, std::move(step)));
}

// Emits a node for `n` and binds its outputs: one value is the node itself; several come
// out of a tuple through getitem nodes, as torch.fx does for `a, b = f(x)`.
void Tracer::emitFor(const jit::Node* n, Node node, const std::string& candidate, Step step,
                     Frame& frame) {
    emitValues({n->outputs().begin(), n->outputs().end()}, std::move(node), candidate,
               std::move(step), frame);
}

void Tracer::emitValues(const std::vector<const jit::Value*>& outputs, Node node,
                        const std::string& candidate, Step step, Frame& frame) {
    step.outputs = static_cast<int>(outputs.size());
    Binding value = emitValue(std::move(node), candidate, std::move(step));
    if (outputs.size() == 1) {
        frame[outputs[0]] = value;
        return;
    }
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i]->uses().empty())
            frame[outputs[i]] = getItem(value, i);
}

// Item `index` of a tuple or list; `unpacked`, when it is one of `a, b = items`: how many
// items there must be (TorchScript's ListUnpack raises otherwise).
Tracer::Binding Tracer::getItem(const Binding& source, std::size_t index, int unpacked) {
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

// Guards run but are hidden, and so is the scalar work whose only users are hidden.
void Tracer::hideWorkThatOnlyFeedsGuards() {
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

// A module's forward or a function, traced; what the tracer cannot follow becomes a sentence.
template <class Code> TraceResult traceOrExplain(Code& code, const std::string& source) {
    try {
        // Literals are folded optimistically; those a trace finds changed at run time are made
        // nodes of their own in the next (two traces, or three when sharing one list moves
        // where another is changed).
        // Held tensors are run while tracing optimistically too; where that was wrong, the
        // trace is made again without (TracerHeld.cpp).
        Tracer::Constructs shared;
        bool runHeld = true;
        for (;;) {
            Tracer tracer(shared, runHeld);
            try {
                TraceResult result = tracer.trace(code);
                if (tracer.changedAtRunTime().empty() && !tracer.heldTensorsFailed())
                    return result;
            } catch (const std::exception&) {
                if (tracer.changedAtRunTime().empty() && !tracer.heldTensorsFailed())
                    throw; // not a consequence of folding a literal it should not have
            }
            if (tracer.heldTensorsFailed()) {
                runHeld = false;
                continue;
            }
            const std::size_t before = shared.size();
            shared.insert(tracer.changedAtRunTime().begin(), tracer.changedAtRunTime().end());
            if (shared.size() == before)
                throw std::logic_error("a list or dict literal is changed at run time");
        }
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
