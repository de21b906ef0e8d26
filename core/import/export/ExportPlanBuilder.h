#pragma once
// Core-internal, private to import/export/: the execution plan of a torch.export program, a step
// per node of the graph ExportGraphWalk makes, built as the walk tells of each node. Its work is
// spread over three files:
//   ExportImporter.cpp   placeholders, values and their slots, the output and its out_spec
//                        structure, the importer itself
//   ExportCalls.cpp      call_function steps: the ATen overload, its inputs, the getitems of an
//                        op returning several values
//   ExportHops.cpp       higher-order ops (torch.cond, while_loop, scan...) and their subgraphs
//                        (AutoFunctionalized.cpp: how auto_functionalized runs its op)

#include <torch/csrc/jit/runtime/operator.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ExportGraphWalk.h"
#include "ExportedModel.h"
#include "Importer.h"
#include "PlanPrivate.h"

namespace fxview {

class ExportPlanBuilder : public ExportWalkListener {
public:
    explicit ExportPlanBuilder(const ExportedModel& model) : model_(model) {
        scopes_.push_back({{}, &plan_->top, {}});
        plan_->eagerGrad = true;
    }

    // The walk's graph and this plan.
    TraceResult run();

    // LibTorch's schema of the op, loading torchvision's or torchaudio's library for their
    // namespaces; null when no loaded library has it.
    const OperatorSchema* schemaOf(const std::string& target) override;
    void placeholder(const ExportedInput& in, const WalkedNode& walked) override;
    void symbolicCall(const ExportedNode& n, const WalkedNode& walked) override;
    void call(const ExportedNode& n, const std::vector<PlacedArgument>* placed,
              const WalkedNode& walked) override;
    void getItem(const std::string& whole, std::size_t index, const WalkedNode& walked) override;
    void enterSubgraph(const ExportedGraph& g, const std::string& prefix) override;
    void leaveSubgraph(const ExportedGraph& g) override;
    void subgraphAttribute(const ExportedValue& graph, const WalkedNode& walked) override;
    void hop(const ExportedNode& n, const HopLayout& layout, bool single,
             const WalkedNode& walked) override;
    void output(const WalkedNode& walked) override;

private:
    // The steps of a graph's namespace: the program's, or a subgraph's.
    struct Scope {
        std::map<std::string, int> slotOf; // serialized value name -> slot
        std::vector<int>* steps = nullptr;
        std::vector<StepBlock> blocks; // the subgraphs walked since this scope's last hop
    };

    const ExportedModel& model_;
    std::shared_ptr<ExecutionPlan> plan_ = std::make_shared<ExecutionPlan>();
    std::vector<Scope> scopes_;
    // The subgraphs' steps while they are walked (a Scope's `steps` points into one).
    std::vector<std::unique_ptr<StepBlock>> walking_;
    struct Called {
        std::shared_ptr<torch::jit::Operator> op;
        OperatorSchema schema;
        std::string why; // what is missing when op is null
    };
    std::map<std::string, Called> called_; // by target

    Scope& scope() { return scopes_.back(); }
    const Scope& scope() const { return scopes_.back(); }

    // Gives the step its slot and appends it where the walk appended its node.
    void commit(Step step, const WalkedNode& walked);

    // A user input: its example value (serialized_example_inputs.pt) when the archive has one,
    // else its recorded shape; a dynamic dimension keeps its declared range for the check.
    PlaceholderSpec inputSpec(const std::string& name) const;

    ValueSource sourceOf(const ExportedValue& v) const;

    // "torch.ops.aten.linear.default" -> aten::linear with overload "".
    static std::optional<c10::OperatorName> operatorName(const std::string& target);

    // The operator `target` names ("torch.ops.aten.linear.default"), loading torchvision's or
    // torchaudio's library for their namespaces; null with `why` saying what is missing and
    // what would run it (`caller`: the higher-order op calling it, if any).
    std::shared_ptr<torch::jit::Operator>
    calledOperator(const std::string& target, const std::string& caller, std::string& why);

    // ep.module()'s return from the graph's flat outputs: the user outputs (the buffers the
    // program mutates are applied, not returned) in the out_spec's structure. Unset when the
    // program keeps no structure fxview rebuilds, or it does not match the outputs.
    std::function<c10::IValue(const c10::IValue&)> outputShaper() const;

    static c10::IValue rebuilt(const OutputTree& tree, const std::vector<c10::IValue>& flat,
                               std::size_t& next);
};

} // namespace fxview
