// The graph PyTorch 2.6's deserializer builds (torch/_export/serde/serialize.py, GraphModule-
// Deserializer): placeholders in signature order, one call_function per serialized node named
// after its tensor output, getitem nodes for the outputs of an op that returns several, and one
// output returning the tuple of every output spec. Arguments go where deserialize_inputs puts
// them: positional while the schema argument has no default, keyword after.

#include "ExportImporter.h"

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

class Importer {
public:
    explicit Importer(const ExportedModel& model) : model_(model) {
        top_.nodes = &graph_.nodes;
        top_.steps = &plan_->top;
        scope_ = &top_;
    }

    TraceResult run() {
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

private:
    // A graph's namespace: the program's, or a subgraph's (torch.cond's branches name their
    // placeholders x, p_fc_weight... again). A subgraph's nodes are shown as
    // `true_graph_0.sin`, so every name in the whole Graph stays unique.
    struct Namespace {
        std::string prefix;
        NodeNamer namer;
        std::map<std::string, int> slotOf; // serialized value name -> slot
        std::vector<Node>* nodes = nullptr;
        std::vector<int>* steps = nullptr;
    };

    const ExportedModel& model_;
    Graph graph_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    Namespace top_;
    Namespace* scope_;

    // Appends the node and its step; returns the node's name in its namespace. A name from the
    // program is kept as it is (sync_fx_node); one torch.fx makes up (`split_tensor`) is made
    // unique.
    enum class Naming { Program, Fresh };
    std::string emit(Node node, Step step, Naming naming = Naming::Program) {
        std::string local = node.name;
        if (naming == Naming::Program)
            scope_->namer.claim(local);
        else
            local = scope_->namer.create(local);
        node.name = scope_->prefix + local;
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

    void prefixRefs(Argument& a) const {
        if (a.kind == Argument::Kind::NodeRef)
            a.text = scope_->prefix + a.text;
        for (Argument& item : a.items)
            prefixRefs(item);
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
            plan_->inputs.push_back(inputSpec(in.name));
        } else {
            node.placeholderKind = in.kind == K::Parameter        ? PlaceholderKind::Parameter
                                   : in.kind == K::TensorConstant ? PlaceholderKind::Constant
                                                                  : PlaceholderKind::Buffer;
            step.kind = Step::Kind::Attribute;
            // Non-persistent buffers travel with the constants, not the state dict, as
            // ExportedProgram._graph_module_flat_inputs reads them.
            bool constant =
                in.kind == K::TensorConstant || (in.kind == K::Buffer && !in.persistent);
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

    // A user input: its example value (serialized_example_inputs.pt) when the archive has one,
    // else its recorded shape; a dynamic dimension keeps its declared range for the check.
    PlaceholderSpec inputSpec(const std::string& name) const {
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

    ValueSource sourceOf(const ExportedValue& v) const {
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

    // torch.fx's name for a node of this target when nothing names it:
    // "torch.ops.aten.split.Tensor" -> "split_tensor", "torch.ops.higher_order.cond" -> "cond".
    static std::string autoName(const std::string& target) {
        const std::string prefix = "torch.ops.";
        std::string overload = target.substr(target.rfind(prefix, 0) == 0 ? prefix.size() : 0);
        std::string name = NodeNamer::snakeCase(overload.substr(overload.find('.') + 1));
        for (char& c : name)
            c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return name;
    }

    static bool namesItsNode(const ExportedValue& v) {
        return v.kind == ExportedValue::Kind::Tensor || v.kind == ExportedValue::Kind::SymInt;
    }

    void callFunction(const ExportedNode& n) {
        Node node;
        node.op = Op::CallFunction;
        node.target = n.target;
        std::tie(node.scope, node.scopeType) = scopeOf(n.nnModuleStack);
        node.sourceTrace = n.stackTrace;
        if (n.target == "torch.ops.higher_order.cond")
            return cond(n, std::move(node));
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
            bool named = !n.outputs.empty();
            node.name = named ? n.outputs[0].name : autoName(n.target);
            emit(std::move(node), std::move(step), named ? Naming::Program : Naming::Fresh);
            return;
        }
        std::shared_ptr<jit::Operator> op;
        if (auto name = operatorName(n.target)) {
            op = jit::findOperatorFor(*name);
            // torchvision::nms, torchaudio::...: their package's library registers them.
            if (!op && loadPackagedOpLibrary(name->name.substr(0, name->name.find("::"))))
                op = jit::findOperatorFor(*name);
        }
        std::map<std::string, const ExportedValue*> actual;
        for (const auto& [argName, value] : n.inputs)
            actual[argName] = &value;
        if (op) {
            const c10::FunctionSchema& schema = op->schema();
            node.schema = schema.operator_name().name +
                          (schema.overload_name().empty() ? "" : "." + schema.overload_name());
            std::vector<std::size_t> numbersAsTensors;
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
                step.operation =
                    wrappingNumbers(*step.operation, numbersAsTensors, step.inputs.size());
            step.outputs = static_cast<int>(schema.returns().size());
        } else {
            // Kept in the graph, its inputs as keywords; running it stops there with a sentence.
            for (const auto& [argName, value] : n.inputs)
                node.kwargs.push_back({argName, exportedArgument(value)});
            step.unsupported =
                n.target.rfind("torch.ops.aten.", 0) == 0
                    ? n.target + ", an ATen operator this LibTorch lacks (the program was "
                                 "exported by a newer PyTorch)"
                    : n.target + ", which is not an ATen operator (a custom op library's): "
                                 "fxview runs the operators LibTorch registers; export the model "
                                 "without it";
        }
        // One tensor or symbolic output names the node (deserialize_outputs' sync_fx_node);
        // otherwise torch.fx names it after the op and getitem nodes take the outputs' names.
        bool named = n.outputs.size() == 1 && namesItsNode(n.outputs[0]);
        node.name = named ? n.outputs[0].name : autoName(n.target);
        std::string whole =
            emit(std::move(node), std::move(step), named ? Naming::Program : Naming::Fresh);
        if (!named)
            getItems(n.outputs, whole);
    }

    // deserialize_multiple_outputs: a getitem per output; a list output gets a getitem of its own
    // whose items are getitems again; a single list output's items are the node's.
    void getItems(const std::vector<ExportedValue>& outputs, const std::string& whole) {
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

    void listItems(const std::vector<std::string>& names, const std::string& list) {
        for (std::size_t i = 0; i < names.size(); ++i)
            getItem(list, i, names[i]);
    }

    std::string getItem(const std::string& whole, std::size_t index, const std::string& name,
                        Naming naming = Naming::Program) {
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

    // torch.ops.higher_order.cond(pred, true_graph_0, false_graph_0, operands): each branch a
    // get_attr of its subgraph, then the cond node holding both as blocks, run like
    // TorchScript's if: the branch's placeholders take the operands, its outputs are a list.
    void cond(const ExportedNode& n, Node node) {
        Step step;
        step.kind = Step::Kind::If;
        step.yieldsList = true;
        for (const auto& input : n.inputs) {
            const ExportedValue& v = input.second;
            node.args.push_back(exportedArgument(v));
            if (v.kind == ExportedValue::Kind::Graph) {
                auto [block, stepBlock] = subgraph(v.name, *v.graph, node.scope);
                node.blocks.push_back(std::move(block));
                step.blocks.push_back(std::move(stepBlock));
                Node attr;
                attr.op = Op::GetAttr;
                attr.name = attr.target = v.name;
                attr.scope = node.scope;
                Step get;
                get.kind = Step::Kind::Attribute;
                emit(std::move(attr), std::move(get));
            } else if (v.kind == ExportedValue::Kind::Tensors) {
                for (const ValueSource& item : sourceOf(v).items)
                    step.inputs.push_back(item);
            } else {
                step.inputs.push_back(sourceOf(v));
            }
        }
        bool named = n.outputs.size() == 1 && n.outputs[0].kind == ExportedValue::Kind::Tensor;
        node.name = named ? n.outputs[0].name : autoName(n.target);
        std::string whole =
            emit(std::move(node), std::move(step), named ? Naming::Program : Naming::Fresh);
        if (!named)
            getItems(n.outputs, whole);
    }

    std::pair<Block, StepBlock> subgraph(const std::string& name, const ExportedGraph& g,
                                         const std::string& scope) {
        Block block;
        block.label = name;
        block.subgraph = true;
        StepBlock steps;
        Namespace inner;
        inner.prefix = scope_->prefix + name + ".";
        inner.nodes = &block.nodes;
        inner.steps = &steps.steps;
        Namespace* outer = scope_;
        scope_ = &inner;
        for (const ExportedValue& in : g.inputs) {
            inner.namer.claim(in.name);
            block.params.push_back(inner.prefix + in.name);
            steps.params.push_back(plan_->slotCount);
            inner.slotOf[in.name] = plan_->slotCount++;
        }
        for (const ExportedNode& n : g.nodes)
            callFunction(n);
        for (const ExportedValue& out : g.outputs) {
            Argument result = exportedArgument(out);
            prefixRefs(result);
            block.results.push_back(result);
            steps.results.push_back(sourceOf(out));
        }
        for (Node& n : block.nodes)
            if (n.scope.empty())
                n.scope = scope;
        scope_ = outer;
        return {std::move(block), std::move(steps)};
    }

    // The innermost module of "L__self__,,__main__.TinyNet;L__self___fc1,L['self'].fc1,..."
    // as a module path: "fc1". Nodes export adds itself (sym_size for a dynamic dimension) carry
    // a placeholder entry, "_empty_nn_module_stack_from_metadata_hook": no module.
    static std::pair<std::string, std::string> scopeOf(const std::string& stack) {
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

    // ep.module()'s return from the graph's flat outputs: the user outputs (the buffers the
    // program mutates are applied, not returned) in the out_spec's structure. Unset when the
    // program keeps no structure fxview rebuilds, or it does not match the outputs.
    std::function<c10::IValue(const c10::IValue&)> outputShaper() const {
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

    static c10::IValue rebuilt(const OutputTree& tree, const std::vector<c10::IValue>& flat,
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
                dict.insert(static_cast<std::int64_t>(std::stoll(tree.keys[i])),
                            std::move(items[i]));
            else
                dict.insert(tree.keys[i], std::move(items[i]));
        }
        return dict;
    }

    void output() {
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
};

} // namespace

namespace {

class ExportedProgramImporter : public GraphImporter {
public:
    bool reads(const Model& model) const override { return model.d().exported != nullptr; }
    TraceResult importGraph(const Model& model) const override {
        try {
            return Importer(*model.d().exported).run();
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
