// Held tensors: torch.fx's symbolic_trace proxies a module's inputs and parameters, but a buffer
// (or a plain tensor attribute) is read as the real tensor, and Python runs whatever uses only
// such tensors and literals while tracing: `dequantize(self.w_int4, self.scales, ...)` or
// `torch.tensor([1.0, -0.5])` in forward record no node. Where a node uses such a tensor,
// create_arg makes a get_attr for it, one per use: the buffer's own name, or a
// `_tensor_constantN` attribute holding the tensor Python computed. The tracer does the same: a
// held tensor is a binding with the value and no node; an operator whose inputs are all held or
// literals runs here (deterministic, side-effect-free, writing nothing); a node that uses one
// gets a get_attr made for that use, in the block where the use is (HeldUses; a block's and the
// graph's results too).
//
// Running while tracing is right only while those values are what they will be at run time.
// Where a held tensor is written in place (a cache updated in forward), or reaches code the
// tracer has no place for it in, the trace is made again without held tensors (traceOrExplain).

#include <torch/csrc/jit/ir/ir.h>

#include "TorchValues.h"
#include "TracerState.h"

namespace fxview {

namespace jit = torch::jit;

Tracer::Binding Tracer::heldValue(const c10::IValue& value, std::string path) const {
    Binding b = data(Argument(), ValueSource::ofConstant(value), value);
    b.held = true;
    b.path = std::move(path);
    return b;
}

// Runs `n` while tracing when torch.fx's Python would: every input is held or a literal, at
// least one is held or an output is a tensor (`torch.zeros(3)`), and running it changes nothing
// and gives the same every time. False when it does not; `n` is then traced as a node.
bool Tracer::runHeld(const jit::Node* n, Frame& frame) {
    if (!runHeldTensors_)
        return false;
    const c10::Symbol kind = n->kind();
    if (kind == c10::prim::Constant || kind == c10::prim::GetAttr || kind == c10::prim::SetAttr ||
        kind == c10::prim::CallMethod || kind == c10::prim::CallFunction || kind == c10::prim::If ||
        kind == c10::prim::Loop || kind == c10::prim::ListConstruct ||
        kind == c10::prim::TupleConstruct || kind == c10::prim::ListUnpack ||
        kind == c10::prim::TupleUnpack || kind == c10::prim::DictConstruct ||
        kind == c10::prim::unchecked_cast || kind == c10::prim::Uninitialized)
        return false;
    // TorchScript's conversion of a tensor passed where a number is taken
    // (`quantized::add(qa, qb, self.scale_0, ...)`): Python passes the tensor itself, and
    // torch.fx records its get_attr (traceOperator hides the conversion).
    if (kind == c10::aten::FloatImplicit || kind == c10::aten::IntImplicit ||
        kind == c10::aten::ScalarImplicit)
        return false;
    const c10::FunctionSchema* schema = n->maybeSchema();
    if (!schema || schema->is_mutable() || n->hasSideEffects() || n->isNondeterministic())
        return false;
    bool anyHeld = false, anyTensorOut = false;
    for (const jit::Value* input : n->inputs()) {
        auto it = frame.find(input);
        if (it == frame.end() || it->second.kind != Binding::Kind::Data || !it->second.constant)
            return false;
        if (it->second.held)
            anyHeld = true;
        else if (it->second.constant->isTensor())
            return false;
    }
    for (const jit::Value* output : n->outputs()) {
        const bool tensor = output->type()->kind() == c10::TypeKind::TensorType;
        if (!tensor && !isPlainDataType(output->type()))
            return false;
        anyTensorOut = anyTensorOut || tensor;
    }
    if (!anyHeld && !anyTensorOut)
        return false; // plain literals: folded by traceOperator, after its own special cases
    std::vector<c10::IValue> values;
    try {
        values = evaluate(n, frame);
    } catch (const std::exception&) {
        return false; // a branch that may not run at all (both are traced): a node, as before
    }
    for (std::size_t i = 0; i < n->outputs().size(); ++i) {
        const jit::Value* output = n->outputs()[i];
        if (!values[i].isTensor())
            frame[output] = constant(values[i]);
        else
            frame[output] = heldValue(values[i], "");
    }
    return true;
}

// A get_attr for one use of a held tensor: named for its attribute, or a _tensor_constantN that
// every use of the same tensor shares (torch.fx's tensor_attrs).
Tracer::Binding Tracer::materialize(const Binding& held) {
    const at::Tensor& tensor = held.constant->toTensor();
    std::string target = held.path;
    if (auto buffer = bufferPaths_.find(tensor.unsafeGetTensorImpl());
        target.empty() && buffer != bufferPaths_.end())
        target = buffer->second; // computed, but the buffer itself (torch.fx: `a is p_`)
    if (target.empty()) {
        auto [it, added] = tensorConstantNames_.emplace(tensor.unsafeGetTensorImpl(), "");
        if (added)
            it->second = "_tensor_constant" + std::to_string(tensorConstants_++);
        target = it->second;
    }
    Node node;
    node.op = Op::GetAttr;
    node.target = target;
    if (target.rfind("_tensor_constant", 0) != 0)
        node.tensors.push_back(heldTensor(target, tensor));
    Step step;
    step.kind = Step::Kind::Attribute;
    step.attribute = *held.constant;
    return emitValue(std::move(node), target, std::move(step));
}

Tracer::HeldUses::HeldUses(Tracer& tracer, const jit::Node* n, Frame& frame, std::size_t first)
    : frame_(frame) {
    const c10::FunctionSchema* schema = n->maybeSchema();
    for (std::size_t i = first; i < n->inputs().size(); ++i) {
        auto it = frame.find(n->inputs()[i]);
        if (it == frame.end() || !it->second.held)
            continue;
        // Written in place: what ran while tracing read a value the run changes.
        if (schema && i < schema->arguments().size() && schema->arguments()[i].alias_info() &&
            schema->arguments()[i].alias_info()->isWrite())
            tracer.heldWritten_ = true;
        saved_.emplace_back(it->first, it->second);
        it->second = tracer.materialize(it->second);
    }
}

Tracer::HeldUses::~HeldUses() {
    for (auto& [value, binding] : saved_)
        frame_[value] = std::move(binding);
}

} // namespace fxview
