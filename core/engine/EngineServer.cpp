#include "EngineServer.h"

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "Confinement.h"
#include "FxText.h"
#include "Importer.h"
#include "Interpreter.h"
#include "ModelComparison.h"
#include "Profiling.h"
#include "RunComparison.h"
#include "Wire.h"

#include <sys/socket.h>

namespace fxview {

namespace {

using Clock = std::chrono::steady_clock;

std::string fileName(const std::string& path) {
    std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string joined(const std::vector<InputSpec>& specs) {
    std::string text;
    for (const InputSpec& spec : specs)
        text += (text.empty() ? "" : ", ") + spec.text();
    return text;
}

// The window's frames, read on a thread of their own so that an Interrupt (Pause) reaches a
// request while it runs. An Interrupt stops every request that came before it (the one running,
// at its next node, and those waiting behind it) and none that comes after, as the Python
// engines' reader does (python/fxview/live.py): requests are numbered as they come.
class RequestQueue {
public:
    explicit RequestQueue(int in) : in_(in), reader_([state = state_, in] { read(*state, in); }) {}
    ~RequestQueue() {
        // The reader returns when the channel ends, which a socket's shutdown makes happen now;
        // a pipe (fxview-engine run by hand) cannot be ended from this side, and the reader,
        // owning its state, is left to end with the process.
        bool ended;
        {
            std::lock_guard<std::mutex> lock(state_->mutex);
            ended = state_->ended;
        }
        if (ended || ::shutdown(in_, SHUT_RD) == 0)
            reader_.join();
        else
            reader_.detach();
    }

    // Whether the request being handled has been interrupted: it stops before its next node.
    bool interrupted() const { return state_->current <= state_->interruptUpTo; }

    // The next request, or nothing once the channel has ended (error() says why, if broken).
    std::optional<Frame> next() {
        State& s = *state_;
        std::unique_lock<std::mutex> lock(s.mutex);
        s.arrived.wait(lock, [&s] { return !s.requests.empty() || s.ended; });
        if (s.requests.empty())
            return std::nullopt;
        auto [number, frame] = std::move(s.requests.front());
        s.requests.pop_front();
        s.current = number;
        return std::move(frame);
    }

    std::string error() {
        std::lock_guard<std::mutex> lock(state_->mutex);
        return state_->error;
    }

private:
    struct State {
        std::mutex mutex;
        std::condition_variable arrived;
        std::deque<std::pair<std::int64_t, Frame>> requests;
        std::int64_t received = 0; // requests read so far: the last one's number
        bool ended = false;
        std::string error;
        std::atomic<std::int64_t> current{0};       // the number of the request being handled
        std::atomic<std::int64_t> interruptUpTo{0}; // the last request an Interrupt reached
    };

    static void read(State& s, int in) {
        Frame frame;
        std::string error;
        try {
            while (readFrame(in, frame)) {
                std::lock_guard<std::mutex> lock(s.mutex);
                if (frame.kind == static_cast<std::uint16_t>(EngineMessage::Interrupt)) {
                    s.interruptUpTo = s.received;
                    continue;
                }
                s.requests.emplace_back(++s.received, std::move(frame));
                s.arrived.notify_one();
            }
        } catch (const WireError& e) {
            error = e.what();
        }
        std::lock_guard<std::mutex> lock(s.mutex);
        s.error = error;
        s.ended = true;
        // The window is gone: a run in progress stops at its next node.
        s.interruptUpTo = std::numeric_limits<std::int64_t>::max();
        s.arrived.notify_one();
    }

    std::shared_ptr<State> state_ = std::make_shared<State>();
    int in_;
    std::thread reader_;
};

class Server {
public:
    Server(int out, const EngineHello& hello, const RequestQueue& requests)
        : out_(out), memoryLimit_(hello.memoryLimit), tempDir_(hello.tempDir), requests_(requests) {
    }

    void handle(const Frame& request) {
        try {
            switch (static_cast<EngineMessage>(request.kind)) {
            case EngineMessage::Open: {
                OpenRequest m;
                decode(request.payload, m);
                open(m);
                break;
            }
            case EngineMessage::SetInputs: {
                InputsRequest m;
                decode(request.payload, m);
                setInputs(m);
                break;
            }
            case EngineMessage::Command: {
                CommandRequest m;
                decode(request.payload, m);
                command(m);
                break;
            }
            case EngineMessage::SetBreakpoint: {
                BreakpointRequest m;
                decode(request.payload, m);
                if (interpreter_)
                    interpreter_->setBreakpoint(m.node, m.on, m.condition);
                break;
            }
            case EngineMessage::SetWatch: {
                WatchRequest m;
                decode(request.payload, m);
                watch_ = m;
                if (interpreter_)
                    interpreter_->setBreakOnNonFinite(m.breakOnNonFinite);
                break;
            }
            case EngineMessage::ValueRequest: {
                ValueSliceRequest m;
                decode(request.payload, m);
                ValueSlice slice;
                if (interpreter_)
                    slice = interpreter_->valueSlice(m);
                else
                    slice.error = "No model is open, so there are no values to show.";
                send(EngineMessage::Values, encode(slice));
                break;
            }
            case EngineMessage::DetailRequest: {
                ValueSliceRequest m;
                decode(request.payload, m);
                ValueSlice detail;
                if (interpreter_)
                    detail = interpreter_->valueDetail(m);
                else
                    detail.error = "No model is open, so there are no values to describe.";
                send(EngineMessage::Detail, encode(detail));
                break;
            }
            case EngineMessage::SaveValue: {
                SaveValueRequest m;
                decode(request.payload, m);
                saveValue(m);
                break;
            }
            case EngineMessage::Compare: {
                CompareRequest m;
                decode(request.payload, m);
                compare(m);
                break;
            }
            case EngineMessage::Profile: {
                ProfileRequest m;
                decode(request.payload, m);
                profile(m);
                break;
            }
            case EngineMessage::ExecutedPath:
                executedPath();
                break;
            default:
                throw WireError("an unknown request " + std::to_string(request.kind));
            }
        } catch (const WireError&) {
            throw;
        } catch (const std::exception& e) {
            // A model or LibTorch throwing where nothing expected it: the model stays open.
            std::string why = e.what();
            why = why.substr(0, why.find('\n'));
            send(EngineMessage::Failed,
                 encode("The engine stopped on an unexpected error (" + why +
                        "); the model stays open, Reset (Ctrl+Shift+F5) to run again."));
        }
        send(EngineMessage::Done, {});
    }

private:
    int out_;
    std::int64_t
        memoryLimit_;     // the cap this process runs under, for a failed allocation's sentence
    std::string tempDir_; // the one folder it may write: saved values go there
    const RequestQueue& requests_; // whether Pause has reached the request running
    int savedValues_ = 0;
    WatchRequest watch_;
    std::unique_ptr<Interpreter> interpreter_;
    std::vector<InputSpec> specs_;
    std::uint64_t seed_ = 0;
    std::string source_; // the model open, and the op libraries it was opened with: a
    std::vector<std::string> opLibraries_; // comparison loads it afresh where it must
    std::shared_ptr<const Model> open_;    // the model open and its import, for Compare
    TraceResult openImport_;

    OutputCheck outputCheck_; // this run's, once it has ended
    Clock::time_point lastRunning_;

    void send(EngineMessage kind, const std::string& payload) {
        writeFrame(out_, static_cast<std::uint16_t>(kind), payload);
    }

    void progress(const std::string& stage, int percent) {
        send(EngineMessage::Progress, encode(ProgressNote{stage, percent}));
    }

    void open(const OpenRequest& request) {
        if (!request.imports.empty() || !request.device.empty()) {
            std::string asked = !request.imports.empty() ? "--import " + request.imports.front()
                                                         : "--device " + request.device;
            return send(EngineMessage::OpenFailed,
                        encode(asked + " asks for a Python engine: fxview-engine runs files on "
                                       "its own LibTorch, on the CPU. Open the file with "
                                       "--python PYTHON (a Python with your PyTorch) instead."));
        }
        progress("Loading " + fileName(request.source), 5);
        LoadResult loaded = loadModel(request.source, request.opLibraries);
        if (!loaded.ok())
            return send(EngineMessage::OpenFailed, encode(loaded.error));
        progress("Tracing " + loaded.model->className(), 40);
        TraceResult traced = importGraph(*loaded.model);
        if (!traced.ok())
            return send(EngineMessage::OpenFailed, encode(traced.error));
        progress("Laying out " + std::to_string(traced.graph.nodeCount()) + " nodes", 55);

        OpenedModel model;
        model.className = loaded.model->className();
        model.graph = traced.graph;
        model.graphText = formatGraph(traced.graph);
        model.note = loaded.note;
        // Values no later node needs stay for the Values view until they fill a quarter of
        // the memory cap (2 GB without one); past that they are freed as torch.fx frees them.
        RunOptions options;
        options.keepBytes = memoryLimit_ > 0 ? memoryLimit_ / 4 : std::int64_t(2) << 30;
        open_ = loaded.model;
        openImport_ = traced; // Compare's runs share the weights where they can
        auto interpreter = std::make_unique<Interpreter>(loaded.model, std::move(traced), options);
        interpreter->setBreakOnNonFinite(watch_.breakOnNonFinite);
        std::vector<InputSpec> inputs = request.inputs;
        std::uint64_t seed = request.seed;
        if (!inputs.empty()) {
            // Inputs given (or remembered) that cannot be made give way to the guess, so that a
            // bad spec never leaves a model that cannot run.
            std::string error = interpreter->setInputs(inputs, seed);
            if (error.empty()) {
                model.inputNote = "input " + joined(inputs) + " " + request.origin;
            } else {
                model.inputError = error;
                inputs.clear();
                seed = 0;
            }
        }
        if (inputs.empty()) {
            InputChoice guess = interpreter->guessInputs();
            inputs = guess.specs;
            model.inputNote = guess.error.empty() ? guess.explanation : guess.error;
            while (!model.inputNote.empty() && std::isspace((unsigned char)model.inputNote.back()))
                model.inputNote.pop_back();
            if (!guess.error.empty() && model.inputError.empty())
                model.inputError = model.inputNote;
            if (!inputs.empty()) {
                std::string error = interpreter->setInputs(inputs, seed);
                if (!error.empty())
                    model.inputError = model.inputNote = error;
            }
        }
        model.inputs = inputs;
        model.seed = seed;
        interpreter_ = std::move(interpreter);
        source_ = request.source;
        opLibraries_ = request.opLibraries;
        interpreter_->setBeforeNode([this](const std::string& next) { return beforeNode(next); });
        specs_ = inputs;
        seed_ = seed;
        outputCheck_ = {};
        send(EngineMessage::Opened, encode(model));
        publish();
    }

    // Between two nodes of a long command: says where it is (the window names the node if this
    // process dies), and stops on an interrupt.
    bool beforeNode(const std::string& next) {
        Clock::time_point now = Clock::now();
        if (now - lastRunning_ > std::chrono::milliseconds(50)) {
            lastRunning_ = now;
            send(EngineMessage::Running, encode(next));
        }
        return !requests_.interrupted();
    }

    void setInputs(const InputsRequest& request) {
        if (!interpreter_)
            return;
        std::string error = interpreter_->setInputs(request.inputs, request.seed);
        if (!error.empty())
            return send(EngineMessage::InputsRejected, encode(error));
        specs_ = request.inputs;
        seed_ = request.seed;
        send(EngineMessage::InputsApplied, encode(request));
        publish();
    }

    void command(const CommandRequest& request) {
        if (!interpreter_)
            return;
        // The window names this node if the process dies during a single step.
        send(EngineMessage::Running, encode(interpreter_->nextNode()));
        switch (request.command) {
        case RunCommand::Step:
            // Play steps one node at a time: a condition or the NaN watch stops it too.
            if (interpreter_->step() == StopReason::Stepped)
                interpreter_->checkWatch();
            break;
        case RunCommand::StepInto:
            if (interpreter_->stepInto() == StopReason::Stepped)
                interpreter_->checkWatch();
            break;
        case RunCommand::StepOut:
            interpreter_->stepOut();
            break;
        case RunCommand::RunTo:
            interpreter_->runTo(request.node);
            break;
        case RunCommand::RunToEnd:
            interpreter_->runToEnd();
            break;
        case RunCommand::Reset:
            interpreter_->reset();
            break;
        }
        publish();
    }

    // Run ▸ Profile…: every node's time over the runs (Profiling.h), then the last run's state.
    void profile(const ProfileRequest& request) {
        if (!interpreter_)
            return;
        ProfileAnswer answer;
        if (request.runs < 1 || request.runs > kMaxProfileRuns) {
            answer.error = "A profile takes 1 to " + std::to_string(kMaxProfileRuns) +
                           " runs, not " + std::to_string(request.runs) + ".";
            return send(EngineMessage::Profiled, encode(answer));
        }
        ProfiledRuns runs =
            profileRuns(*interpreter_, static_cast<int>(request.runs),
                        [this](const std::string& next) { return beforeNode(next); });
        answer.error = runs.error;
        answer.runs = runs.runs;
        answer.times = std::move(runs.times);
        if (request.operators)
            answer.operatorsNote = "fxview-engine runs no torch.profiler, so there are no operator "
                                   "times or trace: the Python engine has them (fxview --python "
                                   "for a .pt2, fxview.show from Python).";
        send(EngineMessage::Profiled, encode(answer));
        publish();
    }

    void executedPath() {
        if (!interpreter_)
            return;
        PathState path;
        std::unordered_map<std::string, ValueSummary> values;
        path.graph = interpreter_->executedPath(&values);
        for (auto& [name, value] : values) {
            NodeRecord& r = path.records[name];
            r.state = NodeState::Done;
            r.runs = 1;
            r.value = std::move(value);
        }
        send(EngineMessage::Path, encode(path));
    }

    // Run A (the model open, on its inputs) and run B side by side, each an interpreter of its
    // own so that the run being debugged stays where it is; they share the open model's weights
    // where nothing can change them (compareModels).
    void compare(const CompareRequest& request) {
        if (!interpreter_)
            return send(
                EngineMessage::Comparison,
                encode(ComparisonAnswer{"No model is open, so there is nothing to compare.", {}}));
        ModelComparison what{source_, specs_, seed_, opLibraries_, request, open_, openImport_};
        RunComparisonOptions options;
        options.local = request.local;
        if (memoryLimit_ > 0)
            options.heldBytes = memoryLimit_ / 4;
        options.beforeNode = [this](const std::string& next) { return beforeNode(next); };
        ComparisonOutcome outcome = compareModels(what, options);
        ComparisonAnswer answer;
        if (!outcome.error.empty())
            answer.error = outcome.error;
        else
            answer.json =
                comparisonToJson(outcome.report, Metric::RelL2, defaultThreshold(Metric::RelL2));
        send(EngineMessage::Comparison, encode(answer));
    }

    // The file is written in the engine's own folder (the only one it may write), then sent in
    // pieces and removed: the window writes it where the person asked.
    void saveValue(const SaveValueRequest& request) {
        SavedValue saved;
        if (!interpreter_) {
            saved.error = "No model is open, so there is no value to save.";
        } else if (tempDir_.empty()) {
            saved.error = "This engine has no folder it may write, so it cannot save values.";
        } else {
            bool npy = request.format == ValueFileFormat::Npy;
            std::string path =
                tempDir_ + "/value-" + std::to_string(++savedValues_) + (npy ? ".npy" : ".pt");
            saved.error = interpreter_->saveNodeValue(request, path);
            if (saved.error.empty()) {
                sendFile(path);
                return;
            }
            std::remove(path.c_str());
        }
        send(EngineMessage::ValueSaved, encode(saved));
    }

    void sendFile(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        SavedValue piece;
        piece.data.resize(kSavedValuePiece);
        for (;;) {
            in.read(piece.data.data(), static_cast<std::streamsize>(kSavedValuePiece));
            piece.data.resize(static_cast<std::size_t>(in.gcount()));
            piece.more = in.good() && in.peek() != std::char_traits<char>::eof();
            if (in.bad())
                piece = SavedValue{{}, false, "The engine could not read back the value it wrote."};
            send(EngineMessage::ValueSaved, encode(piece));
            if (!piece.more)
                break;
            piece.data.resize(kSavedValuePiece);
        }
        in.close();
        std::remove(path.c_str());
    }

    // The innermost module Step Into is in.
    std::shared_ptr<FrameState> insideFrame() const {
        const Interpreter* at = interpreter_.get();
        std::string path, type;
        while (const Interpreter* inner = at->steppedInto()) {
            std::string node = at->steppedIntoNode();
            if (const Node* n = at->graph().find(node)) // a module's class, a function's target
                type = n->op == Op::CallModule ? n->moduleType : n->target;
            path += (path.empty() ? "" : ".") + node;
            at = inner;
        }
        if (at == interpreter_.get())
            return nullptr;
        auto frame = std::make_shared<FrameState>();
        frame->node = path;
        frame->moduleType = type;
        frame->graph = at->graph();
        frame->graphText = formatGraph(frame->graph);
        frame->graph.forEachNode([&](const Node& n, int) {
            if (const NodeRecord* r = at->record(n.name))
                frame->records.emplace(n.name, *r);
        });
        frame->last = at->lastNode();
        frame->next = at->nextNode();
        return frame;
    }

    void publish() {
        RunState s;
        interpreter_->graph().forEachNode([&](const Node& n, int) {
            if (const NodeRecord* r = interpreter_->record(n.name))
                s.records.emplace(n.name, *r);
        });
        s.order = interpreter_->executionOrder();
        s.last = interpreter_->lastNode();
        s.next = interpreter_->nextNode();
        s.finished = interpreter_->finished();
        s.failed = interpreter_->failed();
        s.failure = interpreter_->failure();
        s.stopNote = interpreter_->stopNote();
        if (std::string hint = memoryLimitHint(s.failure, memoryLimit_); !hint.empty())
            s.failure += " " + hint;
        // Checked once per run, when it ends: forward costs as much as the run itself.
        if (!s.finished)
            outputCheck_ = {};
        else if (outputCheck_.verdict == OutputCheck::Verdict::NotChecked)
            outputCheck_ = interpreter_->checkOutputs();
        s.outputCheck = outputCheck_;
        s.depth = interpreter_->depth();
        s.steppedInto = insideFrame();
        s.inputs = specs_;
        s.seed = seed_;
        s.inputValues = interpreter_->inputSummaries();
        s.peak = interpreter_->peakLive();
        send(EngineMessage::State, encode(s));
    }
};

} // namespace

int serveEngine(int in, int out, const EngineHello& hello) {
    writeFrame(out, static_cast<std::uint16_t>(EngineMessage::Hello), encode(hello));
    RequestQueue requests(in);
    Server server(out, hello, requests);
    try {
        while (std::optional<Frame> request = requests.next())
            server.handle(*request);
    } catch (const WireError& e) {
        // A request whose payload does not decode: the session ends.
        std::fprintf(stderr, "fxview engine: %s\n", e.what());
        return 1;
    }
    if (std::string error = requests.error(); !error.empty()) {
        std::fprintf(stderr, "fxview engine: %s\n", error.c_str());
        return 1;
    }
    return 0;
}

} // namespace fxview
