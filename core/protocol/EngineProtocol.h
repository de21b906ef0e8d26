#pragma once
// What the window and its engine process say to each other, as plain data. Every request gets
// zero or more progress messages, then its answer, then Done; the engine handles one request at
// a time, in order. Encoded with Wire.h's binary format.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "BreakCondition.h"
#include "Comparison.h"
#include "Graph.h"
#include "InputSpec.h"
#include "OperatorTime.h"
#include "OutputCheck.h"
#include "RunRecord.h"
#include "ValueSlice.h"

namespace fxview {

enum class RunCommand { Step, StepInto, StepOut, RunTo, RunToEnd, Reset };

enum class EngineMessage : std::uint16_t {
    // window -> engine
    Open = 1,      // OpenRequest
    SetInputs,     // InputsRequest
    Command,       // CommandRequest
    SetBreakpoint, // BreakpointRequest
    ExecutedPath,  // nothing
    // Not a request (no answer, no Done): the request running now stops before its next node.
    // Read while a request runs (engines read their requests on a thread of their own): Pause.
    Interrupt,
    ValueRequest, // ValueSliceRequest: answered with Values
    SaveValue,    // SaveValueRequest: answered with ValueSaved
    SetWatch,     // WatchRequest: no answer but Done
    Compare,      // CompareRequest: answered with Comparison
    // ValueSliceRequest (its frame and node): answered with Detail, the node's whole value with
    // std and histograms made (ValueSummary::hasDetail), for a record sent without them.
    DetailRequest,
    // ProfileRequest: the model run from its inputs to its end once to warm up, then `runs`
    // times, breakpoints and watches not stopping it; answered with Profiled, then State (the
    // last run). Interrupt stops it between two nodes.
    Profile,
    // engine -> window
    Hello = 100,    // EngineHello, once, before the first request is read
    Progress,       // ProgressNote: a load's stage
    Running,        // the node a long command is at (a string), at most every 50 ms
    Opened,         // OpenedModel
    OpenFailed,     // a sentence
    InputsApplied,  // InputsRequest (what was applied), then a RunState
    InputsRejected, // a sentence
    State,          // RunState
    Path,           // PathState
    Failed,         // a sentence: a request ended in an error nothing expected
    Done,           // the request is answered
    Values,         // ValueSlice
    ValueSaved,     // SavedValue
    Comparison,     // ComparisonAnswer
    // A string: the compile session a live engine serves (docs/compile-session.md's index, no
    // files), after each Opened; an engine serving one model never sends it.
    CompileSession,
    Detail, // ValueSlice: the request, and the summary asked for (or why there is none)
    // ImportOffer, just before an OpenFailed: the modules the file names that the engine would
    // import to open it (the Python engine reads them from the archive); the window offers them.
    ImportsOffered,
    Profiled, // ProfileAnswer
};

// Modules a file names (a pytree class's, the code that called an operator registered in
// Python) that the engine lacks: opening it again with them imported may succeed.
struct ImportOffer {
    std::vector<std::string> modules;
};

// Run ▸ Profile… asks for 1 to this many runs.
constexpr std::int64_t kMaxProfileRuns = 10000;
struct ProfileRequest {
    std::int64_t runs = 10;
    // First, one run under torch.profiler (the Python engine; after a run to warm up): each
    // node's operators with their own time, and the profiler's Chrome trace, in which a range
    // fxview::NODE holds each node's operators. fxview-engine says in operatorsNote that it has
    // none.
    bool operators = false;
};

// What Profile measured (docs/cost.md): every node's wall time in each timed run, in
// microseconds, by node name (a node inside a loop: its last iteration's).
struct ProfileAnswer {
    std::string error; // why it stopped short: a node failed, or Pause; "" when all ran
    std::int64_t runs = 0;
    std::unordered_map<std::string, std::vector<double>> times;
    // When asked for: each node's operators, the most time first, and the Chrome trace's JSON
    // ("" when there is none, and operatorsNote says why).
    std::unordered_map<std::string, std::vector<OperatorTime>> operators;
    std::string trace;
    std::string operatorsNote;
};

// The answer to Compare: the fxview.comparison JSON (docs/comparison.md), or why there is none.
struct ComparisonAnswer {
    std::string error; // a sentence; "" when `json` holds the comparison
    std::string json;
};

struct EngineHello {
    std::int64_t pid = 0;
    bool confined = false;
    std::string confinement; // what confines it, or why nothing does
    std::string tempDir;     // the one folder it may write; the window removes it after it ends
    std::int64_t memoryLimit = 0; // the cap it runs under, 0 for none
    // A live engine serves a model that lives in the person's own Python process: the window
    // can neither kill it nor start another, only interrupt a run or detach.
    bool live = false;
    std::string runtime; // where the model runs, for the window's title and About box
};

struct OpenRequest {
    std::string source;
    std::vector<InputSpec> inputs;
    std::uint64_t seed = 0;
    std::string origin; // "as given", "applied last time": for the note beside given inputs
    std::vector<std::string> opLibraries; // loaded first (--ops): the model's custom ops
    // A Python engine's: the person's modules imported before the file is loaded (--import: ops
    // registered with torch.library, pytree classes), and the torch device weights and inputs go
    // to ("" the CPU). fxview-engine, which has no Python and runs on the CPU, refuses both.
    std::vector<std::string> imports;
    std::string device;
};

struct ProgressNote {
    std::string stage;
    std::int64_t percent = 0;
};

struct OpenedModel {
    std::string className;
    Graph graph;
    std::string graphText; // torch.fx's print(graph)
    std::vector<InputSpec> inputs;
    std::uint64_t seed = 0; // the seed they were made with (0 when the given ones gave way)
    std::string inputNote, inputError;
    // Why this graph and not the one asked for (a live model that symbolic_trace cannot trace is
    // shown as torch.export's graph): one sentence for the window's banner, or "".
    std::string note;
    // A Python engine's .pt2: the schema-table lines (OperatorSchema.h) of the program's operators
    // as its own PyTorch registers them, its Python-registered ops too. Its graph is then left
    // empty and graphText is PyTorch's own print(ep.graph): the window walks the program itself
    // (ExportGraphWalk, in fxview-reader) with these schemas, so both engines draw one graph.
    std::string schemas;
    // A Python engine whose files the window cannot read (one on another machine, over SSH: its
    // --send-program): the program's JSON as the archive holds it (the one torch.export.load
    // opened), zlib-compressed, for fxview-reader to walk with `schemas`. Empty otherwise.
    std::string program;
};

struct InputsRequest {
    std::vector<InputSpec> inputs;
    std::uint64_t seed = 0;
};

struct CommandRequest {
    RunCommand command = RunCommand::Step;
    std::string node; // RunTo's target
};

struct BreakpointRequest {
    std::string node;
    bool on = false;
    BreakCondition condition; // Always: before the node; otherwise after it, when met
};

// Run > Break on NaN/Inf: runs stop after the first node whose output holds one.
struct WatchRequest {
    bool breakOnNonFinite = false;
};

// A node's value as a file's bytes (torch.save's or .npy's), sent in pieces of at most
// kSavedValuePiece bytes, `more` on every piece but the last: the window writes them where the
// person asked. The engine names no file: the window would act on nothing it names (it may be
// another machine's).
struct SavedValue {
    std::string data;  // the next piece of the file
    bool more = false; // another ValueSaved follows with the next piece
    std::string error; // why there is no file, one sentence (in the only piece)
};
constexpr std::size_t kSavedValuePiece = std::size_t(16) << 20;

// The module Step Into is inside, as plain data (laid out by the window).
struct FrameState {
    std::string node, moduleType;
    Graph graph;
    std::string graphText;
    std::unordered_map<std::string, NodeRecord> records;
    std::string last, next;
};

struct RunState {
    // Every node's record or, when recordsAreChanges, only the ones that changed since the last
    // RunState this engine sent (a live Step sends one record, not the graph's thousands).
    std::unordered_map<std::string, NodeRecord> records;
    bool recordsAreChanges = false;
    std::vector<std::string> order;
    std::string last, next;
    bool finished = false;
    bool failed = false;
    std::string failure;
    // Why the run stopped after a node: a breakpoint's condition or Break on NaN/Inf (the
    // interpreter's stopNote), "" otherwise.
    std::string stopNote;
    OutputCheck outputCheck; // once finished: the output against the module's own forward
    int depth = 0;           // how many modules deep Step Into is
    // The inputs the run uses, for the JSON export's `input`: specs, seed, and what they made.
    std::vector<InputSpec> inputs;
    std::uint64_t seed = 0;
    std::vector<ValueSummary> inputValues;
    std::shared_ptr<FrameState> steppedInto; // null when not stepped into a module
    PeakLive peak; // the top-level live set's peak so far in this run, and what is alive there
};

struct PathState {
    Graph graph;
    std::unordered_map<std::string, NodeRecord> records;
};

std::string encode(const EngineHello& m);
std::string encode(const OpenRequest& m);
std::string encode(const ProgressNote& m);
std::string encode(const OpenedModel& m);
std::string encode(const InputsRequest& m);
std::string encode(const CommandRequest& m);
std::string encode(const BreakpointRequest& m);
std::string encode(const RunState& m);
std::string encode(const PathState& m);
std::string encode(const WatchRequest& m);
std::string encode(const SavedValue& m);
std::string encode(const ValueSliceRequest& m);
std::string encode(const ValueSlice& m);
std::string encode(const SaveValueRequest& m);
std::string encode(const CompareRequest& m);
std::string encode(const ComparisonAnswer& m);
std::string encode(const ImportOffer& m);
std::string encode(const ProfileRequest& m);
std::string encode(const ProfileAnswer& m);
std::string encode(const std::string& sentence);
// A graph's bytes as OpenedModel carries them: two graphs draw alike when these are equal.
std::string encode(const Graph& m);

// Each throws WireError on a payload that does not decode whole.
void decode(const std::string& payload, EngineHello& m);
void decode(const std::string& payload, Graph& m);
void decode(const std::string& payload, OpenRequest& m);
void decode(const std::string& payload, ProgressNote& m);
void decode(const std::string& payload, OpenedModel& m);
void decode(const std::string& payload, InputsRequest& m);
void decode(const std::string& payload, CommandRequest& m);
void decode(const std::string& payload, BreakpointRequest& m);
void decode(const std::string& payload, RunState& m);
void decode(const std::string& payload, PathState& m);
void decode(const std::string& payload, WatchRequest& m);
void decode(const std::string& payload, SavedValue& m);
void decode(const std::string& payload, ValueSliceRequest& m);
void decode(const std::string& payload, ValueSlice& m);
void decode(const std::string& payload, SaveValueRequest& m);
void decode(const std::string& payload, CompareRequest& m);
void decode(const std::string& payload, ComparisonAnswer& m);
void decode(const std::string& payload, ImportOffer& m);
void decode(const std::string& payload, ProfileRequest& m);
void decode(const std::string& payload, ProfileAnswer& m);
void decode(const std::string& payload, std::string& sentence);

} // namespace fxview
