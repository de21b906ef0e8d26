// What the Values view reads from a run: a node's value (or a weight its module holds) as it is
// now, sliced or written to a file, with a sentence when it cannot be read (not run yet, freed)
// or may not be what the node made (changed in place since).

#include "Functorch.h"
#include "Interpreter.h"
#include "InterpreterPrivate.h"
#include "TorchValues.h"

namespace fxview {

std::int64_t Interpreter::Private::tensorBytes(const c10::IValue& value) {
    if (value.isTensor()) {
        const at::Tensor& t = value.toTensor();
        return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
    }
    std::int64_t bytes = 0;
    if (value.isTuple())
        for (const c10::IValue& item : value.toTupleRef().elements())
            bytes += tensorBytes(item);
    else if (value.isList())
        for (const c10::IValue& item : value.toListRef())
            bytes += tensorBytes(item);
    return bytes;
}

std::int64_t Interpreter::Private::versionOf(const c10::IValue& value) {
    if (!value.isTensor() || !value.toTensor().defined() || value.toTensor().is_inference())
        return -1;
    return static_cast<std::int64_t>(value.toTensor()._version());
}

const Step* Interpreter::Private::stepNamed(const std::string& node) const {
    auto it = plan->stepOf.find(node);
    return it == plan->stepOf.end() ? nullptr : &stepAt(it->second);
}

namespace {

// The interpreter of the module Step Into is in that `frame` names ("layer1.0"), or nullptr.
const Interpreter* frameOf(const Interpreter* top, const std::string& frame) {
    const Interpreter* at = top;
    std::string rest = frame;
    while (!rest.empty()) {
        const Interpreter* inner = at->steppedInto();
        std::string name = at->steppedIntoNode();
        if (!inner || rest.compare(0, name.size(), name) != 0 ||
            (rest.size() > name.size() && rest[name.size()] != '.'))
            return nullptr;
        rest.erase(0, std::min(rest.size(), name.size() + 1));
        at = inner;
    }
    return at;
}

} // namespace

// The value a request names, or an error sentence; `note` says what a person should know.
struct ValueLookup {
    static c10::IValue valueNamed(const Interpreter& top, const ValueSliceRequest& request,
                                  std::string& error, std::string& note);
};

c10::IValue ValueLookup::valueNamed(const Interpreter& top, const ValueSliceRequest& request,
                                    std::string& error, std::string& note) {
    using Private = Interpreter::Private;
    const Interpreter* at = frameOf(&top, request.frame);
    if (!at) {
        error = "The run is no longer inside '" + request.frame +
                "': step into it again to see its values.";
        return {};
    }
    const Private& d = *at->d;
    const Step* step = d.stepNamed(request.node);
    const NodeRecord* record = at->record(request.node);
    if (!step || !record) {
        error = "There is no node '" + request.node + "' to show values of.";
        return {};
    }
    if (!request.weight.empty()) {
        // A weight is there whether or not the node has run.
        if (step->kind == Step::Kind::CallModule && step->module.hasattr(request.weight)) {
            c10::IValue weight = step->module.attr(request.weight);
            if (weight.isTensor())
                return weight;
        }
        error = "Node '" + request.node + "' holds no tensor named '" + request.weight + "'.";
        return {};
    }
    switch (record->state) {
    case NodeState::Pending:
        error = "Node '" + request.node +
                "' has not run yet: step to it or Run to Cursor (F4) to see its values.";
        return {};
    case NodeState::NotExecuted:
        error = "Node '" + request.node +
                "' is in a branch or loop this input never reached, so it has no value.";
        return {};
    case NodeState::Failed:
        error = "Node '" + request.node + "' failed, so it has no value: " + record->error;
        return {};
    case NodeState::Done:
        break;
    }
    const c10::IValue& value = d.slots[static_cast<std::size_t>(step->slot)];
    if (value.isNone() && record->value.type != "None") {
        error = "The value of '" + request.node +
                "' was freed after its last use, as torch.fx frees it, to keep memory: Run to "
                "Cursor (F4) on the node to see it.";
        return {};
    }
    std::int64_t id = d.plan->stepOf.at(request.node);
    std::int64_t version = d.versions[static_cast<std::size_t>(id)];
    if (version >= 0 && Private::versionOf(value) != version)
        note = "A later node changed this tensor in place since '" + request.node +
               "' made it: these are its values now, as torch.fx's Interpreter holds them.";
    else if (record->runs > 1)
        note = "The value of its last run (of " + std::to_string(record->runs) + ").";
    return physicalValue(value); // inside torch.vmap: the batch it stands for
}

ValueSlice Interpreter::valueSlice(const ValueSliceRequest& request) const {
    ValueSlice slice;
    std::string note;
    c10::IValue value = ValueLookup::valueNamed(*this, request, slice.error, note);
    slice.request = request; // an answer says what it answers, an error too
    if (!slice.error.empty())
        return slice;
    slice = sliceValue(value, request);
    slice.note = note;
    return slice;
}

ValueSlice Interpreter::valueDetail(const ValueSliceRequest& request) const {
    ValueSlice slice;
    slice.request = request;
    const Interpreter* at = frameOf(this, request.frame);
    const NodeRecord* record = at ? at->record(request.node) : nullptr;
    if (record && record->state == NodeState::Done)
        slice.summary = record->value;
    else
        slice.error = "Node '" + request.node + "' has no value here to describe.";
    return slice;
}

std::string Interpreter::saveNodeValue(const SaveValueRequest& request,
                                       const std::string& path) const {
    std::string error, note;
    c10::IValue value = ValueLookup::valueNamed(*this, request.value, error, note);
    if (!error.empty())
        return error;
    std::string what = "the value of '" + request.value.node + "'";
    if (!request.value.weight.empty())
        what = "'" + request.value.node + "." + request.value.weight + "'";
    return writeValueFile(value, request.value.item, request.format == ValueFileFormat::Npy, path,
                          what);
}

} // namespace fxview
