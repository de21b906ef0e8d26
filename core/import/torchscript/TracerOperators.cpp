// What the tracer makes of a TorchScript node that is neither a call nor control flow: a constant
// or an operator on constants is folded into the args of the nodes that use it, as torch.fx
// records Python values (list, tuple and dict literals: TracerLiterals.cpp); any other operator
// is a call_function or call_method node, with the args Python code would have written and the
// step that runs it.
// Apart from Tracer.cpp because it is about values and arguments, not about the walk.

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "FxTargets.h"
#include "InterpreterOps.h"
#include "TorchValues.h"
#include "TracerState.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// torch.fx prints a dtype as torch's attribute: torch.float32, torch.quint8.
std::string scalarTypeRepr(std::int64_t code) {
    return "torch." + dtypeName(static_cast<c10::ScalarType>(code));
}

bool isScalarTypeArgument(const c10::Argument& a) {
    c10::TypePtr t = a.real_type();
    if (auto optional = t->cast<c10::OptionalType>())
        t = optional->getElementType();
    return t->kind() == c10::TypeKind::ScalarTypeType;
}

// A Python number the tracer turned into a tensor: 0-dim, on the CPU, int64, float64 or bool
// (torch.tensor(3.0) would be float32, a tensor constant of the model's own).
bool isTracedScalar(const at::Tensor& t) {
    auto type = t.scalar_type();
    return t.dim() == 0 && t.device().is_cpu() && !t.requires_grad() &&
           (type == c10::ScalarType::Long || type == c10::ScalarType::Double ||
            type == c10::ScalarType::Bool);
}

} // namespace

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

void Tracer::traceConstant(const jit::Node* n, Frame& frame) {
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

// Runs a side-effect-free operator on constant inputs, the way TorchScript's constant
// propagation would, so that `_list_with_default([1, 1], ...)` or `len([..])` fold away.
std::vector<c10::IValue> Tracer::evaluate(const jit::Node* n, const Frame& frame) {
    jit::Stack stack;
    for (const jit::Value* input : n->inputs())
        stack.push_back(*lookup(frame, input).constant); // a literal or a held tensor
    if (n->schema().is_vararg()) // as the interpreter's OPN does (see Step::varargCount)
        stack.emplace_back(static_cast<std::int64_t>(n->inputs().size()));
    n->getOperation()(stack);
    return stack;
}

bool Tracer::foldable(const jit::Node* n, const Frame& frame) const {
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
std::optional<std::pair<Argument, Argument>> Tracer::subscriptOf(const jit::Node* n,
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
bool Tracer::subscriptContinues(const jit::Node* n, const Frame& frame) {
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
std::string Tracer::tensorAttributeRead(const jit::Node* n) {
    const c10::Symbol kind = n->kind();
    if (kind == c10::prim::dtype || kind == c10::prim::device)
        return kind.toUnqualString();
    if (n->inputs().size() != 1 || (kind != c10::aten::size && kind != c10::aten::dim))
        return {};
    std::string read = sourceSpelling_.attributeRead(n);
    return read == (kind == c10::aten::size ? "shape" : "ndim") ? read : std::string();
}

void Tracer::traceOperator(const jit::Node* n, Frame& frame) {
    if (traceLiteralItem(n, frame) || traceKnownWhileTracing(n, frame))
        return;
    if (foldable(n, frame)) {
        std::vector<c10::IValue> values = evaluate(n, frame);
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = constant(values[i]);
        return;
    }
    const c10::FunctionSchema* schema = n->maybeSchema();
    const std::string ns = n->kind().ns().toUnqualString();
    std::string opName = n->kind().toUnqualString();
    // TorchScript renames an alias to its op (torch.swapaxes is aten::transpose); torch.fx
    // records the name the code called, which its source says.
    if (ns == "aten")
        for (const std::string& alias : aliasesOf(opName))
            if (sourceSpelling_.at(n, alias) != Spelling::Unknown) {
                opName = alias;
                break;
            }

    Node node;
    node.schema = n->kind().toQualString();
    if (schema && !schema->overload_name().empty())
        node.schema += "." + schema->overload_name();
    if (schema) {
        if (!addWrittenArguments(node, n, *schema, frame, opName))
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
    if (n->inputs().size() == 2)
        if (auto index = subscript_.tensorIndex(n, dataOf(frame, n->inputs()[1]).arg)) {
            // `boxes[keep]`: TorchScript's aten::index(boxes, [keep]); torch.fx's getitem.
            call = {Op::CallFunction, "operator.getitem", "getitem"};
            node.args = {dataOf(frame, n->inputs()[0]).arg, *index};
            node.kwargs.clear();
        }
    if (auto index = TensorSubscript::listSlice(
            n, [&](const jit::Value* v) { return dataOf(frame, v).constant; })) {
        // `x.shape[-2:]`: Python slices the list, and torch.fx records getitem with the slice.
        call = {Op::CallFunction, "operator.getitem", "getitem"};
        node.args = {dataOf(frame, n->inputs()[0]).arg, *index};
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
    // TorchScript converts a Tensor passed where a float, int or number is expected
    // (quantized::add(qa, qb, self.scale_0, ...) with the scale a buffer) by a node of its own;
    // Python passes the tensor and torch.fx records it so. The conversion runs, hidden, and its
    // users show the tensor.
    bool implicit = n->kind() == c10::aten::FloatImplicit || n->kind() == c10::aten::IntImplicit ||
                    n->kind() == c10::aten::ScalarImplicit;
    node.hidden = node.hidden || implicit;
    emitFor(n, std::move(node), call.candidate, std::move(step), frame);
    if (implicit)
        frame[n->output()].arg = dataOf(frame, n->input(0)).arg;
}

namespace {

// An argument as torch.fx shows it: a dtype by its name (TorchScript holds its number).
Argument shownArgument(const Argument& arg, const std::optional<c10::IValue>& constant,
                       const c10::Argument& formal) {
    if (constant && constant->isInt() && isScalarTypeArgument(formal))
        return Argument::ofRepr(scalarTypeRepr(constant->toInt()));
    return arg;
}

// A list argument as the code wrote it: torch.fx keeps `(2, 3)` written where the schema takes
// int[] a tuple, and `x.mean(0)` or `F.max_pool2d(x, 2)` the number TorchScript widened to the
// int[1] or int[2] the schema takes.
Argument asWritten(Argument a, const std::string& text) {
    if (a.kind != Argument::Kind::List || text.empty())
        return a;
    if (text.front() == '(')
        a.kind = Argument::Kind::Tuple;
    bool number = text.find_first_not_of("-0123456789") == std::string::npos;
    bool repeated =
        !a.items.empty() && std::all_of(a.items.begin(), a.items.end(),
                                        [&](const Argument& i) { return i == a.items[0]; });
    if (number && repeated && a.items[0].kind == Argument::Kind::Int &&
        std::to_string(a.items[0].integer) == text)
        return Argument(a.items[0]);
    return a;
}

} // namespace

bool Tracer::atDefault(const std::optional<c10::IValue>& constant, const c10::Argument& formal) {
    return constant && formal.default_value() &&
           literalOf(*formal.default_value()) == literalOf(*constant);
}

// Fills args and kwargs as the model's code wrote the call, when its source was kept and says so
// unambiguously: torch.fx records `torch.cat(xs, dim=1)` with kwargs {dim: 1} and
// `x.mean((2, 3))` with a tuple, where TorchScript keeps only the schema's order and int[].
// False (nothing filled) when the text does not account for every input the node has.
bool Tracer::addWrittenArguments(Node& node, const jit::Node* n, const c10::FunctionSchema& schema,
                                 const Frame& frame, const std::string& opName) {
    auto written = sourceSpelling_.writtenArguments(n, opName);
    if (!written)
        return false;
    Spelling spelling = sourceSpelling_.at(n, opName);
    const auto& formals = schema.arguments();
    if (spelling == Spelling::Unknown || formals.size() != n->inputs().size())
        return false;
    const std::size_t offset = spelling == Spelling::Method ? 1 : 0; // x.mean(...): x is self
    // Tensor methods taking sizes or dims as `*args` (`x.permute(0, 2, 1)`,
    // `x.reshape(-1, k, n)`): Python passes each one, and torch.fx records them so.
    if (offset == 1 && formals.size() >= 2 && written->size() >= 2) {
        const Binding& packed = dataOf(frame, n->inputs()[1]);
        bool spread = formals[1].type()->kind() == c10::TypeKind::ListType &&
                      packed.arg.kind == Argument::Kind::List &&
                      packed.arg.items.size() == written->size();
        for (const auto& w : *written)
            spread = spread && w.keyword.empty();
        for (std::size_t f = 2; spread && f < formals.size(); ++f)
            spread = atDefault(dataOf(frame, n->inputs()[f]).constant, formals[f]);
        if (spread) {
            node.args = {dataOf(frame, n->inputs()[0]).arg};
            node.args.insert(node.args.end(), packed.arg.items.begin(), packed.arg.items.end());
            node.kwargs.clear();
            return true;
        }
    }
    std::vector<int> writtenAt(formals.size(), -1);
    std::size_t positional = offset;
    for (std::size_t k = 0; k < written->size(); ++k) {
        const std::string& keyword = (*written)[k].keyword;
        std::size_t f = positional;
        if (keyword.empty()) {
            if (f >= formals.size() || formals[f].kwarg_only())
                return false;
            ++positional;
        } else {
            f = offset;
            while (f < formals.size() && formals[f].name() != keyword)
                ++f;
            if (f >= formals.size() || writtenAt[f] >= 0)
                return false;
        }
        writtenAt[f] = static_cast<int>(k);
    }
    // What the code did not write must be the default: else the text does not say where the
    // input came from (`x.view(a, b)` packs two written arguments into one int[]).
    for (std::size_t f = offset; f < formals.size(); ++f)
        if (writtenAt[f] < 0 && !atDefault(dataOf(frame, n->inputs()[f]).constant, formals[f]))
            return false;
    auto shown = [&](std::size_t f) {
        const Binding& b = dataOf(frame, n->inputs()[f]);
        Argument a = shownArgument(b.arg, b.constant, formals[f]);
        return writtenAt[f] < 0
                   ? a
                   : asWritten(a, (*written)[static_cast<std::size_t>(writtenAt[f])].text);
    };
    node.args.clear();
    node.kwargs.clear();
    for (std::size_t f = 0; f < positional; ++f)
        node.args.push_back(shown(f));
    for (const auto& w : *written)
        if (!w.keyword.empty())
            for (std::size_t f = offset; f < formals.size(); ++f)
                if (formals[f].name() == w.keyword)
                    node.kwargs.push_back({w.keyword, shown(f)});
    return true;
}

// Fills args and kwargs the way Python code would have written the call: keyword-only
// arguments as kwargs, and arguments left at their default value dropped.
void Tracer::addArguments(Node& node, const jit::Node* n, std::size_t first,
                          const c10::FunctionSchema& schema, const Frame& frame) {
    const auto& formals = schema.arguments();
    std::vector<Argument> positional;
    std::vector<bool> isDefault;
    for (std::size_t i = first; i < n->inputs().size(); ++i) {
        const Binding& b = dataOf(frame, n->inputs()[i]);
        std::size_t f = i - first;
        Argument value = b.arg;
        bool isAtDefault = false;
        if (f < formals.size()) {
            const c10::Argument& formal = formals[f];
            value = shownArgument(b.arg, b.constant, formal);
            isAtDefault = atDefault(b.constant, formal);
            if (formal.kwarg_only()) {
                if (!isAtDefault)
                    node.kwargs.push_back({formal.name(), value});
                continue;
            }
        }
        positional.push_back(value);
        isDefault.push_back(isAtDefault);
    }
    while (!isDefault.empty() && isDefault.back()) {
        isDefault.pop_back();
        positional.pop_back();
    }
    node.args = std::move(positional);
}

// Fills args and kwargs of a torch.nn.functional call (a prim::CallFunction, its inputs from 1)
// as the function hands itself to __torch_function__, which is what torch.fx records: every
// keyword it passes, defaults included (FunctionalCalls.cpp). False (nothing filled) for a
// function the table does not know, or a parameter the compiled schema does not have.
bool Tracer::addFunctionalArguments(Node& node, const jit::Node* n,
                                    const c10::FunctionSchema& schema, const Frame& frame,
                                    const std::string& function) {
    auto call = functionalCalls().find(function);
    if (call == functionalCalls().end())
        return false;
    const auto& formals = schema.arguments();
    // The call as written (`F.max_pool2d(up, 2)`), where the source was kept: what it wrote is
    // shown as written, what it left out as Python's default.
    std::map<std::string, std::string> written;
    const std::string name = function.front() == '_' ? function.substr(1) : function;
    if (auto spelled = sourceSpelling_.writtenArguments(n, name)) {
        std::size_t position = 0;
        for (const auto& w : *spelled) {
            if (!w.keyword.empty())
                written[w.keyword] = w.text;
            else if (position < formals.size())
                written[formals[position++].name()] = w.text;
        }
    }
    auto valueOf = [&](const std::string& parameter) -> std::optional<Argument> {
        for (std::size_t f = 0; f < formals.size() && f + 1 < n->inputs().size(); ++f) {
            if (formals[f].name() != parameter)
                continue;
            const Binding& b = dataOf(frame, n->inputs()[f + 1]);
            Argument value = shownArgument(b.arg, b.constant, formals[f]);
            if (auto text = written.find(parameter); text != written.end())
                return asWritten(value, text->second);
            auto python = call->second.defaults.find(parameter);
            if (python != call->second.defaults.end() && atDefault(b.constant, formals[f]))
                return python->second;
            return value;
        }
        return std::nullopt;
    };
    std::vector<Argument> args;
    std::vector<KeywordArgument> kwargs;
    for (const std::string& parameter : call->second.positional) {
        std::optional<Argument> value = valueOf(parameter);
        if (!value)
            return false;
        args.push_back(*value);
    }
    for (const auto& [keyword, parameter] : call->second.keywords) {
        std::optional<Argument> value = valueOf(parameter);
        if (!value)
            return false;
        kwargs.push_back({keyword, *value});
    }
    node.args = std::move(args);
    node.kwargs = std::move(kwargs);
    return true;
}

} // namespace fxview
