#pragma once
// Any frame's message decoded by its kind and encoded again, as the window and the engine read
// them: for the round-trip peer (wire_peer) and the wire fuzz harness. Throws WireError on a
// payload that does not decode whole, or a kind no side sends.

#include <string>

#include "EngineProtocol.h"
#include "Wire.h"

namespace fxview {

template <typename M> std::string reencoded(const std::string& payload) {
    M m;
    decode(payload, m);
    return encode(m);
}

inline std::string reencode(EngineMessage kind, const std::string& payload) {
    switch (kind) {
    case EngineMessage::Open:
        return reencoded<OpenRequest>(payload);
    case EngineMessage::SetInputs:
    case EngineMessage::InputsApplied:
        return reencoded<InputsRequest>(payload);
    case EngineMessage::Command:
        return reencoded<CommandRequest>(payload);
    case EngineMessage::SetBreakpoint:
        return reencoded<BreakpointRequest>(payload);
    case EngineMessage::ValueRequest:
    case EngineMessage::DetailRequest:
        return reencoded<ValueSliceRequest>(payload);
    case EngineMessage::SaveValue:
        return reencoded<SaveValueRequest>(payload);
    case EngineMessage::SetWatch:
        return reencoded<WatchRequest>(payload);
    case EngineMessage::Compare:
        return reencoded<CompareRequest>(payload);
    case EngineMessage::Comparison:
        return reencoded<ComparisonAnswer>(payload);
    case EngineMessage::ImportsOffered:
        return reencoded<ImportOffer>(payload);
    case EngineMessage::Profile:
        return reencoded<ProfileRequest>(payload);
    case EngineMessage::Profiled:
        return reencoded<ProfileAnswer>(payload);
    case EngineMessage::Values:
    case EngineMessage::Detail:
        return reencoded<ValueSlice>(payload);
    case EngineMessage::ValueSaved:
        return reencoded<SavedValue>(payload);
    case EngineMessage::Hello:
        return reencoded<EngineHello>(payload);
    case EngineMessage::Progress:
        return reencoded<ProgressNote>(payload);
    case EngineMessage::Opened:
        return reencoded<OpenedModel>(payload);
    case EngineMessage::State:
        return reencoded<RunState>(payload);
    case EngineMessage::Path:
        return reencoded<PathState>(payload);
    case EngineMessage::Running:
    case EngineMessage::OpenFailed:
    case EngineMessage::InputsRejected:
    case EngineMessage::Failed:
    case EngineMessage::CompileSession:
        return reencoded<std::string>(payload);
    case EngineMessage::ExecutedPath:
    case EngineMessage::Interrupt:
    case EngineMessage::Done:
        if (!payload.empty())
            throw WireError("a message without payload has one");
        return {};
    }
    throw WireError("an unknown message kind " + std::to_string(static_cast<int>(kind)));
}

} // namespace fxview
