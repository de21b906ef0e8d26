// The call_function nodes of a torch.export program, as PyTorch 2.6's deserializer makes them:
// the ATen overload (or a library's op) a node names, its arguments where deserialize_inputs
// puts them (positional while the schema argument has no default, keyword after), the getitem
// nodes of an op that returns several values. Higher-order ops are ExportHops.cpp's.

#include <torch/csrc/jit/runtime/operator.h>

#include <set>
#include <stdexcept>
#include <tuple>

#include "ExportGraphBuilder.h"
#include "SymbolicOps.h"
#include "TorchValues.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// Python keywords that are also schema argument names: deserialize_inputs passes them
// positionally (a keyword argument cannot be spelled `from=`).
bool isPythonKeyword(const std::string& name) {
    static const std::set<std::string> keywords = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    return keywords.count(name) > 0;
}

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

std::optional<c10::OperatorName> ExportGraphBuilder::operatorName(const std::string& target) {
    const std::string prefix = "torch.ops.";
    if (target.rfind(prefix, 0) != 0)
        return std::nullopt;
    std::string rest = target.substr(prefix.size());
    std::size_t dot1 = rest.find('.'), dot2 = rest.rfind('.');
    if (dot1 == std::string::npos || dot1 == dot2)
        return std::nullopt;
    std::string overload = rest.substr(dot2 + 1);
    return c10::OperatorName(rest.substr(0, dot1) + "::" + rest.substr(dot1 + 1, dot2 - dot1 - 1),
                             overload == "default" ? "" : overload);
}

std::string ExportGraphBuilder::autoName(const std::string& target) {
    const std::string prefix = "torch.ops.";
    std::string overload = target.substr(target.rfind(prefix, 0) == 0 ? prefix.size() : 0);
    std::string name = NodeNamer::snakeCase(overload.substr(overload.find('.') + 1));
    for (char& c : name)
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

void ExportGraphBuilder::callFunction(const ExportedNode& n) {
    Node node;
    node.op = Op::CallFunction;
    node.target = n.target;
    std::tie(node.scope, node.scopeType) = scopeOf(n.nnModuleStack);
    node.sourceTrace = n.stackTrace;
    if (n.target.rfind("torch.ops.higher_order.", 0) == 0)
        return higherOrder(n, std::move(node));
    Step step;
    step.kind = Step::Kind::Operator;
    if (auto symbolic = symbolicOperation(n.target, static_cast<int>(n.inputs.size()))) {
        // deserialize_sym_op_inputs: every input positional, the node named after its value.
        node.target = symbolicTargetName(n.target);
        for (const auto& input : n.inputs) {
            node.args.push_back(exportedArgument(input.second));
            step.inputs.push_back(sourceOf(input.second));
        }
        step.operation = *symbolic;
        bool named = !n.name.empty() || !n.outputs.empty();
        node.name = !n.name.empty() ? n.name : named ? n.outputs[0].name : autoName(n.target);
        emit(std::move(node), std::move(step), named ? Naming::Program : Naming::Fresh);
        return;
    }
    std::shared_ptr<jit::Operator> op = calledOperator(n.target, "", step.unsupported);
    std::map<std::string, const ExportedValue*> actual;
    std::map<std::string, int> spelled; // NamedArgument.kind: 1 positional, 2 keyword
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        actual[n.inputs[i].first] = &n.inputs[i].second;
        spelled[n.inputs[i].first] = i < n.inputKinds.size() ? n.inputKinds[i] : 0;
    }
    if (op) {
        const c10::FunctionSchema& schema = op->schema();
        node.schema = schema.operator_name().name +
                      (schema.overload_name().empty() ? "" : "." + schema.overload_name());
        std::vector<std::size_t> numbersAsTensors;
        for (const c10::Argument& formal : schema.arguments()) {
            auto it = actual.find(formal.name());
            // As serialize.py's deserialize_inputs: the kind the call was written with, where
            // the file says it; else positional while the schema argument has no default.
            const int kind = it != actual.end() ? spelled[formal.name()] : 0;
            bool positional = kind == 1 ||
                              (kind != 2 && !formal.default_value() && !formal.kwarg_only()) ||
                              (kind == 2 && isPythonKeyword(formal.name()) &&
                               !formal.default_value() && !formal.kwarg_only());
            if (kind == 2 && !isPythonKeyword(formal.name()) && it != actual.end()) {
                node.kwargs.push_back({formal.name(), exportedArgument(*it->second)});
            } else if (positional || isPythonKeyword(formal.name())) {
                if (it == actual.end())
                    throw std::runtime_error(n.target + " lacks its argument " + formal.name());
                node.args.push_back(exportedArgument(*it->second));
            } else if (it != actual.end()) {
                node.kwargs.push_back({formal.name(), exportedArgument(*it->second)});
            }
            if (it != actual.end() && formal.type()->kind() == c10::TypeKind::TensorType &&
                it->second->kind != ExportedValue::Kind::Tensor)
                numbersAsTensors.push_back(step.inputs.size());
            ValueSource source = it != actual.end()
                                     ? sourceOf(*it->second)
                                     : ValueSource::ofConstant(*formal.default_value());
            // The list's items are the schema's type, not the JSON's spelling: PyTorch 2.6
            // writes x[idx]'s indices as as_tensors, but aten.index.Tensor takes Tensor?[]
            // (and LibTorch will not cast a List<Tensor> to a List<Tensor?>).
            if (auto list = formal.type()->cast<c10::ListType>();
                list && source.kind == ValueSource::Kind::List &&
                list->getElementType()->kind() == c10::TypeKind::OptionalType)
                source.listElement = list->getElementType();
            step.inputs.push_back(std::move(source));
        }
        step.operation = op->getOperation();
        if (!numbersAsTensors.empty())
            step.operation = wrappingNumbers(*step.operation, numbersAsTensors, step.inputs.size());
        step.outputs = static_cast<int>(schema.returns().size());
    } else {
        // Kept in the graph, its inputs where the file's NamedArgument.kind puts them (as
        // keywords where it does not say); running it stops there with a sentence.
        for (std::size_t i = 0; i < n.inputs.size(); ++i) {
            const auto& [argName, value] = n.inputs[i];
            if (i < n.inputKinds.size() && n.inputKinds[i] == 1)
                node.args.push_back(exportedArgument(value));
            else
                node.kwargs.push_back({argName, exportedArgument(value)});
        }
    }
    // One tensor or symbolic output names the node (deserialize_outputs' sync_fx_node);
    // otherwise torch.fx names it after the op and getitem nodes take the outputs' names.
    // Schema 8.x's Node.name, where the file has it, is the name deserialize_node gives.
    bool single = n.outputs.size() == 1 && namesItsNode(n.outputs[0]);
    node.name = !n.name.empty() ? n.name : single ? n.outputs[0].name : autoName(n.target);
    std::string whole = emit(std::move(node), std::move(step),
                             !n.name.empty() || single ? Naming::Program : Naming::Fresh);
    if (!single)
        getItems(n.outputs, whole);
}

void ExportGraphBuilder::getItems(const std::vector<ExportedValue>& outputs,
                                  const std::string& whole) {
    using K = ExportedValue::Kind;
    if (outputs.size() == 1 && outputs[0].kind == K::Tensors) {
        listItems(outputs[0].names, whole);
        return;
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const ExportedValue& out = outputs[i];
        if (namesItsNode(out))
            getItem(whole, i, out.name);
        else if (out.kind == K::None)
            getItem(whole, i, "as_none", Naming::Fresh);
        else if (out.kind == K::Tensors)
            listItems(out.names, getItem(whole, i, "getitem", Naming::Fresh));
    }
}

std::string ExportGraphBuilder::getItem(const std::string& whole, std::size_t index,
                                        const std::string& name, Naming naming) {
    const Node& from = scope_->nodes->back();
    Node item;
    item.op = Op::CallFunction;
    item.target = "operator.getitem";
    item.name = name;
    item.scope = from.scope;
    item.scopeType = from.scopeType;
    item.sourceTrace = from.sourceTrace;
    item.args = {Argument::ofNode(whole), Argument::ofInt(static_cast<std::int64_t>(index))};
    Step get;
    get.kind = Step::Kind::GetItem;
    get.index = static_cast<int>(index);
    get.inputs = {ValueSource::ofSlot(scope_->slotOf.at(whole))};
    return emit(std::move(item), std::move(get), naming);
}

} // namespace fxview
