// The graph PyTorch 2.6's deserializer builds (torch/_export/serde/serialize.py, GraphModule-
// Deserializer): placeholders in signature order, one call_function per serialized node named
// after its tensor output, getitem nodes for the outputs of an op that returns several, and one
// output returning the tuple of every output spec. Arguments go where deserialize_inputs puts
// them: positional while the schema argument has no default, keyword after.

#include "ExportImporter.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/csrc/jit/serialization/import_read.h>

#include <cstring>
#include <set>
#include <stdexcept>

#include "ModelPrivate.h"
#include "NodeNamer.h"
#include "PlanPrivate.h"
#include "TorchValues.h"
#include "ZipArchive.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// A torch.save archive held in memory (a member of the .pt2), for LibTorch's zip reader.
class BytesReader : public caffe2::serialize::ReadAdapterInterface {
public:
    explicit BytesReader(const std::string& bytes) : bytes_(bytes) {}
    size_t size() const override { return bytes_.size(); }
    size_t read(uint64_t pos, void* buf, size_t n, const char*) const override {
        if (pos >= bytes_.size())
            return 0;
        n = std::min<size_t>(n, bytes_.size() - pos);
        std::memcpy(buf, bytes_.data() + pos, n);
        return n;
    }

private:
    const std::string& bytes_;
};

// torch.save's state dicts hold nn.Parameters, pickled as torch._utils._rebuild_parameter(data,
// requires_grad, hooks), which LibTorch's unpickler does not know: it is read as an object whose
// one slot is the tensor, unwrapped below.
std::map<std::string, at::Tensor> readTensorDict(const std::string& bytes,
                                                 const std::string& what) {
    auto cu = std::make_shared<jit::CompilationUnit>();
    auto resolver = [cu](const c10::QualifiedName& name) -> c10::StrongTypePtr {
        if (name.qualifiedName() != "torch._utils._rebuild_parameter" &&
            name.qualifiedName() != "torch._utils._rebuild_parameter_with_state")
            throw std::runtime_error("it holds a " + name.qualifiedName() + ", not tensors");
        auto type = c10::ClassType::create(name, cu);
        type->addAttribute("data", c10::TensorType::get());
        return c10::StrongTypePtr(cu, type);
    };
    auto loader = [](const c10::StrongTypePtr& type, c10::IValue args) {
        auto object = c10::ivalue::Object::create(type, 1);
        object->setSlot(0, args.isTuple() ? args.toTupleRef().elements().at(0) : args);
        return object;
    };
    std::map<std::string, at::Tensor> tensors;
    try {
        caffe2::serialize::PyTorchStreamReader reader(std::make_unique<BytesReader>(bytes));
        c10::IValue dict = jit::readArchiveAndTensors("data", "", "", resolver, loader,
                                                      c10::Device(c10::kCPU), reader);
        if (!dict.isGenericDict())
            throw std::runtime_error("it is not a dict of tensors");
        for (const auto& item : dict.toGenericDict()) {
            c10::IValue v = item.value();
            if (v.isObject())
                v = v.toObjectRef().getSlot(0);
            if (item.key().isString() && v.isTensor())
                tensors[item.key().toStringRef()] = v.toTensor();
        }
    } catch (const std::exception& e) {
        throw std::runtime_error("its " + what + " cannot be read (" + firstLineOf(e) + ")");
    }
    return tensors;
}

c10::ScalarType scalarTypeOf(int code) {
    switch (code) {
    case 1:
        return c10::kByte;
    case 2:
        return c10::kChar;
    case 3:
        return c10::kShort;
    case 4:
        return c10::kInt;
    case 5:
        return c10::kLong;
    case 6:
        return c10::kHalf;
    case 7:
        return c10::kFloat;
    case 8:
        return c10::kDouble;
    case 10:
        return c10::kComplexFloat;
    case 11:
        return c10::kComplexDouble;
    case 12:
        return c10::kBool;
    case 13:
        return c10::kBFloat16;
    default:
        return c10::kFloat;
    }
}

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

class Importer {
public:
    explicit Importer(const ExportedModel& model) : model_(model) {}

    TraceResult run() {
        const ExportedProgram& p = model_.program;
        for (const ExportedInput& in : p.inputs)
            placeholder(in);
        for (const ExportedNode& n : p.nodes)
            callFunction(n);
        output();
        graph_.recomputeUsers();
        TraceResult result;
        result.graph = std::move(graph_);
        result.plan = std::move(plan_);
        return result;
    }

private:
    const ExportedModel& model_;
    Graph graph_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    NodeNamer namer_;
    std::map<std::string, int> slotOf_; // serialized value name -> slot

    int emit(Node node, Step step) {
        node.name = namer_.create(node.name);
        step.name = node.name;
        step.slot = plan_->slotCount++;
        int id = static_cast<int>(plan_->steps.size());
        plan_->stepOf[node.name] = id;
        slotOf_[node.name] = step.slot;
        graph_.nodes.push_back(std::move(node));
        plan_->top.push_back(id);
        plan_->steps.push_back(std::move(step));
        return id;
    }

    void placeholder(const ExportedInput& in) {
        Node node;
        node.op = Op::Placeholder;
        node.name = in.name;
        node.target = in.name;
        Step step;
        using K = ExportedInput::Kind;
        if (in.kind == K::UserInput) {
            step.kind = Step::Kind::Placeholder;
            step.index = plan_->placeholders++;
            PlaceholderSpec spec{in.name, c10::TensorType::get(), std::nullopt,
                                 "the shape of the archive's example input"};
            auto meta = model_.program.tensors.find(in.name);
            if (meta != model_.program.tensors.end() &&
                std::find(meta->second.sizes.begin(), meta->second.sizes.end(), -1) ==
                    meta->second.sizes.end())
                spec.type = c10::TensorType::createContiguous(scalarTypeOf(meta->second.dtype),
                                                              c10::Device(c10::kCPU),
                                                              c10::IntArrayRef(meta->second.sizes));
            plan_->inputs.push_back(std::move(spec));
        } else {
            node.placeholderKind = in.kind == K::Parameter        ? PlaceholderKind::Parameter
                                   : in.kind == K::TensorConstant ? PlaceholderKind::Constant
                                                                  : PlaceholderKind::Buffer;
            step.kind = Step::Kind::Attribute;
            // Non-persistent buffers travel with the constants, not the state dict, as
            // ExportedProgram._graph_module_flat_inputs reads them.
            bool constant =
                in.kind == K::TensorConstant || (in.kind == K::Buffer && !in.persistent);
            const auto& from = constant ? model_.constants : model_.stateDict;
            auto it = from.find(in.target);
            if (it == from.end())
                throw std::runtime_error("its weights do not match its signature: " + in.target +
                                         " is missing");
            step.attribute = it->second;
            node.tensors.push_back(heldTensor(in.target, it->second));
        }
        emit(std::move(node), std::move(step));
    }

    ValueSource sourceOf(const ExportedValue& v) {
        using K = ExportedValue::Kind;
        auto slot = [&](const std::string& name) {
            auto it = slotOf_.find(name);
            if (it == slotOf_.end())
                throw std::runtime_error("value %" + name + " is used before it is made");
            return ValueSource::ofSlot(it->second);
        };
        switch (v.kind) {
        case K::None:
            return ValueSource::ofConstant(c10::IValue());
        case K::Tensor:
        case K::SymInt:
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
                static_cast<std::int64_t>(scalarTypeOf(static_cast<int>(v.integer))));
        case K::MemoryFormat: {
            const c10::MemoryFormat formats[] = {
                c10::MemoryFormat::Contiguous, c10::MemoryFormat::Contiguous,
                c10::MemoryFormat::ChannelsLast, c10::MemoryFormat::ChannelsLast3d,
                c10::MemoryFormat::Preserve};
            return ValueSource::ofConstant(static_cast<std::int64_t>(
                formats[v.integer >= 0 && v.integer <= 4 ? v.integer : 0]));
        }
        case K::Layout:
            return ValueSource::ofConstant(static_cast<std::int64_t>(c10::kStrided));
        case K::Device:
            return ValueSource::ofConstant(c10::Device(v.text));
        case K::Unsupported:
            throw std::runtime_error("an argument of kind " + v.text + " is not read yet");
        }
        return ValueSource::ofConstant(c10::IValue());
    }

    // "torch.ops.aten.linear.default" -> aten::linear with overload "".
    static std::optional<c10::OperatorName> operatorName(const std::string& target) {
        const std::string prefix = "torch.ops.";
        if (target.rfind(prefix, 0) != 0)
            return std::nullopt;
        std::string rest = target.substr(prefix.size());
        std::size_t dot1 = rest.find('.'), dot2 = rest.rfind('.');
        if (dot1 == std::string::npos || dot1 == dot2)
            return std::nullopt;
        std::string overload = rest.substr(dot2 + 1);
        return c10::OperatorName(rest.substr(0, dot1) +
                                     "::" + rest.substr(dot1 + 1, dot2 - dot1 - 1),
                                 overload == "default" ? "" : overload);
    }

    void callFunction(const ExportedNode& n) {
        Node node;
        node.op = Op::CallFunction;
        node.target = n.target;
        node.scope = scopeOf(n.nnModuleStack);
        Step step;
        step.kind = Step::Kind::Operator;
        std::shared_ptr<jit::Operator> op;
        if (auto name = operatorName(n.target))
            op = jit::findOperatorFor(*name);
        std::map<std::string, const ExportedValue*> actual;
        for (const auto& [argName, value] : n.inputs)
            actual[argName] = &value;
        bool singleTensor = false;
        if (op) {
            const c10::FunctionSchema& schema = op->schema();
            node.schema = schema.operator_name().name +
                          (schema.overload_name().empty() ? "" : "." + schema.overload_name());
            for (const c10::Argument& formal : schema.arguments()) {
                auto it = actual.find(formal.name());
                bool positional = !formal.default_value() && !formal.kwarg_only();
                if (positional || isPythonKeyword(formal.name())) {
                    if (it == actual.end())
                        throw std::runtime_error(n.target + " lacks its argument " + formal.name());
                    node.args.push_back(exportedArgument(*it->second));
                } else if (it != actual.end()) {
                    node.kwargs.push_back({formal.name(), exportedArgument(*it->second)});
                }
                step.inputs.push_back(it != actual.end()
                                          ? sourceOf(*it->second)
                                          : ValueSource::ofConstant(*formal.default_value()));
            }
            step.operation = op->getOperation();
            step.outputs = static_cast<int>(schema.returns().size());
            singleTensor = schema.returns().size() == 1 &&
                           schema.returns()[0].type()->kind() == c10::TypeKind::TensorType;
        } else {
            // Kept in the graph, its inputs as keywords; running it stops there with a sentence.
            for (const auto& [argName, value] : n.inputs)
                node.kwargs.push_back({argName, exportedArgument(value)});
            step.unsupported = n.target;
        }
        // Named after its tensor output, else after the op (torch.fx's _target_to_str).
        if (singleTensor && n.outputs.size() == 1 &&
            n.outputs[0].kind == ExportedValue::Kind::Tensor) {
            node.name = n.outputs[0].name;
            emit(std::move(node), std::move(step));
            return;
        }
        // "torch.ops.aten._native_batch_norm_legit_no_training.default" ->
        // "_native_batch_norm_legit_no_training_default", as torch.fx names an OpOverload.
        const std::string prefix = "torch.ops.";
        std::string overload = n.target.substr(n.target.rfind(prefix, 0) == 0 ? prefix.size() : 0);
        node.name = NodeNamer::snakeCase(overload.substr(overload.find('.') + 1));
        for (char& c : node.name)
            c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        int id = emit(std::move(node), std::move(step));
        std::string whole = plan_->steps[static_cast<std::size_t>(id)].name;
        for (std::size_t i = 0; i < n.outputs.size(); ++i) {
            const ExportedValue& out = n.outputs[i];
            if (out.kind != ExportedValue::Kind::Tensor && out.kind != ExportedValue::Kind::SymInt)
                continue;
            Node item;
            item.op = Op::CallFunction;
            item.target = "operator.getitem";
            item.name = out.name;
            item.scope = graph_.nodes.back().scope;
            item.args = {Argument::ofNode(whole), Argument::ofInt(static_cast<std::int64_t>(i))};
            Step get;
            get.kind = Step::Kind::GetItem;
            get.index = static_cast<int>(i);
            get.inputs = {ValueSource::ofSlot(slotOf_.at(whole))};
            emit(std::move(item), std::move(get));
        }
    }

    // The innermost module of "L__self__,,__main__.TinyNet;L__self___fc1,L['self'].fc1,..."
    // as a module path: "fc1".
    static std::string scopeOf(const std::string& stack) {
        std::size_t last = stack.rfind(';');
        if (last == std::string::npos)
            return {};
        std::string entry = stack.substr(last + 1);
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
        return path;
    }

    void output() {
        Node node;
        node.op = Op::Output;
        node.name = "output";
        node.target = "output";
        std::vector<Argument> items;
        ValueSource tuple;
        tuple.kind = ValueSource::Kind::Tuple;
        for (const ExportedOutput& out : model_.program.outputs) {
            items.push_back(exportedArgument(out.value));
            tuple.items.push_back(sourceOf(out.value));
        }
        node.args = {Argument::ofTuple(std::move(items))};
        Step step;
        step.kind = Step::Kind::Output;
        step.inputs = {tuple};
        emit(std::move(node), std::move(step));
    }
};

} // namespace

std::shared_ptr<ExportedModel> readExportedModel(const std::string& path) {
    ZipArchive zip;
    std::string why;
    if (!zip.open(path, why))
        throw std::runtime_error(why);
    auto member = [&](const std::string& name) {
        const ZipArchive::Entry* e = zip.find(name);
        if (!e)
            throw std::runtime_error("it lacks " + name + ", which torch.export.save writes");
        std::optional<std::string> bytes = zip.read(*e);
        if (!bytes)
            throw std::runtime_error("its " + name + " is compressed or cut short");
        return *bytes;
    };
    auto model = std::make_shared<ExportedModel>();
    model->program = parseExportedProgram(member("serialized_exported_program.json"));
    model->stateDict = readTensorDict(member("serialized_state_dict.pt"), "weights");
    model->constants = readTensorDict(member("serialized_constants.pt"), "constants");
    return model;
}

TraceResult importExportedProgram(const ExportedModel& model) {
    try {
        return Importer(model).run();
    } catch (const std::exception& e) {
        TraceResult result;
        result.error = std::string("Cannot read this torch.export program: ") + e.what() + ".";
        return result;
    }
}

} // namespace fxview
