// The graph PyTorch 2.6's deserializer builds (torch/_export/serde/serialize.py, GraphModule-
// Deserializer): placeholders in signature order, one call_function per serialized node named
// after its tensor output, getitem nodes for the outputs of an op that returns several, and one
// output returning the tuple of every output spec. Arguments go where deserialize_inputs puts
// them: positional while the schema argument has no default, keyword after.

#include "ExportImporter.h"

#include "ExportGraphBuilder.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <set>
#include <stdexcept>
#include <tuple>

#include "ModelPrivate.h"
#include "NodeNamer.h"
#include "OpLibraries.h"
#include "PlanPrivate.h"
#include "RunRecord.h"
#include "SymbolicOps.h"
#include "TorchSave.h"
#include "TorchValues.h"

namespace fxview {

TraceResult ExportGraphBuilder::run() {
    const ExportedProgram& p = model_.program;
    for (const ExportedInput& in : p.inputs)
        placeholder(in);
    for (const ExportedNode& n : p.graph.nodes)
        callFunction(n);
    output();
    graph_.recomputeUsers();
    TraceResult result;
    result.graph = std::move(graph_);
    result.plan = std::move(plan_);
    return result;
}

std::string ExportGraphBuilder::emit(Node node, Step step, Naming naming) {
    std::string local = node.name;
    if (naming == Naming::Program)
        scope_->namer.claim(local);
    else
        local = scope_->namer.create(local);
    node.name = scope_->prefix + local;
    // The top graph's tensor_values hold its values' sizes, symbolic ones as expressions.
    if (scope_ == &top_)
        if (auto meta = model_.program.tensors.find(local);
            meta != model_.program.tensors.end() && meta->second.symbolic())
            node.symbolicShape = meta->second.printed;
    if (!scope_->prefix.empty()) {
        for (Argument& a : node.args)
            prefixRefs(a);
        for (KeywordArgument& k : node.kwargs)
            prefixRefs(k.value);
    }
    step.name = node.name;
    step.slot = plan_->slotCount++;
    int id = static_cast<int>(plan_->steps.size());
    plan_->stepOf[node.name] = id;
    scope_->slotOf[local] = step.slot;
    scope_->nodes->push_back(std::move(node));
    scope_->steps->push_back(id);
    plan_->steps.push_back(std::move(step));
    return local;
}

void ExportGraphBuilder::placeholder(const ExportedInput& in) {
    Node node;
    node.op = Op::Placeholder;
    node.name = in.name;
    node.target = in.name;
    Step step;
    using K = ExportedInput::Kind;
    if (in.kind == K::UserInput) {
        step.kind = Step::Kind::Placeholder;
        step.index = plan_->placeholders++;
        plan_->inputs.push_back(inputSpec(in.name));
    } else if (in.kind == K::Token) {
        // An effect token (with_effects): ep.module() starts from torch.tensor([]) itself.
        node.placeholderKind = PlaceholderKind::Constant;
        step.kind = Step::Kind::Attribute;
        step.attribute = at::empty({0});
    } else {
        node.placeholderKind = in.kind == K::Parameter        ? PlaceholderKind::Parameter
                               : in.kind == K::TensorConstant ? PlaceholderKind::Constant
                                                              : PlaceholderKind::Buffer;
        step.kind = Step::Kind::Attribute;
        // Non-persistent buffers travel with the constants, not the state dict, as
        // ExportedProgram._graph_module_flat_inputs reads them.
        bool constant = in.kind == K::TensorConstant || (in.kind == K::Buffer && !in.persistent);
        HeldTensor held{in.target, {}, "unknown"};
        auto meta = model_.program.tensors.find(in.name);
        if (meta != model_.program.tensors.end()) {
            held.shape = meta->second.sizes;
            held.dtype = exportedDtypeName(meta->second.dtype).substr(6); // "torch."
        }
        node.tensors.push_back(held);
        step.loadAttribute = [model = model_.shared_from_this(), held, constant]() {
            at::Tensor t = model->weight(held.name, constant);
            if (!held.shape.empty() && t.sizes().vec() != held.shape)
                throw std::runtime_error(
                    "The archive's weights do not match its signature: " + held.name + " is " +
                    formatShape(t.sizes().vec()) + " in the weights but " +
                    formatShape(held.shape) + " in the graph; export it again");
            return c10::IValue(t);
        };
    }
    emit(std::move(node), std::move(step));
}

PlaceholderSpec ExportGraphBuilder::inputSpec(const std::string& name) const {
    std::size_t index = plan_->inputs.size();
    PlaceholderSpec spec;
    spec.name = name;
    spec.type = c10::TensorType::get();
    spec.typeOrigin = "the archive's example input";
    if (index < model_.exampleInputs.size())
        spec.example = model_.exampleInputs[index];
    auto meta = model_.program.tensors.find(name);
    if (meta == model_.program.tensors.end())
        return spec;
    const ExportedTensorMeta& m = meta->second;
    spec.exportedSizes = m.sizes;
    for (std::size_t d = 0; d < m.symbols.size(); ++d) {
        auto range = model_.program.ranges.find(m.symbols[d]);
        if (!m.symbols[d].empty() && range != model_.program.ranges.end())
            spec.dynamicDims.push_back(
                {static_cast<int>(d), m.symbols[d], range->second.min, range->second.max});
    }
    if (std::find(m.sizes.begin(), m.sizes.end(), -1) == m.sizes.end())
        spec.type = c10::TensorType::createContiguous(
            scalarTypeOfExported(m.dtype), c10::Device(c10::kCPU), c10::IntArrayRef(m.sizes));
    return spec;
}

ValueSource ExportGraphBuilder::sourceOf(const ExportedValue& v) const {
    using K = ExportedValue::Kind;
    auto slot = [&](const std::string& name) {
        auto it = scope_->slotOf.find(name);
        if (it == scope_->slotOf.end())
            throw std::runtime_error("value %" + name + " is used before it is made");
        return ValueSource::ofSlot(it->second);
    };
    switch (v.kind) {
    case K::None:
        return ValueSource::ofConstant(c10::IValue());
    case K::Tensor:
    case K::SymInt:
    case K::Graph:
        return slot(v.name);
    case K::Tensors: {
        ValueSource list;
        list.kind = ValueSource::Kind::List;
        bool optional = std::find(v.names.begin(), v.names.end(), "") != v.names.end();
        list.listElement = optional ? c10::OptionalType::ofTensor() : c10::TensorType::get();
        for (const std::string& n : v.names)
            list.items.push_back(n.empty() ? ValueSource::ofConstant(c10::IValue()) : slot(n));
        return list;
    }
    case K::Int:
        return ValueSource::ofConstant(v.integer);
    case K::Ints: {
        if (v.ints.size() == v.items.size())
            return ValueSource::ofConstant(c10::List<std::int64_t>(v.ints));
        ValueSource list;
        list.kind = ValueSource::Kind::List;
        list.listElement = c10::IntType::get();
        for (const ExportedValue& item : v.items)
            list.items.push_back(sourceOf(item));
        return list;
    }
    case K::Float:
        return ValueSource::ofConstant(v.real);
    case K::Floats:
        return ValueSource::ofConstant(c10::List<double>(v.floats));
    case K::Bool:
        return ValueSource::ofConstant(v.boolean);
    case K::Bools: {
        c10::List<bool> list;
        for (bool b : v.bools)
            list.push_back(b);
        return ValueSource::ofConstant(list);
    }
    case K::String:
        return ValueSource::ofConstant(v.text);
    case K::Strings:
        return ValueSource::ofConstant(c10::List<std::string>(v.strings));
    case K::ScalarType:
        return ValueSource::ofConstant(
            static_cast<std::int64_t>(scalarTypeOfExported(static_cast<int>(v.integer))));
    case K::MemoryFormat: {
        const c10::MemoryFormat formats[] = {
            c10::MemoryFormat::Contiguous, c10::MemoryFormat::Contiguous,
            c10::MemoryFormat::ChannelsLast, c10::MemoryFormat::ChannelsLast3d,
            c10::MemoryFormat::Preserve};
        return ValueSource::ofConstant(
            static_cast<std::int64_t>(formats[v.integer >= 0 && v.integer <= 4 ? v.integer : 0]));
    }
    case K::Layout:
        return ValueSource::ofConstant(static_cast<std::int64_t>(c10::kStrided));
    case K::Device:
        return ValueSource::ofConstant(c10::Device(v.text));
    case K::Operator:
        throw std::runtime_error("the operator " + v.text + " is an argument only of with_effects");
    case K::Unsupported:
        throw std::runtime_error("an argument of kind " + v.text + " is not read yet");
    }
    return ValueSource::ofConstant(c10::IValue());
}

std::pair<std::string, std::string> ExportGraphBuilder::scopeOf(const std::string& stack) {
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
    return {path, entry.substr(c2 + 1)};
}

std::function<c10::IValue(const c10::IValue&)> ExportGraphBuilder::outputShaper() const {
    const ExportedProgram& program = model_.program;
    if (!program.outputTree)
        return {};
    std::vector<std::size_t> user;
    for (std::size_t i = 0; i < program.outputs.size(); ++i)
        if (program.outputs[i].kind == ExportedOutput::Kind::UserOutput)
            user.push_back(i);
    if (program.outputTree->leaves() != user.size())
        return {};
    return [tree = *program.outputTree, user](const c10::IValue& all) {
        const auto& items = all.toTupleRef().elements();
        std::vector<c10::IValue> flat;
        for (std::size_t i : user)
            flat.push_back(items.at(i));
        std::size_t next = 0;
        return rebuilt(tree, flat, next);
    };
}

c10::IValue ExportGraphBuilder::rebuilt(const OutputTree& tree,
                                        const std::vector<c10::IValue>& flat, std::size_t& next) {
    using K = OutputTree::Kind;
    if (tree.kind == K::Leaf)
        return flat.at(next++);
    std::vector<c10::IValue> items;
    for (const OutputTree& child : tree.children)
        items.push_back(rebuilt(child, flat, next));
    if (tree.kind == K::Tuple)
        return c10::ivalue::Tuple::create(std::move(items));
    if (tree.kind == K::List) {
        c10::impl::GenericList list(c10::AnyType::get());
        for (c10::IValue& item : items)
            list.push_back(std::move(item));
        return list;
    }
    c10::TypePtr keyType =
        tree.intKeys ? c10::TypePtr(c10::IntType::get()) : c10::TypePtr(c10::StringType::get());
    c10::impl::GenericDict dict(keyType, c10::AnyType::get());
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (tree.intKeys)
            dict.insert(static_cast<std::int64_t>(std::stoll(tree.keys[i])), std::move(items[i]));
        else
            dict.insert(tree.keys[i], std::move(items[i]));
    }
    return dict;
}

void ExportGraphBuilder::output() {
    Node node;
    node.op = Op::Output;
    node.name = "output";
    node.target = "output";
    std::vector<Argument> items;
    ValueSource tuple;
    tuple.kind = ValueSource::Kind::Tuple;
    using K = ExportedOutput::Kind;
    for (const ExportedOutput& out : model_.program.outputs) {
        items.push_back(exportedArgument(out.value));
        tuple.items.push_back(sourceOf(out.value));
        const char* kind = out.kind == K::UserOutput          ? "user_output"
                           : out.kind == K::LossOutput        ? "loss_output"
                           : out.kind == K::BufferMutation    ? "buffer_mutation"
                           : out.kind == K::UserInputMutation ? "user_input_mutation"
                           : out.kind == K::Token             ? "token"
                                                              : "other";
        node.outputRoles.push_back({kind, out.target});
    }
    node.args = {Argument::ofTuple(std::move(items))};
    Step step;
    step.kind = Step::Kind::Output;
    step.inputs = {tuple};
    step.shapeOutput = outputShaper();
    emit(std::move(node), std::move(step), Naming::Fresh);
}

namespace {

class ExportedProgramImporter : public GraphImporter {
public:
    bool reads(const Model& model) const override { return model.d().exported != nullptr; }
    TraceResult importGraph(const Model& model) const override {
        try {
            return ExportGraphBuilder(*model.d().exported).run();
        } catch (const std::exception& e) {
            TraceResult result;
            result.error = std::string("Cannot read this torch.export program: ") + e.what() + ".";
            return result;
        }
    }
};

} // namespace

const GraphImporter& exportedProgramImporter() {
    static const ExportedProgramImporter importer;
    return importer;
}

} // namespace fxview
