// torch.fx's Interpreter in C++: an environment of values (slots), one runStep that dispatches on
// the kind of step, and failures reported with the node that raised. Control flow is stepped
// through with a stack of frames, one per block being run.

#include "Interpreter.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <unordered_set>

#include "ExecutedPath.h"
#include "FxText.h"
#include "InputValues.h"
#include "ModelPrivate.h"
#include "PlanPrivate.h"
#include "TorchValues.h"
#include "TracerPrivate.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/pickle.h>

namespace fxview {

namespace {

using Clock = std::chrono::steady_clock;

// A block being run: the top level, a branch of an if, or a loop body.
struct Frame {
    const std::vector<int>* steps = nullptr;
    std::size_t pc = 0;
    int owner = -1; // the If/Loop step, -1 at the top level
    std::int64_t iteration = 0;
    std::int64_t tripCount = 0;
};

std::string describeOperand(const c10::IValue& v) {
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        return t.defined() ? formatShape(t.sizes().vec()) + " " + dtypeName(t.scalar_type())
                           : "undefined tensor";
    }
    return shortDescription(summarize(v, false));
}

// The submodule at a dotted path ("layer1.0.conv1") below `root`.
std::optional<torch::jit::Module> submodule(const torch::jit::Module& root,
                                            const std::string& path) {
    torch::jit::Module m = root;
    std::size_t start = 0;
    while (start < path.size()) {
        std::size_t dot = path.find('.', start);
        std::string field =
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!m.hasattr(field) || !m.attr(field).isModule())
            return std::nullopt;
        m = m.attr(field).toModule();
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return m;
}

// A convolution's `groups`: a constant of the class in scripted modules, an argument of the
// aten call in traced ones, so it is read from the forward graph.
std::int64_t convolutionGroups(const torch::jit::Module& conv) {
    std::shared_ptr<torch::jit::Graph> g = conv.get_method("forward").graph()->copy();
    torch::jit::Inline(*g);
    for (const torch::jit::Node* n : g->nodes()) {
        std::string kind = n->kind().toQualString();
        if (kind.rfind("aten::conv", 0) == 0 || kind == "aten::_convolution")
            if (auto groups = torch::jit::constant_as<std::int64_t>(n->namedInput("groups")))
                return *groups;
    }
    return 1;
}

// An input shape for a placeholder whose first consumer is `module`, or "" with no guess.
std::string guessFromModule(const torch::jit::Module& module, const std::string& type,
                            const std::string& path, InputSpec& spec) {
    if (!module.hasattr("weight") || !module.attr("weight").isTensor())
        return {};
    at::Tensor w = module.attr("weight").toTensor();
    std::string weight = "weight " + formatShape(w.sizes().vec());
    if (type == "torch.nn.Linear" && w.dim() == 2) {
        spec.shape = {1, w.size(1)};
        return path + " (torch.nn.Linear, " + weight + ")";
    }
    if ((type == "torch.nn.Conv1d" || type == "torch.nn.Conv2d" || type == "torch.nn.Conv3d") &&
        w.dim() >= 3) {
        spec.shape = {1, w.size(1) * convolutionGroups(module)};
        for (int i = 2; i < w.dim(); ++i)
            spec.shape.push_back(224);
        return path + " (" + type + ", " + weight + ")";
    }
    if (type == "torch.nn.Embedding") {
        spec.shape = {1, 16};
        spec.dtype = "int64";
        return path + " (torch.nn.Embedding, " + weight + ")";
    }
    return {};
}

} // namespace

struct Interpreter::Private {
    std::shared_ptr<const Model> model;
    Graph graph;
    std::shared_ptr<const ExecutionPlan> plan;
    RunOptions options;
    std::vector<const Node*> nodeOf; // step id -> its fx node

    std::vector<c10::IValue> inputs;
    std::vector<ValueSummary> inputSummaries;
    std::unordered_set<std::string> breakpoints;
    std::vector<std::vector<int>> freeAfter; // top-level step id -> slots nobody needs after it

    // The run's state; reset() clears it.
    std::vector<c10::IValue> slots;
    std::vector<NodeRecord> records;
    std::vector<Frame> frames;
    std::vector<std::string> order;
    std::string failure;
    bool failed = false;
    bool finished = false;
    c10::IValue output;
    std::string last;
    // stepInto: the module's own interpreter, and the call_module step it runs for.
    std::unique_ptr<Interpreter> child;
    int childStep = -1;
    // The executed path, built as nodes run.
    std::vector<PathEvent> pathLog;

    const Step& stepAt(int id) const { return plan->steps[static_cast<std::size_t>(id)]; }

    void indexNodes() {
        nodeOf.assign(plan->steps.size(), nullptr);
        graph.forEachNode([&](const Node& n, int) {
            auto it = plan->stepOf.find(n.name);
            if (it != plan->stepOf.end())
                nodeOf[static_cast<std::size_t>(it->second)] = &n;
        });
    }

    // torch.fx's garbage_collect_values: a value dies after the last top-level node that uses
    // it; uses inside a block count as uses by the control-flow node that owns the block.
    void planFrees() {
        std::vector<int> lastUse(static_cast<std::size_t>(plan->slotCount), -1);
        std::function<void(int, int)> noteUses = [&](int id, int topId) {
            const Step& s = stepAt(id);
            for (const ValueSource& in : s.inputs)
                in.forEachSlot([&](int slot) { lastUse[static_cast<std::size_t>(slot)] = topId; });
            for (const StepBlock& b : s.blocks) {
                for (int inner : b.steps)
                    noteUses(inner, topId);
                for (const ValueSource& r : b.results)
                    r.forEachSlot(
                        [&](int slot) { lastUse[static_cast<std::size_t>(slot)] = topId; });
            }
        };
        for (int id : plan->top)
            noteUses(id, id);
        freeAfter.assign(plan->steps.size(), {});
        for (std::size_t slot = 0; slot < lastUse.size(); ++slot)
            if (lastUse[slot] >= 0)
                freeAfter[static_cast<std::size_t>(lastUse[slot])].push_back(
                    static_cast<int>(slot));
    }

    void resetRun() {
        slots.assign(static_cast<std::size_t>(plan->slotCount), c10::IValue());
        records.assign(plan->steps.size(), NodeRecord());
        frames = {Frame{&plan->top, 0, -1, 0, 0}};
        order.clear();
        failure.clear();
        failed = false;
        finished = plan->top.empty();
        output = c10::IValue();
        last.clear();
        child.reset();
        childStep = -1;
        pathLog.clear();
    }

    c10::IValue resolve(const ValueSource& source) const {
        switch (source.kind) {
        case ValueSource::Kind::Constant:
            return source.constant;
        case ValueSource::Kind::Slot:
            return slots[static_cast<std::size_t>(source.slot)];
        case ValueSource::Kind::List: {
            c10::impl::GenericList list(source.listElement);
            for (const ValueSource& item : source.items)
                list.push_back(resolve(item));
            return list;
        }
        case ValueSource::Kind::Tuple: {
            std::vector<c10::IValue> items;
            for (const ValueSource& item : source.items)
                items.push_back(resolve(item));
            return c10::ivalue::Tuple::create(std::move(items));
        }
        }
        return {};
    }

    torch::jit::Stack resolveAll(const std::vector<ValueSource>& sources) const {
        torch::jit::Stack stack;
        for (const ValueSource& s : sources)
            stack.push_back(resolve(s));
        return stack;
    }

    static c10::IValue packOutputs(torch::jit::Stack& stack, int outputs) {
        if (outputs == 1)
            return stack.back();
        std::vector<c10::IValue> values(stack.end() - outputs, stack.end());
        return c10::ivalue::Tuple::create(std::move(values));
    }

    // --- recording -----------------------------------------------------------------------

    void recordDone(int id, const c10::IValue& value, Clock::time_point start) {
        NodeRecord& r = records[static_cast<std::size_t>(id)];
        r.state = NodeState::Done;
        r.runs += 1;
        r.timeUs = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        r.value = summarize(value, options.fullSummaries);
        last = stepAt(id).name;
        order.push_back(last);
    }

    void fail(int id, const std::string& why, const torch::jit::Stack& operands) {
        const Step& s = stepAt(id);
        const Node* n = nodeOf[static_cast<std::size_t>(id)];
        std::string got;
        for (const c10::IValue& v : operands)
            if (v.isTensor())
                got += (got.empty() ? "" : ", ") + describeOperand(v);
        std::string what = n ? std::string(opName(n->op)) + " " + n->target : s.name;
        if (n && !n->moduleType.empty())
            what += " (" + n->moduleType + ")";
        failure = "Node '" + s.name + "' (" + what + ") failed" +
                  (got.empty() ? "" : " on inputs " + got) + ": " + why +
                  ". Change the input or the model, then reset and run again.";
        NodeRecord& r = records[static_cast<std::size_t>(id)];
        r.state = NodeState::Failed;
        r.error = failure;
        failed = true;
        last = s.name;
        order.push_back(last);
    }

    // Marks every node of a block that has not run as not executed (a branch not taken).
    void markNotExecuted(const StepBlock& block) {
        for (int id : block.steps) {
            NodeRecord& r = records[static_cast<std::size_t>(id)];
            if (r.state == NodeState::Pending)
                r.state = NodeState::NotExecuted;
            for (const StepBlock& inner : stepAt(id).blocks)
                markNotExecuted(inner);
        }
    }

    void logPath(PathEvent::Kind kind, int id, int block = 0, std::int64_t iteration = 0) {
        const Node* n = nodeOf[static_cast<std::size_t>(id)];
        if (!n)
            return;
        pathLog.push_back(PathEvent{kind, n, block, iteration, {}, false});
        // Inside an if or a loop the record is overwritten by the next run, so this run's
        // summary is kept; a top-level node runs once and its record is read when asked.
        if (kind == PathEvent::Kind::Ran && frames.size() > 1) {
            pathLog.back().value = records[static_cast<std::size_t>(id)].value;
            pathLog.back().hasValue = true;
        }
    }

    // --- running -------------------------------------------------------------------------

    // Runs a step that is not control flow; false if it raised.
    bool runSimple(int id) {
        const Step& s = stepAt(id);
        torch::jit::Stack stack;
        auto start = Clock::now();
        try {
            c10::IValue value;
            std::string warning;
            switch (s.kind) {
            case Step::Kind::Placeholder:
                if (static_cast<std::size_t>(s.index) >= inputs.size())
                    throw std::runtime_error("no input is set for this placeholder; give one "
                                             "(--input, or the input bar) and run again");
                value = inputs[static_cast<std::size_t>(s.index)];
                break;
            case Step::Kind::Attribute:
                if (s.loadAttribute) {
                    value = s.loadAttribute();
                    break;
                }
                value = s.attribute;
                break;
            case Step::Kind::Operator:
                stack = resolveAll(s.inputs);
                if (!s.operation)
                    throw std::runtime_error("LibTorch has no operator to run " + s.unsupported);
                {
                    torch::jit::Stack work = stack;
                    if (s.varargCount >= 0)
                        work.emplace_back(static_cast<std::int64_t>(s.varargCount));
                    (*s.operation)(work);
                    value = packOutputs(work, s.outputs);
                }
                break;
            case Step::Kind::CallModule: {
                stack = resolveAll(s.inputs);
                torch::jit::Stack work = stack;
                work.insert(work.begin(), s.module._ivalue());
                s.function->run(work);
                value = work.back();
                break;
            }
            case Step::Kind::Function: {
                stack = resolveAll(s.inputs);
                torch::jit::Stack work = stack;
                s.function->run(work);
                value = work.back();
                break;
            }
            case Step::Kind::GetItem: {
                c10::IValue whole = resolve(s.inputs[0]);
                auto index = static_cast<std::size_t>(s.index);
                std::size_t size = whole.isTuple() ? whole.toTupleRef().elements().size()
                                                   : whole.toListRef().size();
                if (s.unpacked >= 0 && size != static_cast<std::size_t>(s.unpacked))
                    throw std::runtime_error("Expected " + std::to_string(s.unpacked) +
                                             " elements in a list but found " +
                                             std::to_string(size));
                value = whole.isTuple() ? whole.toTupleRef().elements().at(index)
                                        : whole.toListRef().at(index);
                break;
            }
            case Step::Kind::PassThrough:
                value = resolve(s.inputs[0]);
                break;
            case Step::Kind::Warn: {
                // warnings.warn(message): the message goes on the node's record, the run on.
                stack = resolveAll(s.inputs);
                warning = stack.at(0).isString() ? stack[0].toStringRef() : "a warning";
                break;
            }
            case Step::Kind::Raise: {
                stack = resolveAll(s.inputs);
                std::string message =
                    stack.at(0).isString() ? stack[0].toStringRef() : "the model raised";
                // prim::RaiseException(msg, cls): `raise ValueError(f"...")` keeps the class
                // apart ("builtins.ValueError"); an assert's message already starts with it.
                if (stack.size() > 1 && stack[1].isString()) {
                    std::string cls = stack[1].toStringRef();
                    cls = cls.substr(cls.rfind('.') + 1);
                    if (message.rfind(cls + ":", 0) != 0)
                        message = cls + ": " + message;
                }
                throw std::runtime_error(message);
            }
            case Step::Kind::Assert:
                stack = resolveAll(s.inputs);
                if (!stack.at(0).toBool())
                    throw std::runtime_error("AssertionError: " + (stack.at(1).isString()
                                                                       ? stack[1].toStringRef()
                                                                       : std::string()));
                break;
            case Step::Kind::Output:
                value = resolve(s.inputs[0]);
                output = value;
                break;
            case Step::Kind::If:
            case Step::Kind::Loop:
                break; // handled by enterControl
            }
            slots[static_cast<std::size_t>(s.slot)] = value;
            recordDone(id, value, start);
            records[static_cast<std::size_t>(id)].warning = warning;
            logPath(PathEvent::Kind::Ran, id);
            return true;
        } catch (const std::exception& e) {
            fail(id, firstLineOf(e), stack);
            return false;
        }
    }

    // Starts an if or a loop: decides the branch or the first iteration and pushes its block.
    bool enterControl(int id) {
        const Step& s = stepAt(id);
        NodeRecord& r = records[static_cast<std::size_t>(id)];
        r.blockRuns.resize(s.blocks.size(), 0);
        auto start = Clock::now();
        torch::jit::Stack operands = resolveAll(s.inputs);
        try {
            if (s.kind == Step::Kind::If) {
                // torch.cond's predicate is a one-element tensor, TorchScript's a bool.
                bool condition = operands[0].isTensor() ? operands[0].toTensor().item<bool>()
                                                        : operands[0].toBool();
                std::size_t taken = condition ? 0 : 1;
                r.blockRuns[taken] += 1;
                for (std::size_t b = 0; b < s.blocks.size(); ++b)
                    if (b != taken)
                        markNotExecuted(s.blocks[b]);
                // A subgraph's placeholders take the operands that follow the predicate.
                const StepBlock& branch = s.blocks[taken];
                for (std::size_t i = 0; i < branch.params.size() && i + 1 < operands.size(); ++i)
                    slots[static_cast<std::size_t>(branch.params[i])] = operands[i + 1];
                frames.push_back(Frame{&s.blocks[taken].steps, 0, id, 0, 0});
            } else {
                std::int64_t trips = operands[0].toInt();
                bool go = operands[1].toBool();
                const StepBlock& body = s.blocks[0];
                std::vector<c10::IValue> carried(operands.begin() + 2, operands.end());
                if (trips > 0 && go) {
                    slots[static_cast<std::size_t>(body.params[0])] = std::int64_t(0);
                    for (std::size_t i = 1; i < body.params.size(); ++i)
                        slots[static_cast<std::size_t>(body.params[i])] = carried[i - 1];
                    logPath(PathEvent::Kind::LoopEnter, id);
                    frames.push_back(Frame{&body.steps, 0, id, 0, trips});
                    r.blockRuns[0] = 1;
                } else {
                    markNotExecuted(body);
                    finishControl(id, carried, start);
                    logPath(PathEvent::Kind::LoopSkipped, id);
                    return true;
                }
            }
        } catch (const std::exception& e) {
            fail(id, firstLineOf(e), operands);
            return false;
        }
        last = s.name;
        order.push_back(last);
        r.timeUs = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        return true;
    }

    void finishControl(int id, std::vector<c10::IValue> results, Clock::time_point start) {
        const Step& s = stepAt(id);
        c10::IValue value = s.yieldsList          ? c10::ivalue::Tuple::create(results)
                            : results.size() == 1 ? results[0]
                            : results.empty()     ? c10::IValue()
                                                  : c10::ivalue::Tuple::create(std::move(results));
        slots[static_cast<std::size_t>(s.slot)] = value;
        NodeRecord& r = records[static_cast<std::size_t>(id)];
        double entering = r.timeUs;
        r.state = NodeState::Done;
        r.runs += 1;
        r.value = summarize(value, options.fullSummaries);
        r.timeUs =
            entering + std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        frames.back().pc += 1;
        afterTopLevel(id);
    }

    void afterTopLevel(int id) {
        if (frames.size() != 1 || options.keepValues)
            return;
        for (int slot : freeAfter[static_cast<std::size_t>(id)])
            slots[static_cast<std::size_t>(slot)] = c10::IValue();
    }

    // Closes every block that has run to its end: an if yields its results, a loop either
    // starts its next iteration or yields its carried values. Leaves frames pointing at the
    // next node to run.
    void unwind() {
        while (!failed) {
            Frame& f = frames.back();
            if (f.pc < f.steps->size())
                return;
            if (f.owner < 0) {
                finished = true;
                return;
            }
            int id = f.owner;
            const Step& s = stepAt(id);
            if (s.kind == Step::Kind::If) {
                std::size_t b = static_cast<std::size_t>(&s.blocks[0].steps == f.steps ? 0 : 1);
                std::vector<c10::IValue> results;
                for (const ValueSource& src : s.blocks[b].results)
                    results.push_back(resolve(src));
                logPath(PathEvent::Kind::BranchDone, id, static_cast<int>(b));
                frames.pop_back();
                finishControl(id, std::move(results), Clock::now());
                continue;
            }
            const StepBlock& body = s.blocks[0];
            std::vector<c10::IValue> results;
            for (const ValueSource& src : body.results)
                results.push_back(resolve(src));
            bool go = results[0].toBool();
            std::vector<c10::IValue> carried(results.begin() + 1, results.end());
            f.iteration += 1;
            if (go && f.iteration < f.tripCount) {
                slots[static_cast<std::size_t>(body.params[0])] = f.iteration;
                for (std::size_t i = 1; i < body.params.size(); ++i)
                    slots[static_cast<std::size_t>(body.params[i])] = carried[i - 1];
                logPath(PathEvent::Kind::LoopNext, id, 0, f.iteration);
                records[static_cast<std::size_t>(id)].blockRuns[0] += 1;
                f.pc = 0;
                continue;
            }
            logPath(PathEvent::Kind::LoopDone, id);
            frames.pop_back();
            finishControl(id, std::move(carried), Clock::now());
        }
    }

    // Nodes a step runs along with the next one a person steps to: hidden guards, and a
    // torch.export program's parameter, buffer and constant placeholders (weights, not inputs:
    // resnet18 has 62 of them before its input).
    static bool runsAlong(const Node* n) {
        return n && (n->hidden || (n->op == Op::Placeholder && !n->isInput()));
    }

    bool nextIsHidden() const {
        int id = nextStep();
        return runsAlong(id < 0 ? nullptr : nodeOf[static_cast<std::size_t>(id)]);
    }

    bool lastWasHidden() const {
        auto it = plan->stepOf.find(last);
        return runsAlong(it == plan->stepOf.end() ? nullptr
                                                  : nodeOf[static_cast<std::size_t>(it->second)]);
    }

    int nextStep() const {
        if (finished || failed)
            return -1;
        const Frame& f = frames.back();
        return (*f.steps)[f.pc];
    }

    StopReason stopState() const {
        return failed ? StopReason::Failed : finished ? StopReason::Finished : StopReason::Stepped;
    }

    // One step of this interpreter's own graph.
    StopReason advance() {
        int id = nextStep();
        if (id < 0)
            return stopState();
        const Step& s = stepAt(id);
        if (s.kind == Step::Kind::If || s.kind == Step::Kind::Loop) {
            if (!enterControl(id))
                return StopReason::Failed;
        } else {
            if (!runSimple(id))
                return StopReason::Failed;
            frames.back().pc += 1;
            afterTopLevel(id);
        }
        unwind();
        return stopState();
    }

    // The stepped-into module finished: its output becomes the call_module node's value.
    void completeChild() {
        int id = childStep;
        c10::IValue value = child->d->output;
        auto start = Clock::now();
        slots[static_cast<std::size_t>(stepAt(id).slot)] = value;
        recordDone(id, value, start);
        double total = 0;
        for (const NodeRecord& r : child->d->records)
            total += r.timeUs;
        records[static_cast<std::size_t>(id)].timeUs = total;
        logPath(PathEvent::Kind::Ran, id);
        child.reset();
        childStep = -1;
        frames.back().pc += 1;
        afterTopLevel(id);
        unwind();
    }

    // One step inside the module stepped into (`into`: deeper into its own call_modules).
    StopReason stepChild(bool into) {
        StopReason r = into ? child->stepInto() : child->step();
        const std::string& childName = stepAt(childStep).name;
        order.push_back(childName + "." + child->lastNode());
        if (r == StopReason::Failed) {
            failure = "Inside '" + childName + "': " + child->failure();
            records[static_cast<std::size_t>(childStep)].state = NodeState::Failed;
            records[static_cast<std::size_t>(childStep)].error = failure;
            failed = true;
            return StopReason::Failed;
        }
        if (child->finished())
            completeChild();
        return stopState();
    }
};

Interpreter::Interpreter(std::shared_ptr<const Model> model, TraceResult traced, RunOptions options)
    : d(std::make_unique<Private>()) {
    d->model = std::move(model);
    d->graph = std::move(traced.graph);
    d->plan = traced.plan;
    d->options = options;
    d->indexNodes();
    d->planFrees();
    d->resetRun();
}

Interpreter::~Interpreter() = default;

const Graph& Interpreter::graph() const {
    return d->graph;
}

std::string Interpreter::setInputs(const std::vector<InputSpec>& specs, std::uint64_t seed) {
    at::manual_seed(seed);
    std::vector<c10::IValue> made;
    if (std::string error = makeInputValues(specs, d->plan->inputs, made); !error.empty())
        return error;
    d->inputs = std::move(made);
    d->inputSummaries.clear();
    for (const c10::IValue& v : d->inputs)
        d->inputSummaries.push_back(summarize(v, d->options.fullSummaries));
    d->resetRun();
    return {};
}

namespace {

// "5x4 float32" for the input note.
std::string describeExample(const c10::IValue& v) {
    if (!v.isTensor())
        return v.type()->annotation_str();
    std::string shape;
    for (std::int64_t size : v.toTensor().sizes())
        shape += (shape.empty() ? "" : "x") + std::to_string(size);
    return shape + " " + dtypeName(v.toTensor().scalar_type());
}

} // namespace

InputChoice Interpreter::guessInputs() const {
    InputChoice choice;
    int index = 0;
    for (const Node& node : d->graph.nodes) {
        if (!node.isInput()) // a torch.export program's parameters are placeholders too
            continue;
        const PlaceholderSpec& wanted = d->plan->inputs[static_cast<std::size_t>(index++)];
        if (wanted.defaultValue) { // those after it have defaults too, as in Python
            choice.explanation +=
                "input " + node.name + ": its default, " + formatArgument(node.args.at(0)) + "\n";
            continue;
        }
        InputSpec spec;
        std::string source;
        if (wanted.example) { // a .pt2's own: the values it was exported with
            spec.example = true;
            choice.explanation += "input " + node.name + ": " + wanted.typeOrigin + " (" +
                                  describeExample(*wanted.example) + ")\n";
            choice.specs.push_back(spec);
            continue;
        }
        if (specFromTracedType(wanted.type, spec)) {
            choice.explanation +=
                "input " + node.name + ": " + spec.text() + ", " + wanted.typeOrigin + "\n";
            choice.specs.push_back(spec);
            continue;
        }
        for (const std::string& userName : node.users) {
            const Node* user = d->graph.find(userName);
            if (!user || user->hidden || user->op != Op::CallModule)
                continue;
            if (d->model->d().exported)
                break; // no modules to read shapes off: its example inputs have them
            if (auto m = submodule(d->model->d().module, user->target))
                source = guessFromModule(*m, user->moduleType, user->target, spec);
            // The first module that consumes it decides, as a person reading the graph would
            // (vit_b_16 reads x.shape before its conv_proj).
            break;
        }
        if (source.empty()) {
            choice.error = "Cannot guess an input for '" + node.name +
                           "' from the graph; give one with --input, e.g. --input 1x3x224x224 "
                           "or --input 2x8:int64.";
            return choice;
        }
        choice.explanation +=
            "input " + node.name + ": " + spec.text() + ", guessed from " + source + "\n";
        choice.specs.push_back(spec);
    }
    return choice;
}

const std::vector<ValueSummary>& Interpreter::inputSummaries() const {
    return d->inputSummaries;
}

StopReason Interpreter::step() {
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
    TraceResult traced =
        module ? traceModule(s.module, s.name) : traceFunction(*s.function, s.name);
    if (!traced.ok())
        return d->advance(); // its inside cannot be shown: run it whole
    auto childModel = std::make_shared<Model>(std::make_unique<Model::Private>(Model::Private{
        d->model->source() + ":" + s.name, module ? s.module : d->model->d().module, nullptr}));
    d->child = std::make_unique<Interpreter>(childModel, std::move(traced), d->options);
    d->child->d->inputs = d->resolveAll(s.inputs);
    d->childStep = id;
    return d->stepChild(false);
}

StopReason Interpreter::stepOut() {
    if (!d->child)
        return runToEnd();
    torch::NoGradGuard noGrad;
    while (d->child && !d->failed)
        if (d->stepChild(false) == StopReason::Failed)
            return StopReason::Failed;
    return d->stopState();
}

StopReason Interpreter::runTo(const std::string& node) {
    while (!d->finished && !d->failed) {
        StopReason r = step();
        if (r == StopReason::Failed || lastNode() == node)
            return r;
    }
    return d->stopState();
}

StopReason Interpreter::runToEnd() {
    bool first = true;
    while (!d->finished && !d->failed) {
        // A breakpoint stops the run before its node; continuing from it runs that node.
        if (!first && d->breakpoints.count(nextNode()))
            return StopReason::Breakpoint;
        first = false;
        if (step() == StopReason::Failed)
            return StopReason::Failed;
    }
    return d->stopState();
}

void Interpreter::reset() {
    d->resetRun();
}

void Interpreter::setBreakpoint(const std::string& node, bool on) {
    if (on)
        d->breakpoints.insert(node);
    else
        d->breakpoints.erase(node);
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
    int id = d->nextStep();
    return id < 0 ? std::string() : d->stepAt(id).name;
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
        if (n.op == Op::Output && !n.outputRoles.empty() && saved.isTuple()) {
            std::vector<c10::IValue> user;
            const auto& items = saved.toTupleRef().elements();
            for (std::size_t i = 0; i < items.size() && i < n.outputRoles.size(); ++i)
                if (n.outputRoles[i].kind == "user_output")
                    user.push_back(items[i]);
            saved = c10::ivalue::Tuple::create(std::move(user));
        }
    try {
        std::vector<char> bytes = torch::jit::pickle_save(saved); // torch.save's zip format
        std::ofstream file(path, std::ios::binary);
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (file)
            return {};
    } catch (const std::exception& e) {
        return "Cannot save the outputs to '" + path + "': " + firstLineOf(e) + ".";
    }
    return "Cannot write '" + path + "': check that its folder exists and is writable.";
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

} // namespace fxview

namespace fxview {

int Interpreter::liveValueCount() const {
    int live = 0;
    for (const c10::IValue& v : d->slots)
        live += v.isNone() ? 0 : 1;
    return live;
}

} // namespace fxview
