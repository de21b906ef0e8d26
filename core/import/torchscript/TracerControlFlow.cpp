// What the tracer makes of prim::If and prim::Loop: an if on a value known while tracing keeps
// only the branch taken and a loop over a known range is unrolled, as Python would run them;
// torch._assert's inlined if is one call_function; any other if or loop is a node whose blocks
// are traced into node lists of their own. Apart because
// blocks redirect where the walk emits, and the assert's message is rebuilt as torch.fx makes it.

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "FxText.h"
#include "TracerState.h"

namespace fxview {

namespace {

namespace jit = torch::jit;

// A guard: `if cond: raise ...` or `if cond: warnings.warn(...)` with nothing flowing out of
// either branch. torch.fx never records one (a Proxy condition cannot be traced through).
bool isRaiseOnlyGuard(const jit::Node* n) {
    if (n->kind() != c10::prim::If || n->outputs().size() != 0)
        return false;
    for (const jit::Block* b : n->blocks())
        for (const jit::Node* inner : b->nodes())
            if (inner->kind() == c10::prim::RaiseException || inner->kind() == c10::aten::warn)
                return true;
    return false;
}

// How many iterations a loop may have for it to be unrolled: torch.fx unrolls any count, but a
// picture of thousands of copies of a body says less than the loop node does.
constexpr std::int64_t kMaxUnrolledTrips = 1024;

// Whether the loop's body always asks for another iteration (`for`, no `break`): its condition
// output is the constant true.
bool continuesAlways(const jit::Node* loop) {
    c10::optional<c10::IValue> condition = jit::toIValue(loop->blocks()[0]->outputs()[0]);
    return condition && condition->isBool() && condition->toBool();
}

bool unrolledTrips(const c10::optional<c10::IValue>& trips,
                   const c10::optional<c10::IValue>& start) {
    return trips && trips->isInt() && trips->toInt() <= kMaxUnrolledTrips && start &&
           start->isBool();
}

} // namespace

bool Tracer::mayRunInPlaceOf(const jit::Node* user, const jit::Block* home) {
    for (const jit::Block* block = user->owningBlock(); block != home;) {
        const jit::Node* owner = block->owningNode();
        // A loop's trip count may be known only while tracing (`len` of a list literal).
        if (!owner || (owner->kind() != c10::prim::If &&
                       (owner->kind() != c10::prim::Loop || !continuesAlways(owner))))
            return false;
        block = owner->owningBlock();
    }
    return true;
}

// A `for i in range(3)` that Python runs while torch.fx traces it: the trip count is known (a
// constant, or an int attribute folded to one) and the body never breaks. The body is traced once
// per iteration, as torch.fx records it (add, add_1, add_2), each iteration's carried values
// handed to the next; no loop node is left.
bool Tracer::unrollLoop(const jit::Node* n, Frame& frame) {
    const Binding& trips = dataOf(frame, n->inputs()[0]);
    const Binding& start = dataOf(frame, n->inputs()[1]);
    if (!continuesAlways(n) || !unrolledTrips(trips.constant, start.constant))
        return false;
    const std::int64_t count =
        start.constant->toBool() ? std::max<std::int64_t>(trips.constant->toInt(), 0) : 0;
    const jit::Block* body = n->blocks()[0];
    std::vector<Binding> carried;
    for (std::size_t i = 2; i < n->inputs().size(); ++i)
        carried.push_back(lookup(frame, n->inputs()[i]));
    for (std::int64_t i = 0; i < count; ++i) {
        frame[body->inputs()[0]] = constant(c10::IValue(i));
        for (std::size_t k = 0; k < carried.size(); ++k)
            frame[body->inputs()[k + 1]] = carried[k];
        traceNodes(body, frame);
        for (std::size_t k = 0; k < carried.size(); ++k)
            carried[k] = lookup(frame, body->outputs()[k + 1]);
    }
    for (std::size_t k = 0; k < carried.size(); ++k)
        frame[n->outputs()[k]] = carried[k];
    return true;
}

void Tracer::traceIf(const jit::Node* n, Frame& frame) {
    const Binding& condition = dataOf(frame, n->input());
    if (condition.constant && condition.constant->isBool()) {
        // Known while tracing (a flag attribute like use_res_connect): torch.fx would only
        // ever see the branch taken, so that branch is inlined.
        const jit::Block* taken = n->blocks()[condition.constant->toBool() ? 0 : 1];
        traceNodes(taken, frame);
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = lookup(frame, taken->outputs()[i]);
        return;
    }
    if (auto message = assertMessage(n, frame))
        return traceAssert(condition, message->first, message->second, frame);
    Node node;
    node.op = Op::CallFunction;
    node.target = "prim::If";
    node.schema = "prim::If";
    node.args = {condition.arg};
    node.hidden = isRaiseOnlyGuard(n);
    Step step;
    step.kind = Step::Kind::If;
    step.inputs = {condition.source};
    // What a branch yields that is an object (the module `self.a if c else self.b` picks) is no
    // result of the if: it becomes a Choice, and a call on it an if of its own.
    std::vector<bool> object(n->outputs().size(), false);
    std::vector<std::vector<Binding>> objects(n->outputs().size());
    const char* labels[] = {"true", "false"};
    for (std::size_t b = 0; b < n->blocks().size(); ++b) {
        const jit::Block* block = n->blocks()[b];
        node.blocks.push_back(traceBlockOf(
            labels[b], {}, {},
            [&] {
                traceNodes(block, frame);
                std::vector<const jit::Value*> results;
                for (std::size_t i = 0; i < block->outputs().size(); ++i) {
                    const Binding& out = lookup(frame, block->outputs()[i]);
                    if (out.kind == Binding::Kind::Data && !object[i]) {
                        results.push_back(block->outputs()[i]);
                        continue;
                    }
                    if (b > 0 && !object[i])
                        throw TraceError("an if yields an object (a module or function) from one "
                                         "branch and a value from the other");
                    object[i] = true;
                    objects[i].push_back(out);
                }
                return results;
            },
            frame));
        step.blocks.push_back(lastBlock_);
    }
    std::vector<const jit::Value*> values;
    for (std::size_t i = 0; i < n->outputs().size(); ++i) {
        if (!object[i]) {
            values.push_back(n->outputs()[i]);
            continue;
        }
        if (objects[i].size() != 2)
            throw TraceError("an if yields an object (a module or function) from one branch and "
                             "a value from the other");
        Binding choice;
        choice.kind = Binding::Kind::Choice;
        choice.arg = condition.arg;
        choice.source = condition.source;
        choice.items = std::move(objects[i]);
        frame[n->outputs()[i]] = std::move(choice);
    }
    const bool empty = std::all_of(node.blocks.begin(), node.blocks.end(),
                                   [](const Block& b) { return b.nodes.empty(); });
    if (values.empty() && empty && n->outputs().size() > 0)
        return; // it only picked objects: its calls are ifs of their own
    // A hidden guard takes a name of its own, so the ifs a person sees are cond, cond_1...
    std::string candidate = node.hidden ? "guard" : "cond";
    emitValues(values, std::move(node), candidate, std::move(step), frame);
}

void Tracer::traceChosenCall(const jit::Node* n, const Binding& choice, Frame& frame) {
    Node node;
    node.op = Op::CallFunction;
    node.target = "prim::If";
    node.schema = "prim::If";
    node.args = {choice.arg};
    Step step;
    step.kind = Step::Kind::If;
    step.inputs = {choice.source};
    const char* labels[] = {"true", "false"};
    const jit::Value* self = n->inputs()[0];
    for (std::size_t b = 0; b < 2; ++b) {
        node.blocks.push_back(traceBlockOf(
            labels[b], {}, {},
            [&] {
                // The same call with this branch's module as self: traced as any other call.
                frame[self] = choice.items[b];
                traceNode(n, frame);
                frame[self] = choice;
                return std::vector<const jit::Value*>(n->outputs().begin(), n->outputs().end());
            },
            frame));
        step.blocks.push_back(lastBlock_);
    }
    std::vector<const jit::Value*> values(n->outputs().begin(), n->outputs().end());
    emitValues(values, std::move(node), "cond", std::move(step), frame);
}

void Tracer::traceLoop(const jit::Node* n, Frame& frame) {
    if (unrollLoop(n, frame))
        return;
    HeldUses heldUses(*this, n, frame); // a loop that stays takes nodes
    Node node;
    node.op = Op::CallFunction;
    node.target = "prim::Loop";
    node.schema = "prim::Loop";
    for (const jit::Value* input : n->inputs())
        node.args.push_back(dataOf(frame, input).arg);
    Step step;
    step.kind = Step::Kind::Loop;
    step.inputs = sourcesOf(frame, n, 0);
    const jit::Block* body = n->blocks()[0];
    std::vector<std::string> params;
    std::vector<int> paramSlots;
    for (std::size_t i = 0; i < body->inputs().size(); ++i) {
        std::string name = baseName(body->inputs()[i]->debugName());
        params.push_back(namer_.create(name.empty() ? (i == 0 ? "i" : "carried") : name));
        paramSlots.push_back(plan_->slotCount++);
        frame[body->inputs()[i]] =
            data(Argument::ofNode(params.back()), ValueSource::ofSlot(paramSlots.back()));
    }
    node.blocks.push_back(traceBlock(body, "body", params, paramSlots, frame));
    step.blocks.push_back(lastBlock_);
    emitFor(n, std::move(node), "loop", std::move(step), frame);
}

// Traces a control-flow block into its own node list; values from outside stay visible.
Block Tracer::traceBlock(const jit::Block* block, const std::string& label,
                         std::vector<std::string> params, std::vector<int> paramSlots,
                         Frame& frame) {
    return traceBlockOf(
        label, std::move(params), std::move(paramSlots),
        [&] {
            traceNodes(block, frame);
            return std::vector<const jit::Value*>(block->outputs().begin(), block->outputs().end());
        },
        frame);
}

Block Tracer::traceBlockOf(const std::string& label, std::vector<std::string> params,
                           std::vector<int> paramSlots,
                           const std::function<std::vector<const jit::Value*>()>& body,
                           Frame& frame) {
    Block result;
    result.label = label;
    result.params = std::move(params);
    StepBlock steps;
    steps.params = std::move(paramSlots);
    std::vector<Node>* savedNodes = out_;
    std::vector<int>* savedSteps = outSteps_;
    out_ = &result.nodes;
    outSteps_ = &steps.steps;
    ++runtimeBlocks_;
    const int outerBlock = currentBlock_;
    currentBlock_ = ++blockSerial_;
    std::vector<const jit::Value*> outputs = body();
    currentBlock_ = outerBlock;
    --runtimeBlocks_;
    for (const jit::Value* v : outputs) {
        // A held tensor the block yields gets its get_attr inside the block, for this use.
        const Binding yielded =
            lookup(frame, v).held ? materialize(lookup(frame, v)) : dataOf(frame, v);
        result.results.push_back(yielded.arg);
        steps.results.push_back(yielded.source);
    }
    out_ = savedNodes;
    outSteps_ = savedSteps;
    lastBlock_ = std::move(steps);
    return result;
}

// The message of `torch._assert(cond, message)`, which TorchScript inlines from its builtin
// `def _assert(condition, message): assert condition, message` as an if whose false branch
// raises "AssertionError: " + message (one constant string when the message is one). The
// message, and the value it came from (none for a constant), or nullopt for any other if.
std::optional<std::pair<Tracer::Binding, const jit::Value*>>
Tracer::assertMessage(const jit::Node* n, const Frame& frame) {
    if (!isRaiseOnlyGuard(n) || n->blocks().size() != 2 ||
        n->blocks()[0]->nodes().begin() != n->blocks()[0]->nodes().end() ||
        sourceSpelling_.builtinDefinition(n) != "_assert")
        return std::nullopt;
    std::vector<const jit::Node*> raise(n->blocks()[1]->nodes().begin(),
                                        n->blocks()[1]->nodes().end());
    if (raise.empty() || raise.back()->kind() != c10::prim::RaiseException)
        return std::nullopt;
    if (raise.size() == 2 && raise[0]->kind() == c10::aten::add && raise[0]->inputs().size() == 2)
        return std::make_pair(dataOf(frame, raise[0]->inputs()[1]), raise[0]->inputs()[1]);
    const Binding& whole = dataOf(frame, raise.back()->inputs()[0]);
    const std::string prefix = "AssertionError: ";
    if (raise.size() != 1 || !whole.constant || !whole.constant->isString() ||
        whole.constant->toStringRef().rfind(prefix, 0) != 0)
        return std::nullopt;
    return std::make_pair(
        constant(c10::IValue(whole.constant->toStringRef().substr(prefix.size()))),
        static_cast<const jit::Value*>(nullptr));
}

// torch.fx records torch._assert as a call: `_assert(eq, 'Wrong image height! Expected 224
// but got Proxy(getitem_2)!')`, its f-string made while tracing, a Proxy printed as
// Proxy(name). fxview shows that text and keeps the aten::format that builds the real
// message hidden (torch.fx has no node for it); the step raises with the real message.
void Tracer::traceAssert(const Binding& condition, const Binding& message,
                         const jit::Value* messageValue, Frame& frame) {
    Node node;
    node.op = Op::CallFunction;
    node.target = "torch._assert";
    node.args = {condition.arg, Argument::ofString(tracedMessage(message, messageValue, frame))};
    Step step;
    step.kind = Step::Kind::Assert;
    step.inputs = {condition.source, message.source};
    if (message.arg.isNode())
        assertMessages_.push_back(message.arg.text);
    emitValue(std::move(node), "_assert", std::move(step));
}

// The message torch.fx's trace would have made: an f-string's `{}` filled with each value's
// str(), a traced value's being "Proxy(name)".
std::string Tracer::tracedMessage(const Binding& b, const jit::Value* message,
                                  const Frame& frame) const {
    if (b.constant && b.constant->isString())
        return b.constant->toStringRef();
    if (!message)
        return std::string();
    const jit::Node* format = message->node();
    if (format->kind() != c10::aten::format || format->inputs().empty() ||
        !dataOf(frame, format->inputs()[0]).constant)
        return b.arg.isNode() ? "Proxy(" + b.arg.text + ")" : std::string();
    std::string pattern = dataOf(frame, format->inputs()[0]).constant->toStringRef();
    std::string text;
    std::size_t next = 1;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern.compare(i, 2, "{}") != 0 || next >= format->inputs().size()) {
            text += pattern[i];
            continue;
        }
        const Binding& value = dataOf(frame, format->inputs()[next++]);
        text += value.arg.isNode() ? "Proxy(" + value.arg.text + ")" : pythonStr(value);
        ++i;
    }
    return text;
}

std::string Tracer::pythonStr(const Binding& b) {
    if (!b.constant)
        return formatArgument(b.arg);
    const c10::IValue& v = *b.constant;
    if (v.isString())
        return v.toStringRef();
    if (v.isDouble())
        return pythonFloatRepr(v.toDouble());
    return formatArgument(b.arg);
}

} // namespace fxview
