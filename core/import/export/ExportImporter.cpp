// The execution plan of a torch.export program: a step per node of the graph ExportGraphWalk
// makes (placeholders in signature order, a call per serialized node, getitems, one output
// returning the tuple of every output spec), each computing its value from earlier slots.

#include "ExportImporter.h"

#include "ExportPlanBuilder.h"
#include "ExportedInputs.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <stdexcept>

#include "ModelPrivate.h"
#include "RunRecord.h"
#include "TorchSave.h"
#include "TorchValues.h"

namespace fxview {

TraceResult ExportPlanBuilder::run() {
    TraceResult result;
    result.graph = ExportGraphWalk(model_.program, *this).run();
    if (inputsNest(model_.program))
        plan_->flattenInputs = [model = model_.shared_from_this()](const c10::IValue& given,
                                                                   std::vector<c10::IValue>& out) {
            return flattenExportedInputs(model->program, given, out);
        };
    result.plan = std::move(plan_);
    return result;
}

void ExportPlanBuilder::commit(Step step, const WalkedNode& walked) {
    step.name = walked.name;
    step.slot = plan_->slotCount++;
    int id = static_cast<int>(plan_->steps.size());
    plan_->stepOf[walked.name] = id;
    scope().slotOf[walked.local] = step.slot;
    scope().steps->push_back(id);
    plan_->steps.push_back(std::move(step));
}

void ExportPlanBuilder::placeholder(const ExportedInput& in, const WalkedNode& walked) {
    Step step;
    using K = ExportedInput::Kind;
    if (in.kind == K::UserInput) {
        step.kind = Step::Kind::Placeholder;
        step.index = plan_->placeholders++;
        plan_->inputs.push_back(inputSpec(in.name));
    } else if (in.kind == K::Constant) {
        // A leaf export specialised away: the graph's placeholder gets the value ep.module()
        // checked it against (ExportedInputs.h).
        step.kind = Step::Kind::Attribute;
        step.attribute = sourceOf(in.value).constant;
    } else if (in.kind == K::Token) {
        // An effect token (with_effects): ep.module() starts from torch.tensor([]) itself.
        step.kind = Step::Kind::Attribute;
        step.attribute = at::empty({0});
    } else {
        step.kind = Step::Kind::Attribute;
        // Non-persistent buffers travel with the constants, not the state dict, as
        // ExportedProgram._graph_module_flat_inputs reads them.
        bool constant = in.kind == K::TensorConstant || (in.kind == K::Buffer && !in.persistent);
        std::vector<std::int64_t> shape;
        if (auto meta = model_.program.tensors.find(in.name); meta != model_.program.tensors.end())
            shape = meta->second.sizes;
        step.loadAttribute = [model = model_.shared_from_this(), name = in.target, shape,
                              constant]() {
            at::Tensor t = model->weight(name, constant);
            if (!shape.empty() && t.sizes().vec() != shape)
                throw std::runtime_error(
                    "The archive's weights do not match its signature: " + name + " is " +
                    formatShape(t.sizes().vec()) + " in the weights but " + formatShape(shape) +
                    " in the graph; export it again");
            return c10::IValue(t);
        };
    }
    commit(std::move(step), walked);
}

PlaceholderSpec ExportPlanBuilder::inputSpec(const std::string& name) const {
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

ValueSource ExportPlanBuilder::sourceOf(const ExportedValue& v) const {
    using K = ExportedValue::Kind;
    auto slot = [&](const std::string& name) {
        auto it = scope().slotOf.find(name);
        if (it == scope().slotOf.end())
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
        if (v.items.empty()) // every member a whole number
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
    case K::Complex:
        return ValueSource::ofConstant(c10::complex<double>(v.real, v.imag));
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

std::function<c10::IValue(const c10::IValue&)> ExportPlanBuilder::outputShaper() const {
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

c10::IValue ExportPlanBuilder::rebuilt(const OutputTree& tree, const std::vector<c10::IValue>& flat,
                                       std::size_t& next) {
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

void ExportPlanBuilder::output(const WalkedNode& walked) {
    ValueSource tuple;
    tuple.kind = ValueSource::Kind::Tuple;
    for (const ExportedOutput& out : model_.program.outputs)
        tuple.items.push_back(sourceOf(out.value));
    Step step;
    step.kind = Step::Kind::Output;
    step.inputs = {tuple};
    step.shapeOutput = outputShaper();
    commit(std::move(step), walked);
}

namespace {

class ExportedProgramImporter : public GraphImporter {
public:
    bool reads(const Model& model) const override { return model.d().exported != nullptr; }
    TraceResult importGraph(const Model& model) const override {
        try {
            // The only program this importer reads is the one its loader made (ModelLoading).
            return ExportPlanBuilder(static_cast<const ExportedModel&>(*model.d().exported)).run();
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
