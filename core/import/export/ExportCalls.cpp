// The steps of a torch.export program's call_function nodes: the ATen overload (or a library's
// op) a node names, called on its inputs in its schema's order, and the getitems of an op that
// returns several values. Where the graph puts each argument is ExportGraphWalk's.

#include <torch/csrc/jit/runtime/operator.h>

#include <stdexcept>

#include "ExportPlanBuilder.h"
#include "Functorch.h"
#include "SymbolicOps.h"
#include "TorchOperatorSchema.h"
#include "TorchValues.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// A Python number passed where the schema wants a Tensor (`mul.Tensor(sum_1, sym_size_int_1)`):
// Python's argument parser makes it a 0-dim "wrapped number" tensor, which type promotion treats
// as a scalar; the operation does the same to the stack entries at `positions`.
jit::Operation wrappingNumbers(jit::Operation op, std::vector<std::size_t> positions,
                               std::size_t arity) {
    return jit::Operation([op, positions, arity](jit::Stack& stack) mutable {
        std::size_t base = stack.size() - arity;
        for (std::size_t i : positions) {
            c10::IValue& v = stack[base + i];
            if (v.isTensor())
                continue;
            at::Tensor t = c10::scalar_to_tensor(v.toScalar());
            t.unsafeGetTensorImpl()->set_wrapped_number(true);
            v = t;
        }
        op(stack);
    });
}

} // namespace

std::optional<c10::OperatorName> ExportPlanBuilder::operatorName(const std::string& target) {
    std::optional<std::string> qualified = qualifiedOperatorName(target);
    if (!qualified)
        return std::nullopt;
    std::size_t dot = qualified->find('.');
    return c10::OperatorName(qualified->substr(0, dot),
                             dot == std::string::npos ? "" : qualified->substr(dot + 1));
}

const OperatorSchema* ExportPlanBuilder::schemaOf(const std::string& target) {
    auto it = called_.find(target);
    if (it == called_.end()) {
        Called called;
        called.op = calledOperator(target, "", called.why);
        if (called.op)
            called.schema = operatorSchemaOf(called.op->schema());
        it = called_.emplace(target, std::move(called)).first;
    }
    return it->second.op ? &it->second.schema : nullptr;
}

void ExportPlanBuilder::symbolicCall(const ExportedNode& n, const WalkedNode& walked) {
    Step step;
    step.kind = Step::Kind::Operator;
    for (const auto& input : n.inputs)
        step.inputs.push_back(sourceOf(input.second));
    step.operation = symbolicOperation(n.target, static_cast<int>(n.inputs.size()));
    if (!step.operation)
        throw std::runtime_error(n.target + " is not a symbolic function fxview runs");
    commit(std::move(step), walked);
}

void ExportPlanBuilder::call(const ExportedNode& n, const std::vector<PlacedArgument>* placed,
                             const WalkedNode& walked) {
    Step step;
    step.kind = Step::Kind::Operator;
    schemaOf(n.target);
    const Called& called = called_.at(n.target);
    if (std::optional<jit::Operation> functorch = functorchOperation(n.target)) {
        // torch.vmap's calls: positional, as the program keeps them (Functorch.h).
        for (const auto& input : n.inputs)
            step.inputs.push_back(sourceOf(input.second));
        step.operation = std::move(*functorch);
        step.outputs = 1;
        return commit(std::move(step), walked);
    }
    if (!placed || !called.op) {
        step.unsupported = called.why; // drawn; running it stops here with the sentence
        return commit(std::move(step), walked);
    }
    const c10::FunctionSchema& schema = called.op->schema();
    std::vector<std::size_t> numbersAsTensors;
    for (std::size_t i = 0; i < placed->size(); ++i) {
        const c10::Argument& formal = schema.arguments()[i];
        const ExportedValue* value = (*placed)[i].value;
        if (value && formal.type()->kind() == c10::TypeKind::TensorType &&
            value->kind != ExportedValue::Kind::Tensor)
            numbersAsTensors.push_back(step.inputs.size());
        ValueSource source =
            value ? sourceOf(*value) : ValueSource::ofConstant(*formal.default_value());
        // The list's items are the schema's type, not the JSON's spelling: PyTorch 2.6 writes
        // x[idx]'s indices as as_tensors, but aten.index.Tensor takes Tensor?[] (and LibTorch
        // will not cast a List<Tensor> to a List<Tensor?>).
        if (auto list = formal.type()->cast<c10::ListType>();
            list && source.kind == ValueSource::Kind::List &&
            list->getElementType()->kind() == c10::TypeKind::OptionalType)
            source.listElement = list->getElementType();
        step.inputs.push_back(std::move(source));
    }
    step.operation = called.op->getOperation();
    if (!numbersAsTensors.empty())
        step.operation = wrappingNumbers(*step.operation, numbersAsTensors, step.inputs.size());
    step.outputs = static_cast<int>(schema.returns().size());
    commit(std::move(step), walked);
}

void ExportPlanBuilder::getItem(const std::string& whole, std::size_t index,
                                const WalkedNode& walked) {
    Step get;
    get.kind = Step::Kind::GetItem;
    get.index = static_cast<int>(index);
    get.inputs = {ValueSource::ofSlot(scope().slotOf.at(whole))};
    commit(std::move(get), walked);
}

} // namespace fxview
