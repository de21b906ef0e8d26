#include "EngineProtocol.h"

#include "Wire.h"

namespace fxview {

// Each message's fields once (Wire.h's walk): `io` is a WireWriter or a WireReader.
template <typename Io> void walk(Io& io, EngineHello& m) {
    io(m.pid);
    io(m.confined);
    io(m.confinement);
    io(m.tempDir);
    io(m.memoryLimit);
    io(m.live);
    io(m.runtime);
}
template <typename Io> void walk(Io& io, OpenRequest& m) {
    io(m.source);
    io(m.inputs);
    io(m.seed);
    io(m.origin);
    io(m.opLibraries);
    io(m.imports);
    io(m.device);
}
template <typename Io> void walk(Io& io, ProgressNote& m) {
    io(m.stage);
    io(m.percent);
}
template <typename Io> void walk(Io& io, OpenedModel& m) {
    io(m.className);
    io(m.graph);
    io(m.graphText);
    io(m.inputs);
    io(m.seed);
    io(m.inputNote);
    io(m.inputError);
    io(m.note);
    io(m.schemas);
    io(m.program);
}
template <typename Io> void walk(Io& io, InputsRequest& m) {
    io(m.inputs);
    io(m.seed);
}
template <typename Io> void walk(Io& io, CommandRequest& m) {
    io(m.command);
    io(m.node);
}
template <typename Io> void walk(Io& io, BreakCondition& m) {
    io(m.kind);
    io(m.threshold);
}
template <typename Io> void walk(Io& io, BreakpointRequest& m) {
    io(m.node);
    io(m.on);
    io(m.condition);
}
template <typename Io> void walk(Io& io, WatchRequest& m) {
    io(m.breakOnNonFinite);
}
template <typename Io> void walk(Io& io, SavedValue& m) {
    io(m.data);
    io(m.more);
    io(m.error);
}
template <typename Io> void walk(Io& io, ValueSliceRequest& m) {
    io(m.frame);
    io(m.node);
    io(m.weight);
    io(m.item);
    io(m.index);
    io(m.planeAxis);
    io(m.rowAxis);
    io(m.colAxis);
    io(m.planeStart);
    io(m.planeCount);
    io(m.rowStart);
    io(m.rowCount);
    io(m.colStart);
    io(m.colCount);
}
template <typename Io> void walk(Io& io, ValueSlice& m) {
    io(m.error);
    io(m.note);
    io(m.summary);
    io(m.request);
    io(m.reals);
    io(m.imags);
    io(m.ints);
}
template <typename Io> void walk(Io& io, SaveValueRequest& m) {
    io(m.value);
    io(m.format);
}
template <typename Io> void walk(Io& io, CompareRequest& m) {
    io(m.modelB);
    io(m.dtype);
    io(m.device);
    io(m.inputsB);
    io(m.hasSeedB);
    io(m.seedB);
    io(m.local);
}
template <typename Io> void walk(Io& io, ComparisonAnswer& m) {
    io(m.error);
    io(m.json);
}
template <typename Io> void walk(Io& io, ImportOffer& m) {
    io(m.modules);
}
template <typename Io> void walk(Io& io, ProfileRequest& m) {
    io(m.runs);
    io(m.operators);
}
template <typename Io> void walk(Io& io, OperatorTime& m) {
    io(m.name);
    io(m.selfUs);
    io(m.deviceUs);
    io(m.calls);
}
template <typename Io> void walk(Io& io, ProfileAnswer& m) {
    io(m.error);
    io(m.runs);
    io(m.times);
    io(m.operators);
    io(m.trace);
    io(m.operatorsNote);
}
template <typename Io> void walk(Io& io, FrameState& m) {
    io(m.node);
    io(m.moduleType);
    io(m.graph);
    io(m.graphText);
    io(m.records);
    io(m.last);
    io(m.next);
}
template <typename Io> void walk(Io& io, RunState& m) {
    io(m.records);
    io(m.recordsAreChanges);
    io(m.order);
    io(m.last);
    io(m.next);
    io(m.finished);
    io(m.failed);
    io(m.failure);
    io(m.stopNote);
    io(m.outputCheck);
    io(m.depth);
    io(m.inputs);
    io(m.seed);
    io(m.inputValues);
    io(m.steppedInto);
    io(m.peak);
}
template <typename Io> void walk(Io& io, PathState& m) {
    io(m.graph);
    io(m.records);
}

namespace {

template <typename M> std::string encoded(const M& m) {
    WireWriter w;
    w(m);
    return w.bytes();
}

template <typename M> void decodeWhole(const std::string& payload, M& m) {
    WireReader r(payload);
    r(m);
    if (!r.atEnd())
        throw WireError("a message has bytes past its end");
}

} // namespace

std::string encode(const EngineHello& m) {
    return encoded(m);
}
std::string encode(const OpenRequest& m) {
    return encoded(m);
}
std::string encode(const ProgressNote& m) {
    return encoded(m);
}
std::string encode(const OpenedModel& m) {
    return encoded(m);
}
std::string encode(const InputsRequest& m) {
    return encoded(m);
}
std::string encode(const CommandRequest& m) {
    return encoded(m);
}
std::string encode(const BreakpointRequest& m) {
    return encoded(m);
}
std::string encode(const RunState& m) {
    return encoded(m);
}
std::string encode(const PathState& m) {
    return encoded(m);
}
std::string encode(const Graph& m) {
    return encoded(m);
}
std::string encode(const WatchRequest& m) {
    return encoded(m);
}
std::string encode(const SavedValue& m) {
    return encoded(m);
}
std::string encode(const ValueSliceRequest& m) {
    return encoded(m);
}
std::string encode(const ValueSlice& m) {
    return encoded(m);
}
std::string encode(const SaveValueRequest& m) {
    return encoded(m);
}
std::string encode(const CompareRequest& m) {
    return encoded(m);
}
std::string encode(const ComparisonAnswer& m) {
    return encoded(m);
}
std::string encode(const ImportOffer& m) {
    return encoded(m);
}
std::string encode(const ProfileRequest& m) {
    return encoded(m);
}
std::string encode(const ProfileAnswer& m) {
    return encoded(m);
}
std::string encode(const std::string& sentence) {
    return encoded(sentence);
}

void decode(const std::string& payload, EngineHello& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, OpenRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ProgressNote& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, OpenedModel& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, InputsRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, CommandRequest& m) {
    decodeWhole(payload, m);
    if (static_cast<int>(m.command) > static_cast<int>(RunCommand::Reset))
        throw WireError("an unknown run command");
}
void decode(const std::string& payload, BreakpointRequest& m) {
    decodeWhole(payload, m);
    if (static_cast<int>(m.condition.kind) > static_cast<int>(BreakCondition::Kind::AbsAbove))
        throw WireError("an unknown breakpoint condition");
}
void decode(const std::string& payload, RunState& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, PathState& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, Graph& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, WatchRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, SavedValue& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ValueSliceRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ValueSlice& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, SaveValueRequest& m) {
    decodeWhole(payload, m);
    if (static_cast<int>(m.format) > static_cast<int>(ValueFileFormat::Npy))
        throw WireError("an unknown value file format");
}
void decode(const std::string& payload, CompareRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ComparisonAnswer& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ImportOffer& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ProfileRequest& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, ProfileAnswer& m) {
    decodeWhole(payload, m);
}
void decode(const std::string& payload, std::string& sentence) {
    decodeWhole(payload, sentence);
}

} // namespace fxview
