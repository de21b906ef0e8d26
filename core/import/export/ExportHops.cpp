// The higher-order ops of a torch.export program (torch.ops.higher_order.*), as PyTorch's
// deserializer makes them: every input positional unless the file names it a keyword
// (deserialize_hoo_inputs), each subgraph a get_attr before the op and a block inside it, the
// op named by the file's Node.name (else its one output, else its target). torch.cond runs as
// an if; while_loop, scan, map_impl, invoke_subgraph and the grad-mode and autocast wrappers as
// a Hop step (InterpreterHops.cpp); with_effects calls its op and hands back a fresh token;
// auto_functionalized (v1 and v2) calls its op on clones (AutoFunctionalized.cpp). Others are
// drawn and printed, and running one stops there with a sentence naming it.

#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <stdexcept>

#include "AutoFunctionalized.h"
#include "ExportGraphBuilder.h"
#include "OpLibraries.h"
#include "TorchSave.h"
#include "TorchValues.h"
#include "Versions.h"

namespace fxview {

namespace {

namespace jit = torch::jit;
using K = ExportedValue::Kind;

const std::string kHigherOrder = "torch.ops.higher_order.";

// Why a higher-order op's inputs are not what PyTorch writes for it.
[[noreturn]] void malformed(const ExportedNode& n, const std::string& what) {
    throw std::runtime_error(n.target + "'s inputs are not as PyTorch writes them: " + what);
}

const ExportedValue& inputAt(const ExportedNode& n, std::size_t i, K kind, const char* what) {
    if (i >= n.inputs.size() || n.inputs[i].second.kind != kind)
        malformed(n, std::string("input ") + std::to_string(i) + " should be " + what);
    return n.inputs[i].second;
}

// with_effects(token, op, *args): with_effects_dense calls op(*args) and returns a fresh token
// (torch.tensor([])) before the op's outputs, one by one when it returns several.
jit::Operation withEffectsOperation(std::shared_ptr<jit::Operator> op, std::size_t given) {
    return jit::Operation([op, given](jit::Stack& stack) {
        const c10::FunctionSchema& schema = op->schema();
        jit::Stack args(stack.end() - static_cast<std::ptrdiff_t>(given), stack.end());
        stack.resize(stack.size() - given - 1); // the args and the token
        for (std::size_t i = args.size(); i < schema.arguments().size(); ++i) {
            const auto& d = schema.arguments()[i].default_value();
            if (!d)
                throw std::runtime_error("with_effects gave " + schema.name() + " too few inputs");
            args.push_back(*d);
        }
        op->getOperation()(args);
        std::vector<c10::IValue> results{at::empty({0})};
        if (schema.returns().empty())
            results.push_back(c10::IValue());
        for (c10::IValue& v : args)
            results.push_back(std::move(v));
        stack.push_back(c10::ivalue::Tuple::create(std::move(results)));
    });
}

// "1 input", "3 outputs"
std::string counted(std::size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

} // namespace

std::shared_ptr<jit::Operator> ExportGraphBuilder::calledOperator(const std::string& target,
                                                                  const std::string& caller,
                                                                  std::string& why) {
    std::shared_ptr<jit::Operator> op;
    if (auto name = operatorName(target)) {
        op = jit::findOperatorFor(*name);
        // torchvision::nms, torchaudio::...: their package's library registers them.
        if (!op && loadPackagedOpLibrary(name->name.substr(0, name->name.find("::"))))
            op = jit::findOperatorFor(*name);
    }
    if (op)
        return op;
    const std::string called = caller.empty() ? target : target + " (called by " + caller + ")";
    if (target.rfind("torch.ops.aten.", 0) == 0) {
        // The PyTorch that exported the program has the op: name it, and the LibTorch to use.
        const std::string& writer = model_.program.torchVersion;
        const std::string wants = writer.empty()
                                      ? "a newer LibTorch"
                                      : "LibTorch " + writer.substr(0, writer.find_first_of("+a")) +
                                            " or newer (docs/building.md says how)";
        why = called + ", an ATen operator LibTorch " + libtorchVersion() +
              " (the one fxview runs on) lacks" +
              (writer.empty() ? "" : "; PyTorch " + writer + " exported it") +
              ": open it with an fxview built on " + wants;
    } else {
        why = called + ", a custom op no loaded library defines: give fxview the shared library "
                       "whose TORCH_LIBRARY registers it with --ops LIB.so (an op defined only "
                       "in Python has none, and fxview cannot run it)";
    }
    return nullptr;
}

void ExportGraphBuilder::hopArguments(const ExportedNode& n, Node& node, Step& step,
                                      const std::vector<std::size_t>& flattened) {
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& [name, v] = n.inputs[i];
        const int kind = i < n.inputKinds.size() ? n.inputKinds[i] : 0;
        // A subgraph's get_attr is named as torch.fx names it: invoke_subgraph's second call of
        // repeated_subgraph0 gets repeated_subgraph0_1, its block and nodes named after that.
        const std::string local = v.kind == K::Graph ? scope_->namer.create(v.name) : "";
        Argument argument = v.kind == K::Graph ? Argument::ofNode(local) : exportedArgument(v);
        if (kind == 1 || name.empty())
            node.args.push_back(std::move(argument));
        else
            node.kwargs.push_back({name, std::move(argument)});
        if (v.kind == K::Graph) {
            auto [block, stepBlock] = subgraph(local, *v.graph, node.scope);
            Step get;
            get.kind = Step::Kind::Attribute;
            get.subgraph = v.name + " (" + counted(v.graph->inputs.size(), "input") + ", " +
                           counted(v.graph->outputs.size(), "output") + ")";
            node.blocks.push_back(std::move(block));
            step.blocks.push_back(std::move(stepBlock));
            Node attr;
            attr.op = Op::GetAttr;
            attr.name = local;
            attr.target = v.name;
            attr.scope = node.scope;
            emit(std::move(attr), std::move(get));
        } else if (std::find(flattened.begin(), flattened.end(), i) != flattened.end()) {
            if (v.kind == K::Tensors)
                for (const ValueSource& item : sourceOf(v).items)
                    step.inputs.push_back(item);
            else
                step.inputs.push_back(sourceOf(v));
        }
    }
}

void ExportGraphBuilder::emitHop(const ExportedNode& n, Node node, Step step) {
    // deserialize_node: the file's name; else the one output, when it is the op's value.
    bool single =
        n.outputs.size() == 1 && n.outputs[0].kind == K::Tensor && n.hopSingleTensorReturn;
    node.name = !n.name.empty() ? n.name : single ? n.outputs[0].name : autoName(n.target);
    // torch.cond's value is the list of its branch's results, one result or several.
    step.yieldsList = step.kind == Step::Kind::If || !single;
    std::string whole = emit(std::move(node), std::move(step),
                             !n.name.empty() || single ? Naming::Program : Naming::Fresh);
    if (!single)
        getItems(n.outputs, whole);
}

void ExportGraphBuilder::higherOrder(const ExportedNode& n, Node node) {
    const std::string op = n.target.substr(kHigherOrder.size());
    std::vector<std::size_t> all(n.inputs.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    Step step;
    if (op == "cond") {
        // cond(pred, true_graph, false_graph, operands), run like TorchScript's if: the
        // branch's placeholders take the operands.
        step.kind = Step::Kind::If;
        hopArguments(n, node, step, all);
        return emitHop(n, std::move(node), std::move(step));
    }
    if (op == "with_effects") {
        // with_effects(token, op, *args)
        const std::string& target = inputAt(n, 1, K::Operator, "an operator").text;
        std::shared_ptr<jit::Operator> effect = calledOperator(target, op, step.unsupported);
        std::vector<std::size_t> operands{0};
        for (std::size_t i = 2; i < n.inputs.size(); ++i)
            operands.push_back(i);
        hopArguments(n, node, step, operands);
        if (effect)
            step.operation = withEffectsOperation(effect, operands.size() - 1);
        return emitHop(n, std::move(node), std::move(step));
    }
    if (op == "auto_functionalized" || op == "auto_functionalized_v2") {
        // auto_functionalized[_v2](_mutable_op, **kwargs): each keyword's value whole (lists as
        // lists), named for the call.
        const std::string& target = inputAt(n, 0, K::Operator, "an operator").text;
        std::shared_ptr<jit::Operator> mutating = calledOperator(target, op, step.unsupported);
        std::vector<std::string> names;
        for (std::size_t i = 1; i < n.inputs.size(); ++i) {
            names.push_back(n.inputs[i].first);
            step.inputs.push_back(sourceOf(n.inputs[i].second));
        }
        hopArguments(n, node, step, {});
        if (mutating)
            step.operation = autoFunctionalizedOperation(op == "auto_functionalized"
                                                             ? AutoFunctionalizedKind::V1
                                                             : AutoFunctionalizedKind::V2,
                                                         mutating, std::move(names));
        return emitHop(n, std::move(node), std::move(step));
    }
    // A node of a known op that is not as PyTorch writes it is drawn, and says why it cannot run.
    auto unsupported = [&](const std::string& why) {
        step = Step();
        step.kind = Step::Kind::Operator;
        step.unsupported = why;
        hopArguments(n, node, step, {});
        emitHop(n, std::move(node), std::move(step));
    };
    HopSpec spec;
    std::vector<std::size_t> operands;
    try {
        if (op == "while_loop") {
            // while_loop(cond_graph, body_graph, carried_inputs, additional_inputs)
            spec.kind = HopSpec::Kind::WhileLoop;
            spec.carried = inputAt(n, 2, K::Tensors, "the carried inputs").names.size();
            inputAt(n, 3, K::Tensors, "the additional inputs");
            operands = {2, 3};
        } else if (op == "scan") {
            // scan(combine_graph, init, xs, additional_inputs)
            spec.kind = HopSpec::Kind::Scan;
            spec.carried = inputAt(n, 1, K::Tensors, "init").names.size();
            spec.mapped = inputAt(n, 2, K::Tensors, "xs").names.size();
            inputAt(n, 3, K::Tensors, "the additional inputs");
            operands = {1, 2, 3};
        } else if (op == "map_impl") {
            // map_impl(body_graph, xs, pos_args)
            spec.kind = HopSpec::Kind::Map;
            spec.mapped = inputAt(n, 1, K::Tensors, "xs").names.size();
            inputAt(n, 2, K::Tensors, "the other arguments");
            operands = {1, 2};
        } else if (op == "wrap_with_set_grad_enabled") {
            // wrap_with_set_grad_enabled(enabled, graph, *args)
            spec.kind = HopSpec::Kind::SetGrad;
            spec.grad = inputAt(n, 0, K::Bool, "a bool").boolean;
            inputAt(n, 1, K::Graph, "a graph");
            operands.assign(all.begin() + 2, all.end());
        } else if (op == "wrap_with_autocast") {
            // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, *args)
            spec.kind = HopSpec::Kind::Autocast;
            spec.device = c10::Device(inputAt(n, 0, K::String, "a device type").text).type();
            if (n.inputs.size() > 1 && n.inputs[1].second.kind == K::ScalarType)
                spec.dtype = scalarTypeOfExported(static_cast<int>(n.inputs[1].second.integer));
            spec.enabled = inputAt(n, 2, K::Bool, "enabled").boolean;
            spec.cacheEnabled = inputAt(n, 3, K::Bool, "cache_enabled").boolean;
            inputAt(n, 4, K::Graph, "a graph");
            operands.assign(all.begin() + 5, all.end());
        } else if (op == "invoke_subgraph") {
            // invoke_subgraph(subgraph, identifier, *operands)
            spec.kind = HopSpec::Kind::Call;
            inputAt(n, 0, K::Graph, "a graph");
            operands.assign(all.begin() + 2, all.end());
        } else {
            return unsupported(n.target + ", a higher-order op fxview draws but does not run yet");
        }
    } catch (const std::runtime_error& e) {
        return unsupported(e.what());
    }
    step.kind = Step::Kind::Hop;
    step.hop = spec;
    hopArguments(n, node, step, operands);
    std::size_t blocks = spec.kind == HopSpec::Kind::WhileLoop ? 2 : 1;
    if (step.blocks.size() != blocks)
        malformed(n, "it should have " + std::to_string(blocks) + " subgraph(s)");
    emitHop(n, std::move(node), std::move(step));
}

std::pair<Block, StepBlock> ExportGraphBuilder::subgraph(const std::string& name,
                                                         const ExportedGraph& g,
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

} // namespace fxview
