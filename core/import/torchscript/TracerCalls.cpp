// What the tracer makes of attribute reads and calls: a submodule, parameter or plain attribute
// read through prim::GetAttr; a leaf module's forward kept as call_module, a torch.nn.functional
// or torch.fx.wrap'ped function kept as one call_function, and every other method or function
// inlined in place, its nodes in the callee's scope. Apart because which calls torch.fx traces
// through, and where it reads parameters, is its own set of rules (see docs/fidelity.md).

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <memory>
#include <optional>

#include "FxTargets.h"
#include "TorchValues.h"
#include "TracerState.h"

namespace fxview {

namespace {

// torch.fx.wrap patches the name in the globals of the module that defines the function, so only
// calls looked up there are kept whole (RoIAlign.forward's roi_align); a call from anywhere else
// (`torchvision.ops.roi_align(...)` in a person's model) is traced through. Where the archive
// keeps no source, the call is taken to be its module's own.
bool calledFromItsModule(const torch::jit::Node* call, const std::string& qualified) {
    std::optional<torch::jit::SourceRange> site =
        call->sourceRange().findSourceRangeThatGenerated();
    if (!site)
        site = call->sourceRange();
    if (!site->source() || !site->source()->filename())
        return true;
    std::string module = pythonClassName(qualified);
    module = module.substr(0, module.rfind('.'));
    std::string file = module;
    std::replace(file.begin(), file.end(), '.', '/');
    file = "/" + file + ".py";
    const std::string& filename = *site->source()->filename();
    return filename.size() >= file.size() &&
           filename.compare(filename.size() - file.size(), file.size(), file) == 0;
}

} // namespace

namespace {

namespace jit = torch::jit;

std::string joinPath(const std::string& parent, const std::string& child) {
    return parent.empty() ? child : parent + "." + child;
}

// torch.fx proxies parameters (a get_attr where read); buffers and plain tensor attributes it
// reads as the tensors they are.
bool isParameter(const jit::Module& owner, const std::string& field) {
    std::optional<std::size_t> slot = owner.type()->findAttributeSlot(field);
    return slot && owner.type()->is_parameter(*slot);
}

// A traced call of a module whose forward returned its input unchanged (nn.Identity,
// StochasticDepth in eval mode) keeps the call but neither its argument nor its result:
// `%14 : NoneType = prim::CallMethod[name="forward"](%stochastic_depth)`, the next op using
// the value from before the call. torch.fx records the call on that value. The argument is
// taken to be the latest tensor made before the call that is used after it (the call's
// own argument in `x = self.sd(x); x + y`), and the uses after the call see the call's node.
const jit::Value* elidedIdentityArgument(const jit::Node* n, const jit::Graph& callee) {
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

} // namespace

void Tracer::traceGetAttr(const jit::Node* n, Frame& frame) {
    const Binding& owner = lookup(frame, n->input());
    const std::string field = n->s(c10::attr::name);
    if (owner.kind == Binding::Kind::Choice) {
        // `m.fc` of the module an if picked: the fc each branch's module has, if modules.
        const Binding picked = owner; // `owner` is the frame's entry, rebound below
        Binding choice = picked;
        for (Binding& item : choice.items) {
            frame[n->input()] = item;
            traceGetAttr(n, frame);
            item = lookup(frame, n->output());
            if (item.kind == Binding::Kind::Data)
                throw TraceError("'" + field + "' of a module an if picks at run time is a " +
                                 "value, not a module, which torch.fx cannot record");
        }
        frame[n->input()] = picked;
        frame[n->output()] = std::move(choice);
        return;
    }
    if (owner.kind != Binding::Kind::Module) {
        traceOperator(n, frame); // an attribute of a TorchScript class object
        return;
    }
    // Set earlier in this forward (see traceSetAttr): Python reads back what was set.
    if (auto set = setAttributes_.find(joinPath(owner.path, field)); set != setAttributes_.end()) {
        frame[n->output()] = set->second;
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
    } else if (value.isTensor() && runHeldTensors_ && !isParameter(owner.module, field)) {
        // A buffer: torch.fx reads the tensor, and names it by its path wherever it shows up
        // again (`self.buf.float()` of a float32 buffer is the buffer itself).
        bufferPaths_.emplace(value.toTensor().unsafeGetTensorImpl(), path);
        frame[n->output()] = heldValue(value, path);
    } else if (value.isTensor()) {
        // torch.fx records a get_attr where Python reads the attribute, right at its use; a
        // traced graph reads them all up front. Read where first used when every use is a
        // node of this block (one inside a branch must not be the only place it is read,
        // and the block's return is no node the tracer visits: `return self.w`).
        bool sameBlock = true;
        for (const jit::Use& use : n->output()->uses())
            sameBlock = sameBlock && use.user->owningBlock() == n->owningBlock() &&
                        use.user != n->owningBlock()->return_node();
        // A scripted graph reads it where the code did, its user's text naming it
        // (`self.w.expand(x.size(0), -1)`: Python reads w before it sizes x, and torch.fx's
        // get_attr goes there); a traced one reads them all up front, its users' text being
        // the stacks the tracer recorded.
        bool readHere = false;
        for (const jit::Use& use : n->output()->uses()) {
            const std::string text = sourceSpelling_.originalText(use.user);
            for (std::size_t at = text.find("." + field); at != std::string::npos && !readHere;
                 at = text.find("." + field, at + 1)) {
                const std::size_t end = at + 1 + field.size();
                readHere =
                    end == text.size() ||
                    !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
            }
        }
        if (sameBlock && !readHere && !getAttrNodes_.count(path)) {
            pendingAttributes_.push_back({n->output(), path, value});
            return;
        }
        frame[n->output()] = attributeNode(path, value);
    } else {
        // training flags, sizes, use_res_connect...: plain Python values in torch.fx
        frame[n->output()] = constant(value);
    }
}

// A module that sets its own attribute in forward (torchvision's AnchorGenerator:
// `self.cell_anchors = [a.to(dtype, device) for a in self.cell_anchors]`): as when torch.fx runs
// the Python, the assignment records no node and later reads of the attribute see the value
// set. Set inside a branch or loop body, the value read later would depend on the run: refused.
void Tracer::traceSetAttr(const jit::Node* n, Frame& frame) {
    const Binding& owner = lookup(frame, n->inputs()[0]);
    if (owner.kind != Binding::Kind::Module) {
        traceOperator(n, frame); // an attribute of a TorchScript class object
        return;
    }
    const std::string path = joinPath(owner.path, n->s(c10::attr::name));
    if (runtimeBlocks_ > 0)
        throw TraceError("the module attribute '" + path +
                         "' is set inside a branch or loop, which fxview cannot follow yet");
    const Binding& value = lookup(frame, n->inputs()[1]);
    setAttributes_[path] = value.held ? value : dataOf(frame, n->inputs()[1]);
}

// Attributes not read yet (see traceGetAttr) are read when `n` uses them, in its argument
// order (a traced graph lists a layer_norm's bias before its weight; Python reads weight
// first), and all of them before a call into a module or function: `self.scale *
// self.block(x)` reads scale before block runs.
void Tracer::readPendingAttributes(const jit::Node* n, Frame& frame) {
    const bool call = n->kind() == c10::prim::CallMethod || n->kind() == c10::prim::CallFunction;
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
    auto readIfPending = [&](const jit::Value* v) {
        for (std::size_t i = 0; i < pendingAttributes_.size(); ++i)
            if (pendingAttributes_[i].value == v) {
                read(i);
                break;
            }
    };
    // A list or tuple literal is built after what its user takes before it: Python reads
    // `self.table` in `self.table[index]` before it builds the index.
    if ((n->kind() == c10::prim::ListConstruct || n->kind() == c10::prim::TupleConstruct) &&
        n->output()->uses().size() == 1) {
        const jit::Use& use = n->output()->uses()[0];
        for (std::size_t k = 0; k < use.offset && k < use.user->inputs().size(); ++k)
            readIfPending(use.user->inputs()[k]);
    }
    for (const jit::Value* input : n->inputs())
        readIfPending(input);
}

// One get_attr node per parameter, reused by every access as torch.fx's parameter proxy cache
// does (a buffer only comes here when it cannot be held: see TracerHeld.cpp).
Tracer::Binding Tracer::attributeNode(const std::string& path, const c10::IValue& value) {
    auto it = getAttrNodes_.find(path);
    if (it == getAttrNodes_.end()) {
        Node node;
        node.op = Op::GetAttr;
        node.target = path;
        node.tensors.push_back(heldTensor(path, value.toTensor()));
        Step step;
        step.kind = Step::Kind::Attribute;
        step.attribute = value;
        it = getAttrNodes_.emplace(path, emitValue(std::move(node), path, std::move(step))).first;
    }
    return it->second;
}

void Tracer::traceCallMethod(const jit::Node* n, Frame& frame) {
    const Binding& self = lookup(frame, n->inputs()[0]);
    const std::string method = n->s(c10::attr::name);
    if (self.kind == Binding::Kind::Choice)
        return traceChosenCall(n, Binding(self), frame);
    if (self.kind != Binding::Kind::Module) {
        // A method of a TorchScript class object (ImageList.to): inlined, as Python runs it.
        auto cls = n->inputs()[0]->type()->cast<c10::ClassType>();
        jit::Function* fn = cls ? cls->findMethod(method) : nullptr;
        if (fn && fn->isGraphFunction())
            return inlineCall(*jit::toGraphFunction(*fn).graph(), n, 0, frame);
        HeldUses heldUses(*this, n, frame);
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
        HeldUses heldUses(*this, n, frame, 1);
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
    std::string savedScope = scope_, savedType = scopeType_;
    scope_ = self.path;
    scopeType_ = publicClassName(pythonClass);
    inlineCall(*callee, n, 0, frame);
    scope_ = savedScope;
    scopeType_ = savedType;
}

// Emits the identity call torch.fx would record, if it records one: a leaf module is a
// call_module; StochasticDepth calls torch.fx.wrap'ped stochastic_depth (its p and mode are
// not in a traced archive: only the input is shown). Any other module's forward returned
// its input in Python too, which torch.fx traces through, recording nothing.
bool Tracer::traceIdentityCall(const jit::Node* n, const Binding& self,
                               const std::string& pythonClass, const jit::Value* passed,
                               Frame& frame) {
    bool leaf = isLeafModuleClass(pythonClass);
    bool stochasticDepth = pythonClass == "torchvision.ops.stochastic_depth.StochasticDepth";
    if (!leaf && !stochasticDepth)
        return false;
    if (lookup(frame, passed).held)
        frame[passed] = materialize(lookup(frame, passed));
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

void Tracer::traceCallFunction(const jit::Node* n, Frame& frame) {
    const Binding& fn = lookup(frame, n->inputs()[0]);
    if (fn.kind != Binding::Kind::Function) {
        HeldUses heldUses(*this, n, frame);
        traceOperator(n, frame);
        return;
    }
    const std::string qualified = fn.function->qualname().qualifiedName();
    std::string functional = functionalName(qualified);
    std::string wrapped = calledFromItsModule(n, qualified) ? fxWrappedFunction(qualified) : "";
    if (!functional.empty() || !wrapped.empty()) {
        // torch.fx records torch.nn.functional calls whole, through __torch_function__, and
        // the functions their libraries wrap with torch.fx.wrap; Step Into shows the body.
        HeldUses heldUses(*this, n, frame, 1);
        Node node;
        node.op = Op::CallFunction;
        node.target = functional.empty() ? wrapped : "torch.nn.functional." + functional;
        node.schema = qualified;
        const std::string python = pythonClassName(qualified);
        if (functional.empty() || !addFunctionalArguments(node, n, fn.function->getSchema(), frame,
                                                          python.substr(python.rfind('.') + 1)))
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
void Tracer::inlineCall(const jit::Graph& callee, const jit::Node* n, std::size_t first,
                        Frame& frame) {
    Frame inner;
    for (std::size_t i = first; i < n->inputs().size(); ++i)
        inner[callee.inputs()[i - first]] = lookup(frame, n->inputs()[i]);
    callSites_.push_back(n);
    traceNodes(callee.block(), inner);
    callSites_.pop_back();
    for (std::size_t i = 0; i < n->outputs().size(); ++i)
        frame[n->outputs()[i]] = lookup(inner, callee.outputs()[i]);
}

} // namespace fxview
