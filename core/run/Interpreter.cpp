// Interpreter's public API: the debugger's commands (step, step into and out, run to a node or a
// breakpoint, reset), what a run shows (records, order, last and next node, the executed path),
// and the checks on its output; also setting up a run (which node each step is, when a value can
// be freed). Running one step is in InterpreterSteps.cpp, the inputs in InterpreterInputs.cpp.

#include "Interpreter.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/csrc/jit/serialization/pickle.h>

#include "ExecutedPath.h"
#include "Functorch.h"
#include "InterpreterPrivate.h"
#include "ModelPrivate.h"
#include "PlanPrivate.h"
#include "TorchSave.h"
#include "TorchValues.h"

namespace fxview {

namespace {

// Python's module.to(dtype): floating parameters and buffers only, every submodule's.
void castWeights(torch::jit::Module& module, c10::ScalarType type) {
    torch::NoGradGuard noGrad;
    for (at::Tensor t : module.parameters(true))
        if (t.is_floating_point())
            t.set_data(t.to(type));
    for (at::Tensor t : module.buffers(true))
        if (t.is_floating_point())
            t.set_data(t.to(type));
}

} // namespace

void Interpreter::Private::indexNodes() {
    nodeOf.assign(plan->steps.size(), nullptr);
    graph.forEachNode([&](const Node& n, int) {
        auto it = plan->stepOf.find(n.name);
        if (it != plan->stepOf.end())
            nodeOf[static_cast<std::size_t>(it->second)] = &n;
    });
}

// torch.fx's garbage_collect_values: a value dies after the last top-level node that uses
// it; uses inside a block count as uses by the control-flow node that owns the block.
void Interpreter::Private::planFrees() {
    std::vector<int> lastUse(static_cast<std::size_t>(plan->slotCount), -1);
    std::function<void(int, int)> noteUses = [&](int id, int topId) {
        const Step& s = stepAt(id);
        for (const ValueSource& in : s.inputs)
            in.forEachSlot([&](int slot) { lastUse[static_cast<std::size_t>(slot)] = topId; });
        for (const StepBlock& b : s.blocks) {
            for (int inner : b.steps)
                noteUses(inner, topId);
            for (const ValueSource& r : b.results)
                r.forEachSlot([&](int slot) { lastUse[static_cast<std::size_t>(slot)] = topId; });
        }
    };
    for (int id : plan->top)
        noteUses(id, id);
    freeAfter.assign(plan->steps.size(), {});
    topPosition.assign(plan->steps.size(), 0);
    for (std::size_t at = 0; at < plan->top.size(); ++at)
        topPosition[static_cast<std::size_t>(plan->top[at])] = at;
    lastUseAt.assign(lastUse.size(), -1);
    for (std::size_t slot = 0; slot < lastUse.size(); ++slot)
        if (lastUse[slot] >= 0) {
            freeAfter[static_cast<std::size_t>(lastUse[slot])].push_back(static_cast<int>(slot));
            lastUseAt[slot] =
                static_cast<std::int64_t>(topPosition[static_cast<std::size_t>(lastUse[slot])]);
        }
}

void Interpreter::Private::resetRun() {
    closeVmapLevels(); // a run stopped inside torch.vmap left its levels open
    slots.assign(static_cast<std::size_t>(plan->slotCount), c10::IValue());
    records.assign(plan->steps.size(), NodeRecord());
    versions.assign(plan->steps.size(), -1);
    keptBytes = 0;
    liveValues.clear();
    peak = {};
    weightStorages.clear();
    frames = {Frame{&plan->top, 0, -1, 0, 0, {}}};
    stopNote.clear();
    order.clear();
    failure.clear();
    failed = false;
    finished = plan->top.empty();
    output = c10::IValue();
    captured = c10::IValue();
    hasCaptured = false;
    last.clear();
    child.reset();
    childStep = -1;
    pathLog.clear();
}

Interpreter::Interpreter(std::shared_ptr<const Model> model, TraceResult traced, RunOptions options)
    : d(std::make_unique<Private>()) {
    d->model = std::move(model);
    d->graph = std::move(traced.graph);
    d->plan = traced.plan;
    d->options = options;
    if (!options.castTo.empty()) {
        c10::ScalarType type;
        if (!scalarTypeFromName(options.castTo, type) || !c10::isFloatingType(type))
            throw std::invalid_argument("not a floating dtype: " + options.castTo);
        d->castTo = type;
        if (!d->model->d().exported) // a .pt2's weights are cast as its steps read them
            castWeights(d->model->d().module, type);
    }
    d->indexNodes();
    d->planFrees();
    d->resetRun();
}

Interpreter::~Interpreter() {
    closeVmapLevels();
}

const Graph& Interpreter::graph() const {
    return d->graph;
}

StopReason Interpreter::step() {
    d->stopNote.clear();
    torch::NoGradGuard noGrad;
    if (d->child)
        return d->stepChild(false);
    // Hidden guards run along with the next node a person can see: a step always shows one.
    StopReason r;
    do
        r = d->advance();
    while (r == StopReason::Stepped && d->lastWasHidden());
    return r;
}

StopReason Interpreter::stepOver() {
    return step();
}

StopReason Interpreter::stepInto() {
    d->stopNote.clear();
    torch::NoGradGuard noGrad;
    if (d->child)
        return d->stepChild(true);
    // Hidden guards before the next node run first, as step() runs them: Step Into then lands on
    // a node a person can see, or enters the module they guard.
    while (d->nextIsHidden())
        if (StopReason r = d->advance(); r != StopReason::Stepped)
            return r;
    int id = d->nextStep();
    if (id < 0 || (d->stepAt(id).kind != Step::Kind::CallModule &&
                   d->stepAt(id).kind != Step::Kind::Function))
        return step();
    const Step& s = d->stepAt(id);
    // A call_module's module, or a call_function's own graph (torch.fx.wrap'ped functions,
    // F.* written in Python), its arguments as placeholders.
    const bool module = s.kind == Step::Kind::CallModule;
    TraceResult traced = d->plan->traceCallee ? d->plan->traceCallee(s) : TraceResult{};
    if (!d->plan->traceCallee || !traced.ok())
        return d->advance(); // its inside cannot be shown: run it whole
    auto childModel = std::make_shared<Model>(std::make_unique<Model::Private>(Model::Private{
        d->model->source() + ":" + s.name, module ? s.module : d->model->d().module, nullptr}));
    d->child = std::make_unique<Interpreter>(childModel, std::move(traced), d->options);
    d->child->d->inputs = d->resolveAll(s.inputs);
    d->childStep = id;
    return d->stepChild(false);
}

StopReason Interpreter::stepOut() {
    d->stopNote.clear();
    if (!d->child)
        return runToEnd();
    torch::NoGradGuard noGrad;
    while (d->child && !d->failed) {
        if (!d->goOn(nextNode()))
            return StopReason::Stepped;
        if (d->stepChild(false) == StopReason::Failed)
            return StopReason::Failed;
        if (checkWatch())
            return StopReason::Breakpoint;
    }
    return d->stopState();
}

StopReason Interpreter::runTo(const std::string& node) {
    d->stopNote.clear();
    while (!d->finished && !d->failed) {
        if (!d->goOn(nextNode()))
            return StopReason::Stepped;
        StopReason r = step();
        if (r == StopReason::Failed || lastNode() == node)
            return r;
        if (checkWatch())
            return StopReason::Breakpoint;
    }
    return d->stopState();
}

StopReason Interpreter::runToEnd() {
    d->stopNote.clear();
    bool first = true;
    while (!d->finished && !d->failed) {
        // A breakpoint stops the run before its node; continuing from it runs that node.
        auto at = d->breakpoints.find(nextNode());
        if (!first && at != d->breakpoints.end() && at->second.kind == BreakCondition::Kind::Always)
            return StopReason::Breakpoint;
        first = false;
        if (!d->goOn(nextNode()))
            return StopReason::Stepped;
        if (step() == StopReason::Failed)
            return StopReason::Failed;
        if (checkWatch())
            return StopReason::Breakpoint;
    }
    return d->stopState();
}

void Interpreter::reset() {
    d->resetRun();
}

void Interpreter::setBreakpoint(const std::string& node, bool on, BreakCondition condition) {
    if (on)
        d->breakpoints[node] = condition;
    else
        d->breakpoints.erase(node);
}

void Interpreter::setBeforeNode(std::function<bool(const std::string&)> beforeNode) {
    d->beforeNode = std::move(beforeNode);
}

bool Interpreter::hasBreakpoint(const std::string& node) const {
    return d->breakpoints.count(node) > 0;
}
bool Interpreter::finished() const {
    return d->finished;
}
bool Interpreter::failed() const {
    return d->failed;
}
const std::string& Interpreter::failure() const {
    return d->failure;
}
int Interpreter::depth() const {
    return d->child ? 1 + d->child->depth() : 0;
}
const Interpreter* Interpreter::steppedInto() const {
    return d->child.get();
}
std::string Interpreter::steppedIntoNode() const {
    return d->child ? d->stepAt(d->childStep).name : std::string();
}
const std::vector<std::string>& Interpreter::executionOrder() const {
    return d->order;
}

std::string Interpreter::lastNode() const {
    if (d->child && !d->child->lastNode().empty())
        return d->stepAt(d->childStep).name + "." + d->child->lastNode();
    return d->last;
}

std::string Interpreter::nextNode() const {
    if (d->child)
        return d->stepAt(d->childStep).name + "." + d->child->nextNode();
    int id = d->nextShownStep();
    return id < 0 ? std::string() : d->stepAt(id).name;
}

const PeakLive& Interpreter::peakLive() const {
    return d->peak;
}

const NodeRecord* Interpreter::record(const std::string& node) const {
    auto it = d->plan->stepOf.find(node);
    return it == d->plan->stepOf.end() ? nullptr
                                       : &d->records[static_cast<std::size_t>(it->second)];
}

ValueSummary Interpreter::outputSummary() const {
    return summarize(d->output, true);
}

bool Interpreter::outputsEqualForward(std::string* error) {
    if (!d->finished)
        return false;
    try {
        torch::NoGradGuard noGrad;
        std::vector<c10::IValue> args = d->inputs;
        c10::IValue expected = d->model->d().module.forward(args);
        return exactlyEqual(expected, d->output);
    } catch (const std::exception& e) {
        if (error)
            *error = firstLineOf(e);
        return false;
    }
}

OutputCheck Interpreter::checkOutputs() {
    if (!d->finished)
        return {};
    std::string random = firstRandomNode(d->graph);
    if (!random.empty())
        return outputsRandom(random);
    if (d->model->d().exported)
        return noReference();
    std::string why;
    bool equal = outputsEqualForward(&why);
    if (!why.empty())
        return forwardFailed(why);
    // Fault injection for the tests of how a difference is shown (the window's banner, fxtrace's
    // exit code): no model of ours makes fxview compute a wrong result on purpose.
    if (std::getenv("FXVIEW_TEST_OUTPUTS_DIFFER"))
        equal = false;
    std::string output = "output";
    for (const Node& n : d->graph.nodes)
        if (n.op == Op::Output)
            output = n.name;
    return equal ? outputsEqual() : outputsDiffer(output);
}

std::string Interpreter::saveOutputs(const std::string& path) const {
    if (!d->finished)
        return "The run has not reached its output, so there is nothing to save to '" + path + "'.";
    // A .pt2's graph also returns the buffers it mutates; ep.module() returns only the user
    // outputs, and so does the file.
    c10::IValue saved = d->output;
    for (const Node& n : d->graph.nodes)
        if (n.op == Op::Output && !n.outputRoles.empty() && saved.isTuple() && !d->outputShaped) {
            std::vector<c10::IValue> user;
            const auto& items = saved.toTupleRef().elements();
            for (std::size_t i = 0; i < items.size() && i < n.outputRoles.size(); ++i)
                if (n.outputRoles[i].kind == "user_output")
                    user.push_back(items[i]);
            saved = c10::ivalue::Tuple::create(std::move(user));
        }
    return writeValueFile(saved, {}, false, path, "the outputs");
}

std::string Interpreter::saveValue(const std::string& path) const {
    const std::string& node = d->options.capturedNode;
    if (!d->hasCaptured)
        return "Node '" + node + "' has not run" +
               (d->failed ? " before the run failed" : std::string()) +
               ", so there is no value of it to save to '" + path + "'.";
    return writeValueFile(d->captured, {}, false, path, "the value of '" + node + "'");
}

Graph Interpreter::executedPath(std::unordered_map<std::string, ValueSummary>* values) const {
    if (!values)
        return buildExecutedPath(d->graph, d->pathLog);
    std::vector<PathEvent> log = d->pathLog;
    std::unordered_map<const Node*, std::size_t> stepOf;
    for (std::size_t id = 0; id < d->nodeOf.size(); ++id)
        if (d->nodeOf[id])
            stepOf[d->nodeOf[id]] = id;
    for (PathEvent& e : log)
        if (e.kind == PathEvent::Kind::Ran && !e.hasValue) {
            e.value = d->records[stepOf.at(e.node)].value;
            e.hasValue = true;
        }
    return buildExecutedPath(d->graph, log, values);
}

int Interpreter::liveValueCount() const {
    int live = 0;
    for (const c10::IValue& v : d->slots)
        live += v.isNone() ? 0 : 1;
    return live;
}

} // namespace fxview
