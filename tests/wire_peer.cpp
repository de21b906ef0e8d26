// The C++ half of the protocol's round trip (tests/tst_wire.py has the Python half).
//   wire_peer echo     reads frames on stdin, decodes each as its kind's message and writes it
//                      back re-encoded: a field the two sides disagree on changes the bytes
//   wire_peer samples  writes one frame of every message, every string field holding its own
//                      field name (so the Python side can tell swapped fields apart)
//   wire_peer print    prints the graph of the OpenedModel frame on stdin with FxText
//   wire_peer print-reading  the same of fxview-reader's answer (ProgramReading) on stdin; exits
//                      1 with its `why` when it drew nothing
// Exits 1 with a sentence on a frame it cannot decode.

#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

#include "EngineProtocol.h"
#include "FxText.h"
#include "ProgramReading.h"
#include "Wire.h"
#include "WireMessages.h"

using namespace fxview;

namespace {

// Every argument's text holds "text", whatever its kind, so that none is empty.
Argument named(Argument a) {
    a.text = "text";
    return a;
}

Argument nested() {
    Argument repr = Argument::ofRepr("text");
    repr.items = {Argument::ofNode("text")};
    return named(Argument::ofTuple(
        {named(Argument::ofInt(-7)), named(Argument::ofFloat(2.5)), named(Argument::ofBool(true)),
         named(Argument::ofList({Argument::ofString("text"), repr})), named(Argument::none())}));
}

Node sampleNode() {
    Node n;
    n.op = Op::CallModule;
    n.name = "name";
    n.target = "target";
    n.schema = "schema";
    n.moduleType = "moduleType";
    n.typeName = "typeName";
    n.args = {nested()};
    n.kwargs = {{"name", named(Argument::ofInt(3))}};
    n.users = {"users"};
    n.scope = "scope";
    n.scopeType = "scopeType";
    n.hidden = true;
    n.tensors = {{"name", {2, 3}, "dtype"}};
    n.placeholderKind = PlaceholderKind::Buffer;
    n.sourceTrace = "sourceTrace";
    n.outputRoles = {{"kind", "target"}};
    n.collapsedNodes = 4;
    Node inner = n;
    n.blocks = {{"label", {"params"}, {inner}, {Argument::ofNode("text")}, true}};
    return n;
}

Graph sampleGraph() {
    return {"modelClass", {sampleNode()}};
}

ValueSummary sampleValue(int depth = 0) {
    ValueSummary v;
    v.type = "type";
    v.shape = {3, 4};
    v.stride = {4, 1};
    v.dtype = "dtype";
    v.device = "device";
    v.numel = 12;
    v.bytes = 48;
    v.hasStats = true;
    v.min = -1.5;
    v.max = 2.25;
    v.mean = 0.125;
    v.std = 0.75;
    v.nanCount = 1;
    v.infCount = 2;
    v.histogram = {1, 2, 3};
    v.histogramSample = 6;
    v.hasDetail = true;
    v.qscheme = "qscheme";
    v.qaxis = 1;
    v.scaleMin = 0.5;
    v.scaleMax = 0.75;
    v.zeroPointMin = -3;
    v.zeroPointMax = 4;
    v.intMin = -128;
    v.intMax = 127;
    v.value = "value";
    if (depth == 0)
        v.items = {sampleValue(1)};
    return v;
}

NodeRecord sampleRecord() {
    return {NodeState::Failed,
            sampleValue(),
            12.5,
            2,
            {1, 0},
            "error",
            "warning",
            std::int64_t{1} << 40,
            "aliasKind",
            7,
            std::int64_t{3} << 33};
}

InputSpec sampleSpec() {
    InputSpec s;
    s.shape = {3, 4};
    s.dtype = "dtype";
    s.file = "file";
    s.example = true;
    return s;
}

void samples() {
    auto put = [](EngineMessage kind, const std::string& payload) {
        writeFrame(1, static_cast<std::uint16_t>(kind), payload);
    };
    put(EngineMessage::Hello,
        encode(EngineHello{42, true, "confinement", "tempDir", 1 << 20, true, "runtime"}));
    put(EngineMessage::Open,
        encode(OpenRequest{
            "source", {sampleSpec()}, 9, "origin", {"opLibraries"}, {"imports"}, "device"}));
    put(EngineMessage::Progress, encode(ProgressNote{"stage", 55}));
    put(EngineMessage::Running, encode(std::string("Running")));
    put(EngineMessage::Opened, encode(OpenedModel{"className",
                                                  sampleGraph(),
                                                  "graphText",
                                                  {sampleSpec()},
                                                  7,
                                                  "inputNote",
                                                  "inputError",
                                                  "note",
                                                  "schemas",
                                                  std::string("x\x9c\0\xffprogram", 11)}));
    put(EngineMessage::SetInputs, encode(InputsRequest{{sampleSpec()}, 5}));
    put(EngineMessage::Command, encode(CommandRequest{RunCommand::RunTo, "node"}));
    put(EngineMessage::SetBreakpoint,
        encode(BreakpointRequest{"node", true, {BreakCondition::Kind::AbsAbove, 100.5}}));
    put(EngineMessage::SetWatch, encode(WatchRequest{true}));
    ValueSliceRequest v;
    v.frame = "frame";
    v.node = "node";
    v.weight = "weight";
    v.item = {1, 0};
    v.index = {0, 2, 0, 0};
    v.planeAxis = 1;
    v.rowAxis = 2;
    v.colAxis = 3;
    v.planeCount = 4;
    v.rowStart = 5;
    v.rowCount = 6;
    v.colStart = 7;
    v.colCount = 8;
    put(EngineMessage::ValueRequest, encode(v));
    put(EngineMessage::SaveValue, encode(SaveValueRequest{v, ValueFileFormat::Npy}));
    ValueSlice slice;
    slice.error = "error";
    slice.note = "note";
    slice.summary = sampleValue();
    slice.request = v;
    slice.reals = {0.5, -1.25};
    slice.imags = {2.0};
    slice.ints = {-3, 4};
    put(EngineMessage::Values, encode(slice));
    put(EngineMessage::DetailRequest, encode(v));
    put(EngineMessage::Detail, encode(slice));
    put(EngineMessage::ValueSaved,
        encode(SavedValue{std::string("\x80PK\0\x03", 5), true, "error"}));
    CompareRequest compare;
    compare.modelB = "modelB";
    compare.dtype = "dtype";
    compare.device = "device";
    compare.inputsB = {sampleSpec()};
    compare.hasSeedB = true;
    compare.seedB = 9;
    compare.local = true;
    put(EngineMessage::Compare, encode(compare));
    put(EngineMessage::Comparison, encode(ComparisonAnswer{"error", "json"}));
    put(EngineMessage::ImportsOffered, encode(ImportOffer{{"modules"}}));
    put(EngineMessage::Profile, encode(ProfileRequest{25, true}));
    put(EngineMessage::Profiled, encode(ProfileAnswer{"error",
                                                      3,
                                                      {{"times", {1.5, 2.25, 1e9}}},
                                                      {{"operators", {{"name", 12.5, 0.25, 2}}}},
                                                      "trace",
                                                      "operatorsNote"}));
    RunState s;
    s.records = {{"records", sampleRecord()}};
    s.recordsAreChanges = true;
    s.order = {"order"};
    s.last = "last";
    s.next = "next";
    s.finished = true;
    s.failure = "failure";
    s.stopNote = "stopNote";
    s.outputCheck = {OutputCheck::Verdict::Differs, "message"};
    s.depth = 1;
    s.inputs = {sampleSpec()};
    s.seed = 3;
    s.inputValues = {sampleValue()};
    auto frame = std::make_shared<FrameState>();
    frame->node = "node";
    frame->moduleType = "moduleType";
    frame->graph = sampleGraph();
    frame->graphText = "graphText";
    frame->records = {{"records", sampleRecord()}};
    frame->last = "last";
    frame->next = "next";
    s.steppedInto = frame;
    s.peak = {"node", 1 << 20, {{"node", 1 << 19}, {"node", 0}}};
    put(EngineMessage::State, encode(s));
    put(EngineMessage::Path, encode(PathState{sampleGraph(), {{"records", sampleRecord()}}}));
    put(EngineMessage::OpenFailed, encode(std::string("OpenFailed")));
    put(EngineMessage::CompileSession, encode(std::string("{\"format\": \"CompileSession\"}")));
    put(EngineMessage::InputsApplied, encode(InputsRequest{{sampleSpec()}, 6}));
    put(EngineMessage::InputsRejected, encode(std::string("InputsRejected")));
    put(EngineMessage::Failed, encode(std::string("Failed")));
    put(EngineMessage::ExecutedPath, {});
    put(EngineMessage::Interrupt, {});
    put(EngineMessage::Done, {});
}

} // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "samples") {
        samples();
        return 0;
    }
    if (mode == "print") {
        // The graph of the OpenedModel on stdin, as fxview's printer (core/graph/FxText) prints
        // it: for a live GraphModule it must equal torch.fx's print(gm.graph).
        Frame frame;
        OpenedModel opened;
        try {
            if (!readFrame(0, frame))
                return 1;
            decode(frame.payload, opened);
        } catch (const WireError& e) {
            std::cerr << "wire_peer: " << e.what() << "\n";
            return 1;
        }
        std::cout << formatGraph(opened.graph);
        return 0;
    }
    if (mode == "print-reading") {
        Frame frame;
        ProgramReading reading;
        try {
            if (!readFrame(0, frame) || frame.kind != kReadingFrame)
                return 1;
            decode(frame.payload, reading);
        } catch (const WireError& e) {
            std::cerr << "wire_peer: " << e.what() << "\n";
            return 1;
        }
        if (!reading.drawn) {
            std::cerr << "wire_peer: the reader drew nothing: " << reading.why << "\n";
            return 1;
        }
        std::cout << formatGraph(reading.graph);
        return 0;
    }
    if (mode != "echo") {
        std::cerr << "usage: wire_peer echo|samples|print|print-reading\n";
        return 2;
    }
    Frame frame;
    try {
        while (readFrame(0, frame)) {
            auto kind = static_cast<EngineMessage>(frame.kind);
            writeFrame(1, frame.kind, reencode(kind, frame.payload));
        }
    } catch (const WireError& e) {
        std::cerr << "wire_peer: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
