// The graph PyTorch's deserializer builds (torch/_export/serde/serialize.py, GraphModule-
// Deserializer): placeholders in signature order, one call_function per serialized node named
// after its tensor output, getitem nodes for the outputs of an op that returns several, and one
// output returning the tuple of every output spec. Arguments go where deserialize_inputs puts
// them (ExportedCallArguments.h).

#include "ExportGraphWalk.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace fxview {

namespace {

const std::string kHigherOrder = "torch.ops.higher_order.";

std::size_t bytesOf(const Argument& a) {
    std::size_t n = sizeof(Argument) + a.text.size();
    for (const Argument& item : a.items) // nested no deeper than the JSON (BoundedJson.h)
        n += bytesOf(item);
    return n;
}

// About what a node takes in memory (and on the wire): its strings and its arguments.
std::size_t bytesOf(const Node& node) {
    std::size_t n = sizeof(Node) + node.name.size() + node.target.size() + node.schema.size() +
                    node.scope.size() + node.scopeType.size() + node.sourceTrace.size();
    for (const Argument& a : node.args)
        n += bytesOf(a);
    for (const KeywordArgument& k : node.kwargs)
        n += k.name.size() + bytesOf(k.value);
    for (const std::string& s : node.symbolicShape)
        n += sizeof s + s.size();
    return n;
}

// Whether the PyTorch that wrote `program` (known by its schema version) names a node whose one
// output is None `<target>_unused` when it loads it (deserialize_outputs), rather than making a
// getitem of the None: PyTorch 2.6 (schema 8.2) does not, 2.7 (8.7) and later do.
bool namesUnusedOutputs(const ExportedProgram& program) {
    return program.schemaMajor > 8 || (program.schemaMajor == 8 && program.schemaMinor >= 7);
}

} // namespace

Graph ExportGraphWalk::run() {
    for (const ExportedInput& in : program_.inputs)
        placeholder(in);
    for (const ExportedNode& n : program_.graph.nodes)
        callFunction(n);
    output();
    graph_.recomputeUsers();
    return std::move(graph_);
}

WalkedNode ExportGraphWalk::append(Node node, Naming naming) {
    std::string local = node.name;
    if (naming == Naming::Program)
        scope_->namer.claim(local);
    else
        local = scope_->namer.create(local);
    node.name = scope_->prefix + local;
    // The top graph's tensor_values hold its values' sizes, symbolic ones as expressions.
    if (scope_ == &top_)
        if (auto meta = program_.tensors.find(local);
            meta != program_.tensors.end() && meta->second.symbolic())
            node.symbolicShape = meta->second.printed;
    if (!scope_->prefix.empty()) {
        for (Argument& a : node.args)
            prefixRefs(a);
        for (KeywordArgument& k : node.kwargs)
            prefixRefs(k.value);
    }
    madeBytes_ += bytesOf(node);
    checkBudget(0);
    WalkedNode walked{node.name, local};
    scope_->nodes->push_back(std::move(node));
    return walked;
}

void ExportGraphWalk::checkBudget(std::size_t more) const {
    const std::size_t budget =
        std::max(kAmplificationFloor, kMaxAmplification * program_.jsonBytes);
    if (madeBytes_ + more > budget)
        throw std::runtime_error(
            "its graph would take more than " + std::to_string(budget >> 20) + " MB, " +
            std::to_string(kMaxAmplification) + " times its program's " +
            std::to_string(program_.jsonBytes >> 10) +
            " KB of JSON (real programs take 1 to 2 times theirs): the file is damaged or "
            "hostile; export the model again");
}

void ExportGraphWalk::prefixRefs(Argument& a) const {
    if (a.kind == Argument::Kind::NodeRef)
        a.text = scope_->prefix + a.text;
    for (Argument& item : a.items)
        prefixRefs(item);
}

void ExportGraphWalk::placeholder(const ExportedInput& in) {
    Node node;
    node.op = Op::Placeholder;
    node.name = in.name;
    node.target = in.name;
    using K = ExportedInput::Kind;
    if (in.kind == K::Token || in.kind == K::Constant) {
        // An effect token (with_effects): ep.module() starts from torch.tensor([]) itself; a
        // constant input (a float export specialised away): ep.module() checks, not passes, it.
        node.placeholderKind = PlaceholderKind::Constant;
    } else if (in.kind != K::UserInput) {
        node.placeholderKind = in.kind == K::Parameter        ? PlaceholderKind::Parameter
                               : in.kind == K::TensorConstant ? PlaceholderKind::Constant
                                                              : PlaceholderKind::Buffer;
        HeldTensor held{in.target, {}, "unknown"};
        if (auto meta = program_.tensors.find(in.name); meta != program_.tensors.end()) {
            held.shape = meta->second.sizes;
            held.dtype = exportedDtypeName(meta->second.dtype).substr(6); // "torch."
        }
        node.tensors.push_back(held);
    }
    listener_.placeholder(in, append(std::move(node)));
}

bool ExportGraphWalk::isSymbolicCall(const std::string& target, std::size_t arity) {
    // The binary ones SymbolicOps.cpp runs; any other one-input function is unary (neg,
    // sym_not, sym_sqrt...), sym_ite the one with three.
    static const std::set<std::string> binary = {"mul", "add",     "sub", "floordiv", "mod",
                                                 "pow", "truediv", "eq",  "ne",       "le",
                                                 "ge",  "lt",      "gt",  "sym_max",  "sym_min"};
    std::string name;
    for (const std::string module : {"_operator.", "operator.", "torch.sym_"})
        if (target.rfind(module, 0) == 0)
            name = target.substr(module == "torch.sym_" ? 6 : module.size());
    if (name.empty())
        return false;
    return (arity == 2 && binary.count(name)) || (arity == 3 && name == "sym_ite") ||
           (arity == 1 && name != "sym_ite" && !binary.count(name));
}

std::string ExportGraphWalk::autoName(const std::string& target) {
    // An OpOverload's __name__ is "split.Tensor"; a Python function's its own name
    // (torch._functorch.predispatch._add_batch_dim: "_add_batch_dim").
    const std::string prefix = "torch.ops.";
    std::string name = target.rfind(prefix, 0) == 0
                           ? target.substr(target.find('.', prefix.size()) + 1)
                           : target.substr(target.rfind('.') + 1);
    name = NodeNamer::snakeCase(name);
    for (char& c : name)
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

void ExportGraphWalk::callFunction(const ExportedNode& n) {
    // The arguments the node's inputs will make, checked before they are made: 6 MB of as_ints
    // made 3 million Arguments before the node they belonged to was refused.
    std::size_t arguments = 0;
    for (const auto& input : n.inputs) {
        const ExportedValue& v = input.second;
        arguments += sizeof(Argument) * (1 + v.names.size() + v.ints.size() + v.floats.size() +
                                         v.bools.size() + v.strings.size() + v.items.size()) +
                     v.text.size();
    }
    checkBudget(arguments);
    Node node;
    node.op = Op::CallFunction;
    node.target = n.target;
    std::tie(node.scope, node.scopeType) = scopeOf(n.nnModuleStack);
    node.sourceTrace = n.stackTrace;
    if (n.target.rfind(kHigherOrder, 0) == 0)
        return higherOrder(n, std::move(node));
    if (isSymbolicCall(n.target, n.inputs.size())) {
        // deserialize_sym_op_inputs: every input positional, the node named after its value.
        node.target = n.target.rfind("_operator.", 0) == 0 ? n.target.substr(1) : n.target;
        for (const auto& input : n.inputs)
            node.args.push_back(exportedArgument(input.second));
        bool named = !n.name.empty() || !n.outputs.empty();
        node.name = !n.name.empty() ? n.name : named ? n.outputs[0].name : autoName(n.target);
        listener_.symbolicCall(n, append(std::move(node), named ? Naming::Program : Naming::Fresh));
        return;
    }
    const OperatorSchema* schema = listener_.schemaOf(n.target);
    std::vector<PlacedArgument> placed;
    if (schema) {
        node.schema = schema->qualifiedName();
        placed = placedArguments(*schema, n);
        for (std::size_t i = 0; i < placed.size(); ++i) {
            if (placed[i].place == PlacedArgument::Place::Positional)
                node.args.push_back(exportedArgument(*placed[i].value));
            else if (placed[i].place == PlacedArgument::Place::Keyword)
                node.kwargs.push_back(
                    {schema->arguments[i].name, exportedArgument(*placed[i].value)});
        }
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
    // One None output (torch.vmap's _vmap_increment_nesting): PyTorch 2.7's deserializer on
    // makes no getitem of it but renames the node `<target>_unused`, its first name kept taken.
    const bool unused = n.outputs.size() == 1 && n.outputs[0].kind == ExportedValue::Kind::None &&
                        namesUnusedOutputs(program_);
    if (unused) {
        if (n.name.empty())
            scope_->namer.create(node.name);
        else
            scope_->namer.claim(node.name);
        node.name = autoName(n.target) + "_unused";
    }
    WalkedNode walked = append(
        std::move(node), (!n.name.empty() || single) && !unused ? Naming::Program : Naming::Fresh);
    listener_.call(n, schema ? &placed : nullptr, walked);
    if (!single && !unused)
        getItems(n.outputs, walked.local);
}

void ExportGraphWalk::getItems(const std::vector<ExportedValue>& outputs,
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

std::string ExportGraphWalk::getItem(const std::string& whole, std::size_t index,
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
    WalkedNode walked = append(std::move(item), naming);
    listener_.getItem(whole, index, walked);
    return walked.local;
}

std::pair<std::string, std::string> ExportGraphWalk::scopeOf(const std::string& stack) {
    std::size_t last = stack.rfind(';');
    std::string entry = last == std::string::npos ? stack : stack.substr(last + 1);
    if (entry.rfind("_empty_nn_module_stack", 0) == 0)
        return {};
    std::size_t c1 = entry.find(',');
    std::size_t c2 = entry.rfind(',');
    if (c1 == std::string::npos || c1 == c2)
        return {};
    std::string path = entry.substr(c1 + 1, c2 - c1 - 1);
    const std::string self = "L['self'].";
    if (path.rfind(self, 0) == 0)
        path = path.substr(self.size());
    else if (path.rfind("L['", 0) == 0 && path.find("'].") != std::string::npos)
        path = path.substr(path.find("'].") + 3);
    if (path.empty()) // the root module itself
        return {};
    const auto depth = std::count(path.begin(), path.end(), '.') + 1;
    if (depth > kMaxScopeDepth)
        throw std::runtime_error("a node's nn_module_stack nests " + std::to_string(depth) +
                                 " modules deep, past the " + std::to_string(kMaxScopeDepth) +
                                 " fxview reads: the program is damaged; export the model again");
    return {path, entry.substr(c2 + 1)};
}

void ExportGraphWalk::output() {
    Node node;
    node.op = Op::Output;
    node.name = "output";
    node.target = "output";
    std::vector<Argument> items;
    using K = ExportedOutput::Kind;
    for (const ExportedOutput& out : program_.outputs) {
        items.push_back(exportedArgument(out.value));
        const char* kind = out.kind == K::UserOutput          ? "user_output"
                           : out.kind == K::LossOutput        ? "loss_output"
                           : out.kind == K::BufferMutation    ? "buffer_mutation"
                           : out.kind == K::UserInputMutation ? "user_input_mutation"
                           : out.kind == K::Token             ? "token"
                                                              : "other";
        node.outputRoles.push_back({kind, out.target});
    }
    node.args = {Argument::ofTuple(std::move(items))};
    listener_.output(append(std::move(node), Naming::Fresh));
}

} // namespace fxview
