// torch.export's higher-order ops other than cond, stepped block by block: while_loop runs its
// cond block, then its body while cond said true; scan and map run their block once per slice
// of their xs along dim 0; wrap_with_set_grad_enabled and wrap_with_autocast run theirs once
// under the grad mode or autocast state they name; invoke_subgraph runs its subgraph once. Each
// follows PyTorch's dense implementation in torch/_higher_order_ops/ (while_loop_dense,
// generic_scan, map_dense, and the wrappers' context managers), so the values are the ones
// ep.module() computes.

#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "InterpreterPrivate.h"
#include "ModelPrivate.h"
#include "TorchValues.h"

namespace fxview {

namespace {

using Values = std::vector<c10::IValue>;

Values slice(const Values& all, std::size_t from, std::size_t count) {
    if (from + count > all.size())
        throw std::runtime_error("the op was given " + std::to_string(all.size()) +
                                 " inputs where it needs at least " + std::to_string(from + count));
    return Values(all.begin() + static_cast<std::ptrdiff_t>(from),
                  all.begin() + static_cast<std::ptrdiff_t>(from + count));
}

Values joined(Values a, const Values& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Slice `i` of each of xs along dim 0, as views (scan's and map's elements after the first).
Values rowOf(const Values& xs, std::int64_t i) {
    Values row;
    for (const c10::IValue& x : xs)
        row.push_back(x.toTensor().select(0, i));
    return row;
}

std::int64_t leadingLength(const Values& xs, const char* op) {
    std::int64_t n = -1;
    for (const c10::IValue& x : xs) {
        if (!x.isTensor() || x.toTensor().dim() == 0)
            throw std::runtime_error(std::string(op) + "'s xs must be tensors of at least one "
                                                       "dimension");
        std::int64_t len = x.toTensor().size(0);
        if (n >= 0 && len != n)
            throw std::runtime_error(std::string(op) +
                                     "'s xs must have the same leading dimension size");
        n = len;
    }
    return n < 0 ? 0 : n;
}

} // namespace

// The state torch's context managers would hold, restored when the frame is dropped (the block
// finished, failed, or the run was restarted mid-block).
struct Interpreter::Private::HopState {
    Values carried;    // WhileLoop: the loop's carried values; Scan: the carry
    Values additional; // WhileLoop, Scan: passed to every run; Map: the non-mapped arguments
    Values xs;         // Scan, Map: the sliced inputs
    std::int64_t length = 0;
    std::vector<at::Tensor> outs; // Scan: the stacked outputs, preallocated at element 0
    std::vector<Values> perSlice; // Map: each slice's results, stacked at the end
    bool inCond = false;          // WhileLoop: the cond block is the one running
    bool restoreGrad = false, previousGrad = true;
    bool restoreAutocast = false, previousEnabled = false, previousCache = true;
    c10::DeviceType device = c10::DeviceType::CPU;
    at::ScalarType previousDtype = at::kFloat;

    ~HopState() {
        if (restoreGrad)
            c10::GradMode::set_enabled(previousGrad);
        if (restoreAutocast) {
            // torch.autocast.__exit__: the cache goes with the outermost autocast.
            if (at::autocast::decrement_nesting() == 0)
                at::autocast::clear_cache();
            at::autocast::set_autocast_enabled(device, previousEnabled);
            at::autocast::set_autocast_dtype(device, previousDtype);
            at::autocast::set_autocast_cache_enabled(previousCache);
        }
    }
};

bool Interpreter::Private::gradHere() const {
    if (!plan->eagerGrad)
        return false;
    for (auto f = frames.rbegin(); f != frames.rend(); ++f)
        if (f->hop && stepAt(f->owner).hop->kind == HopSpec::Kind::SetGrad)
            return stepAt(f->owner).hop->grad;
    return true;
}

bool Interpreter::Private::insideHop() const {
    for (const Frame& f : frames)
        if (f.hop)
            return true;
    return false;
}

bool Interpreter::Private::enterHop(int id) {
    const Step& s = stepAt(id);
    const HopSpec& spec = *s.hop;
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    auto start = Clock::now();
    torch::jit::Stack operands = resolveAll(s.inputs);
    auto bind = [&](const StepBlock& block, const Values& values) {
        for (std::size_t i = 0; i < block.params.size() && i < values.size(); ++i)
            slots[static_cast<std::size_t>(block.params[i])] = values[i];
    };
    try {
        auto state = std::make_shared<HopState>();
        std::size_t block = 0;
        Values params;
        using K = HopSpec::Kind;
        switch (spec.kind) {
        case K::WhileLoop:
            state->carried = slice(operands, 0, spec.carried);
            state->additional = slice(operands, spec.carried, operands.size() - spec.carried);
            state->inCond = true;
            params = joined(state->carried, state->additional);
            r.blockRuns = {0};
            break;
        case K::Scan: {
            state->carried = slice(operands, 0, spec.carried);
            state->xs = slice(operands, spec.carried, spec.mapped);
            std::size_t rest = spec.carried + spec.mapped;
            state->additional = slice(operands, rest, operands.size() - rest);
            state->length = leadingLength(state->xs, "scan");
            // generic_scan runs element 0 on first_slice_copy (a copy, or zeros for no
            // elements) to learn the outputs' shapes, and the rest on views.
            Values first;
            for (const c10::IValue& x : state->xs) {
                const at::Tensor& t = x.toTensor();
                first.push_back(state->length == 0 ? t.new_zeros(t.sizes().slice(1))
                                                   : at::select_copy(t, 0, 0));
            }
            params = joined(joined(state->carried, first), state->additional);
            r.blockRuns = {1};
            break;
        }
        case K::Map: {
            state->xs = slice(operands, 0, spec.mapped);
            state->additional = slice(operands, spec.mapped, operands.size() - spec.mapped);
            state->length = leadingLength(state->xs, "map");
            if (state->length == 0)
                throw std::runtime_error("map was given xs with no elements along dim 0, which "
                                         "PyTorch's map cannot stack");
            params = joined(rowOf(state->xs, 0), state->additional);
            r.blockRuns = {1};
            break;
        }
        case K::Call:
            params = Values(operands.begin(), operands.end());
            break;
        case K::SetGrad:
            state->previousGrad = c10::GradMode::is_enabled();
            state->restoreGrad = true;
            c10::GradMode::set_enabled(spec.grad);
            params = Values(operands.begin(), operands.end());
            break;
        case K::Autocast:
            // torch.autocast.__enter__ for this device.
            state->device = spec.device;
            state->previousEnabled = at::autocast::is_autocast_enabled(spec.device);
            state->previousDtype = at::autocast::get_autocast_dtype(spec.device);
            state->previousCache = at::autocast::is_autocast_cache_enabled();
            state->restoreAutocast = true;
            at::autocast::set_autocast_enabled(spec.device, spec.enabled);
            if (spec.dtype)
                at::autocast::set_autocast_dtype(spec.device, *spec.dtype);
            at::autocast::set_autocast_cache_enabled(spec.cacheEnabled);
            at::autocast::increment_nesting();
            params = Values(operands.begin(), operands.end());
            break;
        }
        bind(s.blocks[block], params);
        frames.push_back(Frame{&s.blocks[block].steps, 0, id, 0, 0, std::move(state)});
    } catch (const std::exception& e) {
        fail(id, firstLineOf(e), operands);
        return false;
    }
    noteEntered(id, start);
    return true;
}

void Interpreter::Private::unwindHop() {
    Frame& f = frames.back();
    HopState& state = *f.hop;
    const int id = f.owner;
    const Step& s = stepAt(id);
    const HopSpec& spec = *s.hop;
    NodeRecord& r = records[static_cast<std::size_t>(id)];
    const StepBlock& ran = f.steps == &s.blocks[0].steps ? s.blocks[0] : s.blocks.back();
    Values results;
    for (const ValueSource& src : ran.results)
        results.push_back(resolve(src));
    auto restart = [&](const StepBlock& block, const Values& params) {
        for (std::size_t i = 0; i < block.params.size() && i < params.size(); ++i)
            slots[static_cast<std::size_t>(block.params[i])] = params[i];
        f.steps = &block.steps;
        f.pc = 0;
    };
    auto finish = [&](Values values) {
        frames.pop_back(); // restores grad mode or autocast before the value is recorded
        finishControl(id, std::move(values), Clock::now());
        logPath(PathEvent::Kind::HopRan, id);
    };
    try {
        using K = HopSpec::Kind;
        switch (spec.kind) {
        case K::WhileLoop: {
            if (!state.inCond) {
                if (results.size() != state.carried.size())
                    throw std::runtime_error("while_loop's body returned " +
                                             std::to_string(results.size()) + " values for " +
                                             std::to_string(state.carried.size()) + " carried");
                state.carried = results;
                state.inCond = true;
                f.iteration += 1;
                return restart(s.blocks[0], joined(state.carried, state.additional));
            }
            const c10::IValue& pred = results.at(0);
            bool scalarBool = pred.isBool() || (pred.isTensor() && pred.toTensor().dim() == 0 &&
                                                pred.toTensor().scalar_type() == at::kBool);
            if (!scalarBool)
                throw std::runtime_error("while_loop's cond_fn must return a boolean scalar "
                                         "tensor or a boolean");
            if (pred.isBool() ? pred.toBool() : pred.toTensor().item<bool>()) {
                state.inCond = false;
                r.blockRuns = {static_cast<int>(f.iteration + 1)};
                return restart(s.blocks[1], joined(state.carried, state.additional));
            }
            if (f.iteration == 0) {
                // while_loop_dense hands back clones when the body never ran.
                markNotExecuted(s.blocks[1]);
                for (c10::IValue& v : state.carried)
                    if (v.isTensor())
                        v = v.toTensor().clone();
            }
            return finish(state.carried);
        }
        case K::Scan: {
            if (results.size() < spec.carried)
                throw std::runtime_error("scan's combine_fn returned fewer values than its carry");
            Values ys = slice(results, spec.carried, results.size() - spec.carried);
            if (f.iteration == 0)
                for (const c10::IValue& y : ys) {
                    const at::Tensor& t = y.toTensor();
                    std::vector<std::int64_t> shape{state.length};
                    for (std::int64_t d : t.sizes())
                        shape.push_back(d);
                    state.outs.push_back(at::empty(shape, t.options()));
                }
            Values carry = slice(results, 0, spec.carried);
            if (state.length == 0)
                return finish(joined(state.carried, Values(state.outs.begin(), state.outs.end())));
            for (std::size_t k = 0; k < state.outs.size(); ++k)
                state.outs[k].select(0, f.iteration).copy_(ys.at(k).toTensor());
            state.carried = carry;
            f.iteration += 1;
            if (f.iteration < state.length) {
                r.blockRuns = {static_cast<int>(f.iteration + 1)};
                return restart(
                    s.blocks[0],
                    joined(joined(state.carried, rowOf(state.xs, f.iteration)), state.additional));
            }
            return finish(joined(state.carried, Values(state.outs.begin(), state.outs.end())));
        }
        case K::Map: {
            state.perSlice.push_back(results);
            f.iteration += 1;
            if (f.iteration < state.length) {
                r.blockRuns = {static_cast<int>(f.iteration + 1)};
                return restart(s.blocks[0], joined(rowOf(state.xs, f.iteration), state.additional));
            }
            Values stacked; // _stack_pytree: torch.stack of each output over the slices
            for (std::size_t k = 0; k < results.size(); ++k) {
                std::vector<at::Tensor> leaves;
                for (const Values& one : state.perSlice)
                    leaves.push_back(one.at(k).toTensor());
                stacked.push_back(at::stack(leaves));
            }
            return finish(std::move(stacked));
        }
        case K::Call:
        case K::SetGrad:
        case K::Autocast:
            return finish(std::move(results));
        }
    } catch (const std::exception& e) {
        frames.pop_back();
        fail(id, firstLineOf(e), torch::jit::Stack(results.begin(), results.end()));
    }
}

} // namespace fxview
