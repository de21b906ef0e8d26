// The steps of a torch.export program's higher-order ops (torch.ops.higher_order.*): torch.cond
// runs as an if; while_loop, scan, map_impl, invoke_subgraph and the grad-mode and autocast
// wrappers as a Hop step (InterpreterHops.cpp); with_effects calls its op and hands back a fresh
// token; auto_functionalized (v1 and v2) calls its op on clones (AutoFunctionalized.cpp). Others
// are drawn and printed (ExportWalkHops.cpp), and running one stops there with a sentence
// naming it.

#include <torch/csrc/jit/runtime/operator.h>

#include <stdexcept>

#include "AutoFunctionalized.h"
#include "ExportPlanBuilder.h"
#include "OpLibraries.h"
#include "TorchSave.h"
#include "TorchValues.h"
#include "Versions.h"

namespace fxview {

namespace {

namespace jit = torch::jit;
using K = ExportedValue::Kind;

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

std::shared_ptr<jit::Operator> ExportPlanBuilder::calledOperator(const std::string& target,
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

void ExportPlanBuilder::enterSubgraph(const ExportedGraph& g, const std::string& prefix) {
    walking_.push_back(std::make_unique<StepBlock>());
    StepBlock& block = *walking_.back();
    Scope inner;
    inner.steps = &block.steps;
    for (const ExportedValue& in : g.inputs) {
        block.params.push_back(plan_->slotCount);
        inner.slotOf[in.name] = plan_->slotCount++;
    }
    scopes_.push_back(std::move(inner));
}

void ExportPlanBuilder::leaveSubgraph(const ExportedGraph& g) {
    StepBlock block = std::move(*walking_.back());
    walking_.pop_back();
    for (const ExportedValue& out : g.outputs)
        block.results.push_back(sourceOf(out));
    scopes_.pop_back();
    scope().blocks.push_back(std::move(block));
}

void ExportPlanBuilder::subgraphAttribute(const ExportedValue& graph, const WalkedNode& walked) {
    Step get;
    get.kind = Step::Kind::Attribute;
    get.subgraph = graph.name + " (" + counted(graph.graph->inputs.size(), "input") + ", " +
                   counted(graph.graph->outputs.size(), "output") + ")";
    commit(std::move(get), walked);
}

void ExportPlanBuilder::hop(const ExportedNode& n, const HopLayout& layout, bool single,
                            const WalkedNode& walked) {
    using H = HopLayout::Kind;
    Step step;
    step.kind = layout.kind == H::Cond ? Step::Kind::If : Step::Kind::Operator;
    step.blocks = std::move(scope().blocks);
    scope().blocks.clear();
    for (std::size_t i : layout.operands) {
        const ExportedValue& v = n.inputs[i].second;
        if (v.kind == K::Tensors)
            for (const ValueSource& item : sourceOf(v).items)
                step.inputs.push_back(item);
        else if (v.kind != K::Graph)
            step.inputs.push_back(sourceOf(v));
    }
    if (layout.kind == H::WithEffects) {
        const std::string& target = n.inputs[1].second.text;
        if (auto effect = calledOperator(target, layout.op, step.unsupported))
            step.operation = withEffectsOperation(effect, layout.operands.size() - 1);
    } else if (layout.kind == H::AutoFunctionalized) {
        const std::string& target = n.inputs[0].second.text;
        std::shared_ptr<jit::Operator> mutating =
            calledOperator(target, layout.op, step.unsupported);
        std::vector<std::string> names;
        for (std::size_t i = 1; i < n.inputs.size(); ++i) {
            names.push_back(n.inputs[i].first);
            step.inputs.push_back(sourceOf(n.inputs[i].second));
        }
        if (mutating)
            step.operation = autoFunctionalizedOperation(layout.op == "auto_functionalized"
                                                             ? AutoFunctionalizedKind::V1
                                                             : AutoFunctionalizedKind::V2,
                                                         mutating, std::move(names));
    } else if (layout.kind == H::Unsupported) {
        step.inputs.clear();
        step.unsupported = layout.unsupported;
    } else if (layout.kind != H::Cond) {
        step.kind = Step::Kind::Hop;
        HopSpec spec;
        spec.carried = layout.carried;
        spec.mapped = layout.mapped;
        const auto& in = n.inputs;
        switch (layout.kind) {
        case H::WhileLoop:
            spec.kind = HopSpec::Kind::WhileLoop;
            break;
        case H::Scan:
            spec.kind = HopSpec::Kind::Scan;
            break;
        case H::Map:
            spec.kind = HopSpec::Kind::Map;
            break;
        case H::SetGrad:
            spec.kind = HopSpec::Kind::SetGrad;
            spec.grad = in[0].second.boolean;
            break;
        case H::Autocast:
            spec.kind = HopSpec::Kind::Autocast;
            spec.device = c10::Device(in[0].second.text).type();
            if (in.size() > 1 && in[1].second.kind == K::ScalarType)
                spec.dtype = scalarTypeOfExported(static_cast<int>(in[1].second.integer));
            spec.enabled = in[2].second.boolean;
            spec.cacheEnabled = in[3].second.boolean;
            break;
        default:
            spec.kind = HopSpec::Kind::Call;
        }
        step.hop = spec;
    }
    // torch.cond's value is the list of its branch's results, one result or several.
    step.yieldsList = step.kind == Step::Kind::If || !single;
    commit(std::move(step), walked);
}

} // namespace fxview
