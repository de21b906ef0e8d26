#pragma once
// Core-internal: the state behind Interpreter's pimpl, the step machine. Its code is in three
// files: Interpreter.cpp (the public API, setting up and resetting a run), InterpreterSteps.cpp
// (running one step: simple steps, control flow, unwinding blocks, records, the child
// interpreter of Step Into), InterpreterHops.cpp (torch.export's higher-order ops),
// InterpreterInputs.cpp (the inputs a run starts from). Include only from those.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "BreakCondition.h"
#include "ExecutedPath.h"
#include "Interpreter.h"
#include "PlanPrivate.h"
#include "RunRecord.h"

namespace fxview {

struct Interpreter::Private {
    using Clock = std::chrono::steady_clock;

    // A block being run: the top level, a branch of an if, or a loop body.
    // What a higher-order op carries from one run of its blocks to the next (InterpreterHops.cpp).
    struct HopState;
    struct Frame {
        const std::vector<int>* steps = nullptr;
        std::size_t pc = 0;
        int owner = -1; // the If/Loop/Hop step, -1 at the top level
        std::int64_t iteration = 0;
        std::int64_t tripCount = 0;
        std::shared_ptr<HopState> hop; // a Hop step's: restores grad mode or autocast when dropped
    };

    std::shared_ptr<const Model> model;
    Graph graph;
    std::shared_ptr<const ExecutionPlan> plan;
    RunOptions options;
    std::vector<const Node*> nodeOf; // step id -> its fx node

    std::vector<c10::IValue> inputs;
    std::vector<ValueSummary> inputSummaries;
    std::unordered_map<std::string, BreakCondition> breakpoints;
    bool breakOnNonFinite = false;
    std::string stopNote; // why the last command stopped after a node: InterpreterWatch.cpp
    std::function<bool(const std::string&)> beforeNode; // setBeforeNode's; may be empty
    // Called with each value a step makes, after its record and before its slot holds it: a
    // comparison reads it there and may replace what later steps get (RunComparison.cpp).
    std::function<void(int id, c10::IValue& value)> afterStep;
    std::optional<c10::ScalarType> castTo;   // RunOptions::castTo
    std::vector<std::vector<int>> freeAfter; // top-level step id -> slots nobody needs after it
    // The live set (NodeCost.h): a top-level step's position in plan->top, and a slot's last
    // use as such a position (-1: none).
    std::vector<std::size_t> topPosition;
    std::vector<std::int64_t> lastUseAt;

    // The run's state; reset() clears it.
    std::vector<c10::IValue> slots;
    std::vector<NodeRecord> records;
    std::vector<Frame> frames;
    std::vector<std::string> order;
    std::string failure;
    bool failed = false;
    bool finished = false;
    c10::IValue output;
    // Step id -> the version counter of the tensor it made, when it made it (-1: not a tensor):
    // a later in-place op changes the value the Values view shows, and the view says so.
    std::vector<std::int64_t> versions;
    std::int64_t keptBytes = 0; // held past their last use, for the Values view
    // Top-level values a later top-level step uses, weights apart, in the order they were made:
    // (slot, step id).
    std::vector<std::pair<int, int>> liveValues;
    PeakLive peak; // the live set's peak so far in this run (NodeCost.h)
    std::unordered_set<const void*> weightStorages; // the storages weights hold
    c10::IValue captured;                           // options.capturedNode's value when it last ran
    bool hasCaptured = false;
    bool outputShaped = false; // output is ep.module()'s return already (Step::shapeOutput)
    std::string last;
    // stepInto: the module's own interpreter, and the call_module step it runs for.
    std::unique_ptr<Interpreter> child;
    int childStep = -1;
    // The executed path, built as nodes run.
    std::vector<PathEvent> pathLog;
    static constexpr std::size_t kMaxPathEvents = 20000, kMaxOrder = 200000, kOrderHead = 50000;
    void noteRan(const std::string& name);

    const Step& stepAt(int id) const { return plan->steps[static_cast<std::size_t>(id)]; }

    // Interpreter.cpp: setting up a run.
    void indexNodes();
    void planFrees();
    void resetRun();

    // InterpreterValues.cpp: what the Values view reads.
    static std::int64_t tensorBytes(const c10::IValue& value);
    static std::int64_t versionOf(const c10::IValue& value);
    const Step* stepNamed(const std::string& node) const;

    // InterpreterSteps.cpp: values, records, and running.
    c10::IValue resolve(const ValueSource& source) const;
    torch::jit::Stack resolveAll(const std::vector<ValueSource>& sources) const;
    void recordDone(int id, const c10::IValue& value, Clock::time_point start);
    void noteCost(int id, const torch::jit::Stack& operands,
                  const std::unordered_map<const void*, std::int64_t>& versionsBefore,
                  const c10::IValue& value);
    bool isWeight(int id) const;
    void noteLive(int id);
    void fail(int id, const std::string& why, const torch::jit::Stack& operands);
    void markNotExecuted(const StepBlock& block);
    void logPath(PathEvent::Kind kind, int id, int block = 0, std::int64_t iteration = 0);
    bool runSimple(int id);
    bool enterControl(int id);
    // A control-flow or higher-order step has started its first block: it is the last one run.
    void noteEntered(int id, Clock::time_point start);
    void finishControl(int id, std::vector<c10::IValue> results, Clock::time_point start);
    void afterTopLevel(int id);
    void unwind();
    // InterpreterHops.cpp: a higher-order op's blocks, run as torch/_higher_order_ops/ runs them.
    bool enterHop(int id);
    // The Hop's block in the top frame has run to its end: start its next block, or finish.
    void unwindHop();
    bool insideHop() const;
    // Whether an operator runs with grad mode on here: ExecutionPlan::eagerGrad, as the
    // innermost wrap_with_set_grad_enabled block says (InterpreterHops.cpp).
    bool gradHere() const;
    bool nextIsHidden() const;
    bool lastWasHidden() const;
    bool goOn(const std::string& next) const { return !beforeNode || beforeNode(next); }
    int nextStep() const;
    // The step a person's next step stops at: the next one, past guards and weights that run
    // along with it (in this block; the next one itself where the block ends first).
    int nextShownStep() const;
    StopReason stopState() const;
    StopReason advance();
    void completeChild();
    StopReason stepChild(bool into);
};

} // namespace fxview
