#pragma once
// Runs a traced model's fx-style graph node by node on sample input, as torch.fx.Interpreter
// does, recording what each node produced. It can be driven like a debugger: step, step into a
// module, run to a node, run to a breakpoint or the end, reset. LibTorch stays behind the pimpl.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "BreakCondition.h"
#include "Graph.h"
#include "InputSpec.h"
#include "Model.h"
#include "OutputCheck.h"
#include "RunRecord.h"
#include "TraceResult.h"
#include "ValueSlice.h"

namespace fxview {

struct RunOptions {
    bool keepValues = false; // otherwise values no later node needs are freed, as torch.fx does
    // With keepValues off, values no later node needs are kept for the Values view until they
    // hold this many bytes, and freed after that.
    std::int64_t keepBytes = 0;
    bool fullSummaries = true; // statistics of every tensor, or shapes and dtypes only
    // A node whose value is kept as it was when it ran (its last run inside a loop), for
    // saveValue; "" for none.
    std::string capturedNode;
    // Runs the model in another floating dtype ("bfloat16", "float16", "float64"): its floating
    // parameters and buffers, weights read by get_attr and floating inputs are cast to it, as
    // Python's model.to(dtype) and x.to(dtype) would. A TorchScript model is cast in place: give
    // such a run a model of its own. "" for none.
    std::string castTo;
};

enum class StopReason {
    Stepped,    // ran what was asked and can go on
    Breakpoint, // the next node has a breakpoint
    Finished,   // the output node has run
    Failed,     // a node raised; reset() to run again
};

// Where the sample input came from, for the person to read ("guessed from fc1 ...").
struct InputChoice {
    std::vector<InputSpec> specs;
    std::string explanation; // one line per placeholder
    std::string error;       // when no guess is possible: what to pass instead
};

struct ValueLookup;

class Interpreter {
public:
    Interpreter(std::shared_ptr<const Model> model, TraceResult traced, RunOptions options = {});
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    const Graph& graph() const;

    // A guess for each placeholder from its first consumer (Linear, Conv, Embedding).
    InputChoice guessInputs() const;
    // Makes the inputs (random normal after manual_seed(seed), like torch.randn) and resets.
    // Returns "" or a sentence saying what is wrong with the specs.
    std::string setInputs(const std::vector<InputSpec>& specs, std::uint64_t seed = 0);
    const std::vector<ValueSummary>& inputSummaries() const;

    StopReason step();     // run the next node (a call_module whole)
    StopReason stepOver(); // the same as step(): named for the debugger's key
    StopReason stepInto(); // into the next call_module's own graph, node by node
    StopReason stepOut();  // finish the module stepped into, back to the caller
    StopReason runTo(const std::string& node); // until `node` has run
    StopReason runToEnd();                     // until the end or the next breakpoint
    void reset();

    // A breakpoint stops runTo, runToEnd and stepOut before its node; one with a condition
    // stops them after it, when its output meets the condition (BreakCondition.h).
    void setBreakpoint(const std::string& node, bool on, BreakCondition condition = {});
    // Stops those runs after the first node whose output holds a NaN or an infinity.
    void setBreakOnNonFinite(bool on);
    // Why the last command stopped after a node (a condition or Break on NaN/Inf met), as one
    // paragraph: which node, what it holds, whether its inputs already held it, its source line;
    // "" when it did not.
    const std::string& stopNote() const;
    // Whether the node that ran last meets its breakpoint's condition or the NaN watch; sets
    // stopNote. runTo, runToEnd and stepOut call it after each node; call it after a step that
    // runs as part of something longer (Play).
    bool checkWatch();
    // Called before each node that runTo, runToEnd and stepOut run (with the node's name); when
    // it returns false the run stops there, as at a breakpoint (a Pause; the engine process also
    // says where a long run is).
    void setBeforeNode(std::function<bool(const std::string& next)> beforeNode);
    bool hasBreakpoint(const std::string& node) const;

    bool finished() const;
    bool failed() const;
    const std::string& failure() const; // one paragraph: node, op, target, input shapes, why
    std::string lastNode() const;       // the node that ran last ("fc1.linear" inside fc1)
    std::string nextNode() const;       // the node the next step runs, "" when finished
    int depth() const;                  // 0, or how many modules deep stepInto went
    // While stepInto is inside a call_module: that module's own interpreter (its graph, records,
    // last and next node) and the call_module node it runs for; nullptr and "" otherwise.
    const Interpreter* steppedInto() const;
    std::string steppedIntoNode() const;
    const std::vector<std::string>& executionOrder() const;
    const NodeRecord* record(const std::string& node) const;
    // The top-level live set's peak so far in this run and what is alive there (NodeCost.h).
    const PeakLive& peakLive() const;
    ValueSummary outputSummary() const;
    // How many node values are held right now: with keepValues off, only those still needed.
    int liveValueCount() const;

    // Runs the module's own forward on the same inputs and compares with torch::equal.
    bool outputsEqualForward(std::string* error = nullptr);
    // The same check as a verdict with its sentence, for a finished run: equal, differs (a bug
    // of fxview's), not checkable (a random op), or forward itself failed.
    OutputCheck checkOutputs();
    // The graph's output (a tensor, or the tuple/list/dict the model returns) as a torch.save
    // file that Python's torch.load reads. Returns "" or a sentence saying what went wrong.
    std::string saveOutputs(const std::string& path) const;
    // RunOptions::capturedNode's value as it was when the node ran, as a torch.save file that
    // Python's torch.load reads. Returns "" or a sentence saying what went wrong.
    std::string saveValue(const std::string& path) const;

    // A slice of a node's value as it is now (a weight of a call_module's module with
    // request.weight), for the Values view; inside the module Step Into is in with
    // request.frame. A node not run, or whose value was freed, gets an error sentence.
    ValueSlice valueSlice(const ValueSliceRequest& request) const;
    // The summary of request.node's whole value in request.frame, std and histograms included
    // (this interpreter's records always have them), for the window's DetailRequest.
    ValueSlice valueDetail(const ValueSliceRequest& request) const;
    // The same value (all of it, or request.item of it) written to `path`. "" or a sentence.
    std::string saveNodeValue(const SaveValueRequest& request, const std::string& path) const;

    // What tracing with this input records: branches not taken leave no node and a loop body
    // appears once per iteration. With `values`, what each of its nodes produced, by name.
    Graph executedPath(std::unordered_map<std::string, ValueSummary>* values = nullptr) const;

    struct Private;

private:
    std::unique_ptr<Private> d;
    friend struct ValueLookup; // InterpreterValues.cpp: finds the value a request names
    friend struct RunPairing;  // RunComparison.cpp: sees each node's value as it is made
};

} // namespace fxview
