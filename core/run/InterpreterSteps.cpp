// torch.fx's Interpreter in C++: an environment of values (slots), one runSimple that dispatches
// on the kind of step, and failures reported with the node that raised. Control flow is stepped
// through with a stack of frames, one per block being run; a block run to its end is closed by
// unwind. Stepping into a module hands each step to a child interpreter. Apart from
// Interpreter.cpp, which only drives this machine for the debugger's commands.

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <c10/core/GradMode.h>

#include "EagerGrad.h"
#include "Functorch.h"
#include "InterpreterPrivate.h"
#include "ModelPrivate.h"
#include "NodeCost.h"
#include "TorchValues.h"

namespace fxview {

namespace {

std::string describeOperand(const c10::IValue& v) {
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        return t.defined() ? formatShape(t.sizes().vec()) + " " + dtypeName(t.scalar_type())
                           : "undefined tensor";
    }
    return shortDescription(summarize(v, false));
}

c10::IValue packOutputs(torch::jit::Stack& stack, int outputs) {
    if (outputs == 1)
        return stack.back();
    std::vector<c10::IValue> values(stack.end() - outputs, stack.end());
    return c10::ivalue::Tuple::create(std::move(values));
}

// Nodes a step runs along with the next one a person steps to: hidden guards, and weights —
// a torch.export program's parameter, buffer and constant placeholders (resnet18 has 62 of them
// before its input) and a get_attr of a tensor — which the picture draws inside the box of the
// node reading them: a step of their own would change nothing a person sees.
bool runsAlong(const Node* n) {
    return n && (n->hidden || (n->op == Op::Placeholder && !n->isInput()) ||
                 (n->op == Op::GetAttr && n->tensors.size() == 1));
}

} // namespace

c10::IValue Interpreter::Private::resolve(const ValueSource& source) const {
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
    case ValueSource::Kind::Dict: {
        c10::impl::GenericDict dict(source.dictKey, source.listElement);
        for (std::size_t i = 0; i < source.keys.size() && i < source.items.size(); ++i)
            dict.insert_or_assign(source.keys[i], resolve(source.items[i]));
        return dict;
    }
    }
    return {};
}

torch::jit::Stack Interpreter::Private::resolveAll(const std::vector<ValueSource>& sources) const {
    torch::jit::Stack stack;
    for (const ValueSource& s : sources)
        stack.push_back(resolve(s));
    return stack;
}

// --- recording -----------------------------------------------------------------------

void Interpreter::Private::recordDone(int id, const c10::IValue& value, Clock::time_point start) {
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    r.state = NodeState::Done;
    r.runs += 1;
    r.timeUs = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    // A value inside torch.vmap is shown as the batch it stands for.
    const c10::IValue shown = physicalValue(value);
    r.value = summarize(shown, options.fullSummaries);
    if (const Step& s = stepAt(id); !s.subgraph.empty()) {
        r.value = ValueSummary{};
        r.value.type = "GraphModule";
        r.value.value = s.subgraph;
    }
    versions[static_cast<std::size_t>(id)] = versionOf(shown);
    if (!options.capturedNode.empty() && stepAt(id).name == options.capturedNode) {
        // A copy: an in-place op later in the run must not change what the node produced.
        try {
            captured = shown.deepcopy();
        } catch (const std::exception&) {
            captured = shown; // an object deepcopy cannot copy: held as it is
        }
        hasCaptured = true;
    }
    last = stepAt(id).name;
    noteRan(last);
}

void Interpreter::Private::fail(int id, const std::string& why, const torch::jit::Stack& operands) {
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
    noteRan(last);
}

// Marks every node of a block that has not run as not executed (a branch not taken).
void Interpreter::Private::markNotExecuted(const StepBlock& block) {
    for (int id : block.steps) {
        NodeRecord& r = records[static_cast<std::size_t>(id)];
        if (r.state == NodeState::Pending)
            r.state = NodeState::NotExecuted;
        for (const StepBlock& inner : stepAt(id).blocks)
            markNotExecuted(inner);
    }
}

void Interpreter::Private::noteRan(const std::string& name) {
    order.push_back(name);
    // Past the bound, the oldest entries after the first kOrderHead go, a chunk at a time: the
    // order keeps how the run began and what it did last.
    if (order.size() > kMaxOrder) {
        auto from = order.begin() + kOrderHead;
        order.erase(from, from + static_cast<std::ptrdiff_t>(kMaxOrder / 2));
    }
}

void Interpreter::Private::logPath(PathEvent::Kind kind, int id, int block,
                                   std::int64_t iteration) {
    const Node* n = nodeOf[static_cast<std::size_t>(id)];
    // A higher-order op stays one node in the path, as make_fx records it: what runs inside
    // its blocks is not logged.
    if (!n || insideHop())
        return;
    // A loop that runs on and on (or never ends) costs bounded memory: the log keeps its first
    // events, each node's record keeps its last run and count (`runs`).
    if (pathLog.size() >= kMaxPathEvents)
        return;
    pathLog.push_back(PathEvent{kind, n, block, iteration, {}, false});
    // Inside an if or a loop the record is overwritten by the next run, so this run's
    // summary is kept; a top-level node runs once and its record is read when asked.
    if ((kind == PathEvent::Kind::Ran || kind == PathEvent::Kind::HopRan) && frames.size() > 1) {
        pathLog.back().value = records[static_cast<std::size_t>(id)].value;
        pathLog.back().hasValue = true;
    }
}

// --- running -------------------------------------------------------------------------

// Runs a step that is not control flow; false if it raised.
bool Interpreter::Private::runSimple(int id) {
    const Step& s = stepAt(id);
    torch::jit::Stack stack;
    std::unordered_map<const void*, std::int64_t> versionsBefore; // NodeCost.h
    auto start = Clock::now();
    // The operands of a step that calls something, and their version counters before the call:
    // an input whose counter moves was written in place.
    auto takeOperands = [&] {
        stack = resolveAll(s.inputs);
        versionsBefore = versionsByStorage(stack);
    };
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
            value = s.loadAttribute ? s.loadAttribute() : s.attribute;
            if (castTo && value.isTensor() && value.toTensor().is_floating_point())
                value = value.toTensor().to(*castTo);
            break;
        case Step::Kind::Operator:
            takeOperands();
            if (!s.operation)
                throw std::runtime_error("LibTorch has no operator to run " + s.unsupported);
            {
                torch::jit::Stack work = stack;
                if (s.varargCount >= 0)
                    work.emplace_back(static_cast<std::int64_t>(s.varargCount));
                c10::AutoGradMode grad(gradHere());
                (*s.operation)(work);
                value = packOutputs(work, s.outputs);
                if (plan->eagerGrad)
                    value = withoutHistory(value);
            }
            break;
        case Step::Kind::CallModule: {
            takeOperands();
            torch::jit::Stack work = stack;
            work.insert(work.begin(), s.module._ivalue());
            s.function->run(work);
            value = work.back();
            break;
        }
        case Step::Kind::Function: {
            takeOperands();
            torch::jit::Stack work = stack;
            s.function->run(work);
            value = work.back();
            break;
        }
        case Step::Kind::GetItem: {
            c10::IValue whole = resolve(s.inputs[0]);
            stack = {whole}; // its item holds no storage of its own
            auto index = static_cast<std::size_t>(s.index);
            std::size_t size =
                whole.isTuple() ? whole.toTupleRef().elements().size() : whole.toListRef().size();
            if (s.unpacked >= 0 && size != static_cast<std::size_t>(s.unpacked))
                throw std::runtime_error("Expected " + std::to_string(s.unpacked) +
                                         " elements in a list but found " + std::to_string(size));
            value = whole.isTuple() ? whole.toTupleRef().elements().at(index)
                                    : whole.toListRef().at(index);
            break;
        }
        case Step::Kind::PassThrough:
            value = resolve(s.inputs[0]);
            stack = {value};
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
            if (s.shapeOutput)
                value = s.shapeOutput(value);
            outputShaped = static_cast<bool>(s.shapeOutput);
            output = value;
            break;
        case Step::Kind::If:
        case Step::Kind::Loop:
        case Step::Kind::Hop:
            break; // handled by enterControl and enterHop
        }
        recordDone(id, value, start);
        if (s.kind != Step::Kind::Output)
            noteCost(id, stack, versionsBefore, value);
        if (afterStep)
            afterStep(id, value);
        slots[static_cast<std::size_t>(s.slot)] = value;
        records[static_cast<std::size_t>(id)].warning = warning;
        logPath(PathEvent::Kind::Ran, id);
        return true;
    } catch (const std::exception& e) {
        fail(id, firstLineOf(e), stack);
        return false;
    }
}

// Starts an if or a loop: decides the branch or the first iteration and pushes its block.
bool Interpreter::Private::enterControl(int id) {
    const Step& s = stepAt(id);
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    r.blockRuns.resize(s.blocks.size(), 0);
    auto start = Clock::now();
    torch::jit::Stack operands = resolveAll(s.inputs);
    try {
        if (s.kind == Step::Kind::If) {
            // torch.cond's predicate is a one-element tensor, TorchScript's a bool.
            bool condition =
                operands[0].isTensor() ? operands[0].toTensor().item<bool>() : operands[0].toBool();
            std::size_t taken = condition ? 0 : 1;
            r.blockRuns[taken] += 1;
            for (std::size_t b = 0; b < s.blocks.size(); ++b)
                if (b != taken)
                    markNotExecuted(s.blocks[b]);
            // A subgraph's placeholders take the operands that follow the predicate.
            const StepBlock& branch = s.blocks[taken];
            for (std::size_t i = 0; i < branch.params.size() && i + 1 < operands.size(); ++i)
                slots[static_cast<std::size_t>(branch.params[i])] = operands[i + 1];
            frames.push_back(Frame{&s.blocks[taken].steps, 0, id, 0, 0, {}});
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
                frames.push_back(Frame{&body.steps, 0, id, 0, trips, {}});
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
    noteEntered(id, start);
    return true;
}

void Interpreter::Private::noteEntered(int id, Clock::time_point start) {
    last = stepAt(id).name;
    noteRan(last);
    records[static_cast<std::size_t>(id)].timeUs =
        std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

void Interpreter::Private::finishControl(int id, std::vector<c10::IValue> results,
                                         Clock::time_point start) {
    const Step& s = stepAt(id);
    c10::IValue value = s.yieldsList          ? c10::ivalue::Tuple::create(results)
                        : results.size() == 1 ? results[0]
                        : results.empty()     ? c10::IValue()
                                              : c10::ivalue::Tuple::create(std::move(results));
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    double entering = r.timeUs;
    r.state = NodeState::Done;
    r.runs += 1;
    r.value = summarize(value, options.fullSummaries);
    noteCost(id, resolveAll(s.inputs), {}, value);
    if (afterStep)
        afterStep(id, value);
    slots[static_cast<std::size_t>(s.slot)] = value;
    r.timeUs = entering + std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    frames.back().pc += 1;
    afterTopLevel(id);
}

namespace {

// Whether a module's forward starts by transposing its first input's dimensions 1 and 0: what a
// traced nn.MultiheadAttention with batch_first does, the attribute itself not kept by tracing.
bool transposesItsQuery(const torch::jit::Module& module) {
    auto forward = module.find_method("forward");
    if (!forward || forward->graph()->inputs().size() < 2)
        return false;
    for (const torch::jit::Use& use : forward->graph()->inputs()[1]->uses()) {
        const torch::jit::Node* n = use.user;
        if (n->kind() != c10::aten::transpose || n->inputs().size() != 3)
            continue;
        auto a = torch::jit::constant_as<std::int64_t>(n->input(1));
        auto b = torch::jit::constant_as<std::int64_t>(n->input(2));
        if (a && b && ((*a == 1 && *b == 0) || (*a == 0 && *b == 1)))
            return true;
    }
    return false;
}

} // namespace

// The node's new storage, aliasing and FLOPs (NodeCost.h); a weight's storage is noted so that
// the live set leaves it out.
void Interpreter::Private::noteCost(
    int id, const torch::jit::Stack& operands,
    const std::unordered_map<const void*, std::int64_t>& versionsBefore, const c10::IValue& value) {
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    noteOutputCost(r, operands, versionsBefore, value);
    const Step& s = stepAt(id);
    const Node* n = nodeOf[static_cast<std::size_t>(id)];
    if (isWeight(id)) {
        StorageBytes storages;
        addStorages(value, storages);
        for (const auto& storage : storages)
            weightStorages.insert(storage.first);
    }
    ModuleFacts facts;
    if (s.kind == Step::Kind::CallModule) {
        auto attr = [&](const char* name) {
            return s.module.hasattr(name) ? s.module.attr(name) : c10::IValue();
        };
        facts.weight = attr("weight");
        facts.batchFirst = attr("batch_first");
        if (facts.batchFirst.isNone() && n && n->moduleType.ends_with("MultiheadAttention"))
            facts.batchFirst = transposesItsQuery(s.module);
        const c10::IValue biasK = attr("bias_k"), zeroAttn = attr("add_zero_attn");
        facts.addedKeys = (biasK.isTensor() && biasK.toTensor().defined() ? 1 : 0) +
                          (zeroAttn.isBool() && zeroAttn.toBool() ? 1 : 0);
    }
    r.flops = n ? countFlops(*n, operands, value, facts) : 0;
}

bool Interpreter::Private::isWeight(int id) const {
    const Step& s = stepAt(id);
    const Node* n = nodeOf[static_cast<std::size_t>(id)];
    return s.kind == Step::Kind::Attribute ||
           (s.kind == Step::Kind::Placeholder && n && !n->isInput());
}

// The bytes every value a later top-level node uses holds once `id` has run, weights apart:
// the values torch.fx's Interpreter still has in its env, less any no later node reads. The
// largest such set is the run's peak, kept with what is alive there.
void Interpreter::Private::noteLive(int id) {
    const std::size_t at = topPosition[static_cast<std::size_t>(id)];
    const int slot = stepAt(id).slot;
    if (slot >= 0 && lastUseAt[static_cast<std::size_t>(slot)] > static_cast<std::int64_t>(at) &&
        !isWeight(id))
        liveValues.push_back({slot, id});
    std::erase_if(liveValues, [&](const std::pair<int, int>& live) {
        return lastUseAt[static_cast<std::size_t>(live.first)] <= static_cast<std::int64_t>(at);
    });
    std::vector<const c10::IValue*> values;
    for (const auto& live : liveValues)
        values.push_back(&slots[static_cast<std::size_t>(live.first)]);
    const std::vector<std::int64_t> shares = storageShares(values, weightStorages);
    std::int64_t total = 0;
    for (std::int64_t share : shares)
        total += share;
    records[static_cast<std::size_t>(id)].liveBytes = total;
    if (total <= peak.bytes)
        return;
    peak = PeakLive{stepAt(id).name, total, {}};
    for (std::size_t i = 0; i < liveValues.size(); ++i)
        peak.values.push_back({stepAt(liveValues[i].second).name, shares[i]});
    std::stable_sort(peak.values.begin(), peak.values.end(),
                     [](const LiveValue& a, const LiveValue& b) { return a.bytes > b.bytes; });
}

void Interpreter::Private::afterTopLevel(int id) {
    if (frames.size() != 1)
        return;
    noteLive(id);
    if (options.keepValues)
        return;
    // Values no later node needs are freed, as torch.fx frees them, once the ones kept for the
    // Values view fill options.keepBytes.
    for (int slot : freeAfter[static_cast<std::size_t>(id)]) {
        c10::IValue& value = slots[static_cast<std::size_t>(slot)];
        std::int64_t bytes = tensorBytes(value);
        if (keptBytes + bytes <= options.keepBytes)
            keptBytes += bytes;
        else
            value = c10::IValue();
    }
}

// Closes every block that has run to its end: an if yields its results, a loop either
// starts its next iteration or yields its carried values. Leaves frames pointing at the
// next node to run.
void Interpreter::Private::unwind() {
    while (!failed) {
        Frame& f = frames.back();
        if (f.pc < f.steps->size())
            return;
        if (f.owner < 0) {
            finished = true;
            return;
        }
        if (f.hop) {
            unwindHop();
            continue;
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

bool Interpreter::Private::nextIsHidden() const {
    int id = nextStep();
    return runsAlong(id < 0 ? nullptr : nodeOf[static_cast<std::size_t>(id)]);
}

bool Interpreter::Private::lastWasHidden() const {
    auto it = plan->stepOf.find(last);
    return runsAlong(it == plan->stepOf.end() ? nullptr
                                              : nodeOf[static_cast<std::size_t>(it->second)]);
}

int Interpreter::Private::nextStep() const {
    if (finished || failed)
        return -1;
    const Frame& f = frames.back();
    return (*f.steps)[f.pc];
}

int Interpreter::Private::nextShownStep() const {
    int id = nextStep();
    if (id < 0)
        return id;
    const Frame& f = frames.back();
    for (std::size_t pc = f.pc; pc < f.steps->size(); ++pc)
        if (int ahead = (*f.steps)[pc]; !runsAlong(nodeOf[static_cast<std::size_t>(ahead)]))
            return ahead;
    return id;
}

StopReason Interpreter::Private::stopState() const {
    return failed ? StopReason::Failed : finished ? StopReason::Finished : StopReason::Stepped;
}

// One step of this interpreter's own graph.
StopReason Interpreter::Private::advance() {
    int id = nextStep();
    if (id < 0)
        return stopState();
    const Step& s = stepAt(id);
    if (s.kind == Step::Kind::If || s.kind == Step::Kind::Loop) {
        if (!enterControl(id))
            return StopReason::Failed;
    } else if (s.kind == Step::Kind::Hop) {
        if (!enterHop(id))
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
void Interpreter::Private::completeChild() {
    int id = childStep;
    c10::IValue value = child->d->output;
    auto start = Clock::now();
    slots[static_cast<std::size_t>(stepAt(id).slot)] = value;
    recordDone(id, value, start);
    noteCost(id, resolveAll(stepAt(id).inputs), {}, value);
    // The module's time and FLOPs are what its own nodes took and counted.
    NodeRecord& record = records[static_cast<std::size_t>(id)];
    record.timeUs = 0;
    record.flops = 0;
    for (const NodeRecord& r : child->d->records) {
        record.timeUs += r.timeUs;
        record.flops += r.flops;
    }
    logPath(PathEvent::Kind::Ran, id);
    child.reset();
    childStep = -1;
    frames.back().pc += 1;
    afterTopLevel(id);
    unwind();
}

// One step inside the module stepped into (`into`: deeper into its own call_modules).
StopReason Interpreter::Private::stepChild(bool into) {
    StopReason r = into ? child->stepInto() : child->step();
    const std::string& childName = stepAt(childStep).name;
    noteRan(childName + "." + child->lastNode());
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

} // namespace fxview
