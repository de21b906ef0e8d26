// fxtrace: the command-line face of fxview's core. Prints a model's fx-style graph the way
// torch.fx prints it, lists its nodes, writes it as fxview.graph JSON, or runs it node by node.
// Exit codes: 0 success, 1 the model failed (load or trace), 2 bad usage.

#include <QApplication>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "ConfinedRun.h"
#include "Confinement.h"
#include "CostTable.h"
#include "EngineConnection.h"
#include "Examples.h"
#include "FxText.h"
#include "Fxtrace.h"
#include "GraphJson.h"
#include "Interpreter.h"
#include "Model.h"
#include "Profiling.h"
#include "ScopeView.h"
#include "Tracer.h"
#include "Versions.h"
#include "export/SceneExport.h"
#include "scene/GraphScene.h"

namespace {

using namespace fxview;
using namespace fxview::fxtrace;

struct Command {
    const char* name;
    const char* synopsis;
    const char* help;
};

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"graph", "fxtrace graph MODEL [--show-hidden]",
         "Prints the graph in torch.fx's print(gm.graph) format.\n"
         "  --show-hidden   also show raise-only guards of scripted code and the scalar work\n"
         "                  that only feeds them (hidden by default, as torch.fx never sees "
         "them)\n"},
        {"nodes", "fxtrace nodes MODEL [--show-hidden]",
         "Prints `op name` for every node in order, then `Node count: N`.\n"
         "  --show-hidden   include the hidden guard nodes\n"},
        {"json", "fxtrace json MODEL [-o FILE] [--input SPEC]... [--seed N]",
         "Writes the graph in the fxview.graph JSON format (version 1).\n"
         "  -o, --output FILE   write to FILE instead of standard output\n"
         "  --input SPEC        run the graph on this input first: every node gets its `meta`\n"
         "  --seed N            seed for the random input (default 0)\n"},
        {"run",
         "fxtrace run MODEL [--input SPEC]... [--seed N] [--json FILE] [--keep-values] "
         "[--trace-path] [--show-hidden] [--save-outputs FILE] [--save-value NODE FILE] "
         "[--break-on nan] [--profile N] [--csv FILE]",
         "Runs the graph node by node and prints one line per node: name, op, target, output\n"
         "shape, dtype and time; then whether the outputs equal the module's own forward.\n"
         "  --input SPEC    one per placeholder: 3x4, 1x3x224x224, 2x8:int64 (integers are drawn\n"
         "                  from [0, 10)), or file:input.pt (torch.save of a tensor, a list of\n"
         "                  tensors, or a tuple of all the inputs), or example (a .pt2's own\n"
         "                  example input). Arguments with defaults may be left out. Without\n"
         "                  it: a .pt2's example inputs, a traced archive's own example shapes,\n"
         "                  else a guess from each placeholder's first module consumer (Linear,\n"
         "                  Conv, Embedding); stderr says which.\n"
         "  --seed N        torch.manual_seed(N) before torch.randn draws the input (default 0)\n"
         "  --json FILE     also write the graph with every node's meta as fxview.graph JSON\n"
         "  --keep-values   keep every node's value instead of freeing what no later node needs\n"
         "  --trace-path    also print the executed path in torch.fx's format: branches not\n"
         "                  taken leave no node, a loop body appears once per iteration\n"
         "  --show-hidden   include the hidden guard nodes in the table\n"
         "  --save-outputs FILE  write the graph's outputs with LibTorch's pickler: Python's\n"
         "                  torch.load(FILE) reads them (a tensor, or the model's "
         "tuple/list/dict;\n"
         "                  a .pt2's user outputs as a tuple, without its buffer mutations)\n"
         "  --save-value NODE FILE  write NODE's value, as it was when the node ran, the same way\n"
         "  --break-on nan  stop after the first node whose output holds a NaN or an Inf, say\n"
         "                  whether they were born there or came in with an input, exit 1\n"
         "  --profile N     run it once to warm up, then N times more, and print what each node\n"
         "                  costs: its median time and spread, its share of the whole, the new\n"
         "                  storage its outputs hold (or view/in-place), the bytes every value\n"
         "                  a later node still uses holds once it ran (weights apart), its\n"
         "                  FLOPs as torch.utils.flop_counter counts them (docs/cost.md)\n"
         "  --csv FILE      write that table as CSV: node,op,target,scope,time_us,bytes,\n"
         "                  live_bytes,flops (time_us the median over the --profile runs)\n"
         "Exit code 1 when a node fails (the message names it) or the outputs differ.\n"},
        {"operators", "fxtrace operators MODEL TRACE",
         "Lays TRACE, a torch.profiler trace of the model's run (the Chrome-trace JSON\n"
         "prof.export_chrome_trace writes; profile one call of the model, e.g. ep.module()),\n"
         "onto the graph and prints each node with the operators it ran and their own time:\n"
         "each node that calls an operator takes the next top-level operator of that name in\n"
         "run order, with every operator inside it (a trace fxview exported: by its node ranges).\n"
         "Exit code 1 when the file is no such trace or none of its operators is the graph's.\n"},
        {"compare",
         "fxtrace compare A [B] [--input SPEC]... [--seed N] [--dtype D] [--input-b SPEC]... "
         "[--seed-b N] [--local] [--metric M] [--threshold T] [--json FILE]",
         "Runs model A and run B side by side and prints, for every node both have, how far\n"
         "B's value is from A's: max and mean |a-b|, relative L2 ||a-b||/||a||, cosine, SQNR\n"
         "20 log10(||a||/||a-b||) dB (float64, NaN against NaN counts as equal). Then the\n"
         "nodes only one side has, and `First divergence: NODE (metric value)` or\n"
         "`No divergence above T`. B is another file (nodes matched by name, the rest by\n"
         "module scope and order: a quantized model against its float original), or A itself\n"
         "with --dtype, --input-b or --seed-b.\n"
         "  --input SPEC, --seed N   A's input, as for `run` (guessed if not given)\n"
         "  --dtype D       B's floating weights and inputs cast to D: bfloat16, float16,\n"
         "                  float64 (as model.to(D) and x.to(D))\n"
         "  --input-b SPEC  B's input instead of A's (one per placeholder)\n"
         "  --seed-b N      B's seed for its random input instead of A's\n"
         "  --local         feed each of B's nodes A's values (cast to B's dtype, quantized\n"
         "                  as B's are): the error each node makes itself, not what it was given\n"
         "  --metric M      the metric divergence is judged by: rel_l2 (default), max_abs,\n"
         "                  mean_abs, cosine, sqnr\n"
         "  --threshold T   diverged past T (default rel_l2 1e-3, max_abs 1e-3, mean_abs 1e-4;\n"
         "                  below T for cosine, 0.99999, and sqnr, 60 dB); a value that is not\n"
         "                  finite, a shape that differs, or a node one run skipped diverges too\n"
         "  --json FILE     also write the comparison as fxview.comparison JSON\n"
         "Exit code 0 whatever the differences; 1 when a model cannot be loaded or a run fails.\n"},
        {"export",
         "fxtrace export MODEL -o FILE [--format F] [--input SPEC]... [--seed N] "
         "[--run | --step N] [--depth N] [--expand SCOPE]... [--scale S] [--theme light|dark] "
         "[--transparent] [--show-hidden] [--show-weights] [--attach SOCKET]",
         "Draws the graph (Graphviz dot layout) and writes it as PNG, SVG, PDF, DOT, JSON or\n"
         "text, exactly as the graph view shows it. Needs no display.\n"
         "  -o, --output FILE   the file to write; its extension picks the format (.txt: the\n"
         "                      graph as text, torch.fx's print(graph))\n"
         "  --format F          png, svg, pdf, dot, json or txt, whatever the extension says\n"
         "  --run               run the graph first: every box shows its output shape\n"
         "  --step N            run N steps: the state after them, the current node highlighted\n"
         "  --depth N           draw every module scope deeper than N as one box (0: only the\n"
         "                      top-level scopes' boxes); without it every scope is open\n"
         "  --expand SCOPE      open this scope (and those around it) on top of --depth;\n"
         "                      repeatable. JSON keeps every node and adds the scope tree.\n"
         "  --input SPEC, --seed N   the sample input, as for `run` (guessed if not given)\n"
         "  --scale S           PNG pixels per point (default 2)\n"
         "  --theme T           light (default) or dark\n"
         "  --transparent       PNG/SVG without a background\n"
         "  --show-hidden       draw the hidden guard nodes too\n"
         "  --show-weights      draw each weight as a box of its own (by default a weight one\n"
         "                      node reads is a line in that node's box, as in the app)\n"
         "  --attach SOCKET     export the model a live engine serves on this socket (a file\n"
         "                      descriptor or a Unix socket's path, as fxview.export passes)\n"},
    };
    return list;
}

std::string modelHelp() {
    std::string text =
        "MODEL is a TorchScript archive (.pt/.pth/.zip written by torch.jit.save of a\n"
        "scripted or traced module), a torch.export program (.pt2 written by\n"
        "torch.export.save, PyTorch 2.2 to 2.15) or a built-in example:\n";
    for (const ExampleInfo& e : examples())
        text += "  example:" + e.name + std::string(12 - e.name.size(), ' ') + e.description + "\n";
    text +=
        "Every command runs its work in a confined child process (Landlock, seccomp, a memory\n"
        "cap, as the app's engine):\n"
        "  --time-limit SECONDS  stop it after SECONDS, with a sentence naming the node\n"
        "  --memory-limit SIZE   the most memory it may use, e.g. 8G, 512M (default half the RAM)\n"
        "  --in-process          run the model in fxtrace's own process, unconfined (debugging)\n"
        "  --ops LIB.so          load a library of custom ops first, as torch.ops.load_library\n"
        "                        (torchvision's and torchaudio's are loaded when a model calls\n"
        "                        them); once per library\n";
    return text;
}

void printUsage(std::ostream& out) {
    out << "Usage: fxtrace COMMAND MODEL [OPTIONS]\n"
           "       fxtrace --version\n\n"
           "Shows a PyTorch model's computation graph the way torch.fx.symbolic_trace sees it.\n\n"
           "Commands:\n";
    for (const Command& c : commands())
        out << "  " << c.synopsis << "\n      "
            << std::string(c.help).substr(0, std::strcspn(c.help, "\n")) << "\n";
    out << "\n"
        << modelHelp()
        << "\nRun `fxtrace COMMAND --help` for a command's options.\n"
           "Exit codes: 0 success, 1 the model could not be loaded or traced, 2 bad usage.\n";
}

int usageError(const std::string& message) {
    std::cerr << "fxtrace: " << message << "\nRun `fxtrace --help` for usage.\n";
    return kBadUsage;
}

std::string formatTime(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, us < 1000 ? "%.1f us" : "%.2f ms", us < 1000 ? us : us / 1000);
    return buf;
}

// One line per node in graph order, columns padded to their widest cell.
std::string runTable(const Interpreter& run, bool showHidden) {
    std::vector<std::vector<std::string>> rows = {
        {"name", "op", "target", "shape", "dtype", "time"}};
    run.graph().forEachNode([&](const Node& n, int depth) {
        if (n.hidden && !showHidden)
            return;
        const NodeRecord* r = run.record(n.name);
        std::string shape, dtype, time;
        if (r && r->state == NodeState::Done) {
            shape = shortDescription(r->value);
            dtype = r->value.dtype;
            time = formatTime(r->timeUs);
            if (std::string note = controlFlowNote(*r); !note.empty())
                shape += " (" + note + ")";
        } else if (r && r->state == NodeState::Failed) {
            shape = "FAILED";
        } else if (r && r->state == NodeState::NotExecuted) {
            shape = "not executed";
        }
        rows.push_back({std::string(static_cast<std::size_t>(depth) * 2, ' ') + n.name,
                        opName(n.op), n.target, shape, dtype, time});
    });
    return alignColumns(rows);
}

// After a node's failure to allocate: the engine's cap, and how to raise it.
std::string memoryHint(const std::string& failure, const Options& options) {
    std::int64_t limit = options.memoryLimit > 0 ? options.memoryLimit : defaultMemoryLimit();
    std::string hint = memoryLimitHint(failure, options.inProcess ? 0 : limit);
    return hint.empty() ? hint : " " + hint;
}

int run(const Options& options) {
    reportStage("loading the model");
    LoadResult loaded = loadModel(options.model, options.opLibraries);
    if (!loaded.ok()) {
        std::cerr << loaded.error << "\n";
        return kModelFailed;
    }
    if (!loaded.note.empty())
        std::cerr << loaded.note << "\n";
    reportStage("tracing the model");
    TraceResult traced = importGraph(*loaded.model);
    if (!traced.ok()) {
        std::cerr << traced.error << "\n";
        return kModelFailed;
    }
    if (options.command == "operators")
        return layTrace(options, traced.graph);
    reportStage("laying out or printing the graph");
    if (options.command == "export")
        return exportPicture(options, loaded.model, std::move(traced));
    JsonModelInfo info{options.model, loaded.model->className()};
    FxTextOptions text;
    text.showHidden = options.showHidden;
    if (options.command == "graph" || options.command == "nodes" ||
        (options.command == "json" && options.inputs.empty())) {
        std::string result = options.command == "graph"   ? formatGraph(traced.graph, text)
                             : options.command == "nodes" ? formatNodeList(traced.graph, text)
                                                          : graphToJson(traced.graph, info);
        if (options.output.empty()) {
            std::cout << result;
            return kOk;
        }
        return writeFile(options.output, result) ? kOk : kModelFailed;
    }

    RunOptions runOptions;
    runOptions.keepValues = options.keepValues;
    runOptions.capturedNode = options.savedNode;
    Interpreter interpreter(loaded.model, std::move(traced), runOptions);
    std::vector<InputSpec> specs;
    if (!chooseInputs(interpreter, options, specs))
        return kModelFailed;
    interpreter.setBeforeNode([](const std::string& next) {
        reportStage(next, true);
        return true;
    });
    if (!options.savedNode.empty() && !interpreter.graph().find(options.savedNode)) {
        std::cerr << "The graph has no node '" << options.savedNode
                  << "'; `fxtrace nodes MODEL` lists their names.\n";
        return kModelFailed;
    }
    interpreter.setBreakOnNonFinite(options.breakOnNonFinite);
    // --profile N: one run to warm up and N timed ones, which breakpoints and watches do not stop.
    ProfiledRuns profile;
    StopReason stop = StopReason::Finished;
    if (options.profileRuns > 0) {
        profile = profileRuns(interpreter, options.profileRuns, [](const std::string& next) {
            reportStage(next, true);
            return true;
        });
        stop = interpreter.finished() ? StopReason::Finished : StopReason::Failed;
    } else {
        stop = interpreter.runToEnd();
    }
    if (!interpreter.stopNote().empty()) {
        std::cout << runTable(interpreter, options.showHidden) << interpreter.stopNote() << "\n";
        if (!options.savedNode.empty())
            if (std::string error = interpreter.saveValue(options.savedValueFile); !error.empty())
                std::cerr << error << "\n";
        return kModelFailed;
    }
    reportStage("checking the outputs");

    // Checked once, before the JSON that carries the verdict: forward costs a second run.
    OutputCheck check = interpreter.finished() ? interpreter.checkOutputs() : OutputCheck{};
    JsonRunInfo runInfo{
        specs,        interpreter.inputSummaries(),
        options.seed, [&](const std::string& name) { return interpreter.record(name); },
        check,        interpreter.peakLive()};
    std::string json = graphToJson(interpreter.graph(), info, &runInfo);
    if (options.command == "json") {
        if (options.output.empty())
            std::cout << json;
        else if (!writeFile(options.output, json))
            return kModelFailed;
        if (stop == StopReason::Failed)
            std::cerr << interpreter.failure() << memoryHint(interpreter.failure(), options)
                      << "\n";
        return stop == StopReason::Failed ? kModelFailed : kOk;
    }

    CostTable cost = makeCostTable(
        interpreter.graph(), [&](const std::string& name) { return interpreter.record(name); },
        profile.times, options.profileRuns > 0 ? options.profileRuns : 1, options.showHidden);
    cost.peakLive = interpreter.peakLive();
    std::cout << (options.profileRuns > 0 ? costText(cost)
                                          : runTable(interpreter, options.showHidden));
    if (!options.csvFile.empty() && !writeFile(options.csvFile, costCsv(cost)))
        return kModelFailed;
    // The model's own warnings.warn calls, as Python would print them, after the table.
    interpreter.graph().forEachNode([&](const Node& n, int) {
        const NodeRecord* r = interpreter.record(n.name);
        if (r && !r->warning.empty())
            std::cerr << "Warning from node '" << n.name << "': " << r->warning << "\n";
    });
    if (!options.jsonFile.empty() && !writeFile(options.jsonFile, json))
        return kModelFailed;
    if (stop == StopReason::Failed) {
        std::cerr << interpreter.failure() << memoryHint(interpreter.failure(), options) << "\n";
        if (!options.savedNode.empty()) // it may have run before the failure
            if (std::string error = interpreter.saveValue(options.savedValueFile); !error.empty())
                std::cerr << error << "\n";
        return kModelFailed;
    }
    if (!options.savedNode.empty())
        if (std::string error = interpreter.saveValue(options.savedValueFile); !error.empty()) {
            std::cerr << error << "\n";
            return kModelFailed;
        }
    if (!options.outputsFile.empty()) {
        std::string error = interpreter.saveOutputs(options.outputsFile);
        if (!error.empty()) {
            std::cerr << error << "\n";
            return kModelFailed;
        }
    }
    if (options.tracePath)
        std::cout << "\nExecuted path:\n" << formatGraph(interpreter.executedPath(), text);
    bool random = check.verdict == OutputCheck::Verdict::Nondeterministic;
    bool noReference = check.verdict == OutputCheck::Verdict::NoReference;
    std::cout << "Outputs equal: "
              << (random        ? "not checked (random)"
                  : noReference ? "not checked (a .pt2 has no forward to run)"
                  : check.verdict == OutputCheck::Verdict::Equal ? "True"
                                                                 : "False")
              << "\n";
    if (!check.message.empty())
        std::cerr << check.message << "\n";
    return check.verdict == OutputCheck::Verdict::Equal || random || noReference ? kOk
                                                                                 : kModelFailed;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
        return usageError("no command given");
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        printUsage(std::cout);
        return kOk;
    }
    if (args[0] == "-v" || args[0] == "--version") {
        std::cout << versionText("fxtrace", qVersion()) << "\n";
        return kOk;
    }

    Options options;
    options.command = args[0];
    const Command* command = nullptr;
    for (const Command& c : commands())
        if (options.command == c.name)
            command = &c;
    if (!command)
        return usageError("unknown command '" + options.command + "'");

    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::cout << "Usage: " << command->synopsis << "\n\n"
                      << command->help << "\n"
                      << modelHelp();
            return kOk;
        } else if (a == "--show-hidden" && options.command != "json") {
            options.showHidden = true;
        } else if (a == "--show-weights" && options.command == "export") {
            options.showWeights = true;
        } else if ((a == "-o" || a == "--output") && options.command == "export") {
            if (i + 1 == args.size())
                return usageError(a + " needs a file name");
            options.output = args[++i];
        } else if (options.command == "export" && a == "--expand") {
            if (i + 1 == args.size() || args[i + 1].empty())
                return usageError("--expand needs a module scope such as layers.0");
            options.expand.push_back(args[++i]);
        } else if (options.command == "export" &&
                   (a == "--format" || a == "--scale" || a == "--theme" || a == "--step" ||
                    a == "--depth")) {
            if (i + 1 == args.size())
                return usageError(a + " needs a value");
            std::string value = args[++i];
            if (a == "--format") {
                options.format = QString::fromStdString(value);
            } else if (a == "--theme") {
                Theme ignored;
                if (!Theme::byName(QString::fromStdString(value), ignored))
                    return usageError("--theme is light or dark");
                options.theme = QString::fromStdString(value);
            } else if (a == "--scale") {
                char* end = nullptr;
                options.scale = std::strtod(value.c_str(), &end);
                if (*end || !(options.scale > 0 && options.scale <= 50))
                    return usageError("--scale needs a number above 0 and at most 50");
            } else {
                if (value.empty() || value.size() > 6 ||
                    value.find_first_not_of("0123456789") != std::string::npos)
                    return usageError(a == "--depth" ? "--depth needs a whole number (0: only the "
                                                       "top-level scopes)"
                                                     : "--step needs a whole number of steps");
                (a == "--depth" ? options.depth : options.steps) = std::stoi(value);
            }
        } else if (a == "--attach" && options.command == "export") {
            if (i + 1 == args.size())
                return usageError("--attach needs a socket (a file descriptor or a path)");
            std::string error;
            if ((options.attachFd = connectLiveEngine(args[++i], error)) < 0)
                return usageError(error);
        } else if (a == "--run" && options.command == "export") {
            options.run = true;
        } else if (a == "--transparent" && options.command == "export") {
            options.transparent = true;
        } else if ((a == "-o" || a == "--output") && options.command == "json") {
            if (i + 1 == args.size())
                return usageError(a + " needs a file name");
            options.output = args[++i];
        } else if (options.command == "compare" &&
                   (a == "--input-b" || a == "--dtype" || a == "--seed-b" || a == "--metric" ||
                    a == "--threshold")) {
            if (i + 1 == args.size())
                return usageError(a + " needs a value");
            if (std::string error = compareOption(a, args[++i], options.compare); !error.empty())
                return usageError(error);
        } else if (a == "--local" && options.command == "compare") {
            options.compare.b.local = true;
        } else if (a == "--input" &&
                   (options.command == "run" || options.command == "json" ||
                    options.command == "export" || options.command == "compare")) {
            if (i + 1 == args.size())
                return usageError("--input needs a spec such as 3x4 or file:input.pt");
            InputSpec spec;
            std::string error;
            if (!parseInputSpec(args[++i], spec, error))
                return usageError(error);
            options.inputs.push_back(spec);
        } else if (a == "--seed" && (options.command == "run" || options.command == "json" ||
                                     options.command == "export" || options.command == "compare")) {
            if (i + 1 == args.size() || args[i + 1].empty() ||
                args[i + 1].find_first_not_of("0123456789") != std::string::npos)
                return usageError("--seed needs a non-negative whole number");
            options.seed = std::stoull(args[++i]);
        } else if (a == "--json" && (options.command == "run" || options.command == "compare")) {
            if (i + 1 == args.size())
                return usageError("--json needs a file name");
            options.jsonFile = args[++i];
        } else if (a == "--save-outputs" && options.command == "run") {
            if (i + 1 == args.size())
                return usageError("--save-outputs needs a file name");
            options.outputsFile = args[++i];
        } else if (a == "--save-value" && options.command == "run") {
            if (i + 2 >= args.size())
                return usageError("--save-value needs a node's name and a file name");
            options.savedNode = args[++i];
            options.savedValueFile = args[++i];
        } else if (a == "--break-on" && options.command == "run") {
            if (i + 1 == args.size() || args[i + 1] != "nan")
                return usageError("--break-on takes nan (a NaN or an Inf in a node's output)");
            options.breakOnNonFinite = true;
            ++i;
        } else if (a == "--profile" && options.command == "run") {
            if (i + 1 == args.size() || args[i + 1].empty() || args[i + 1].size() > 6 ||
                args[i + 1].find_first_not_of("0123456789") != std::string::npos ||
                std::stoi(args[i + 1]) < 1 || std::stoi(args[i + 1]) > kMaxProfileRuns)
                return usageError("--profile needs how many timed runs, a whole number from 1 "
                                  "to " +
                                  std::to_string(kMaxProfileRuns));
            options.profileRuns = std::stoi(args[++i]);
        } else if (a == "--csv" && options.command == "run") {
            if (i + 1 == args.size())
                return usageError("--csv needs a file name");
            options.csvFile = args[++i];
        } else if (a == "--keep-values" && options.command == "run") {
            options.keepValues = true;
        } else if (a == "--trace-path" && options.command == "run") {
            options.tracePath = true;
        } else if (a == "--time-limit" || a == "--memory-limit") {
            if (i + 1 == args.size())
                return usageError(a + " needs a value");
            std::string value = args[++i];
            if (a == "--time-limit") {
                char* end = nullptr;
                options.timeLimit = std::strtod(value.c_str(), &end);
                if (*end || !(options.timeLimit > 0))
                    return usageError("--time-limit needs a number of seconds above 0");
            } else if ((options.memoryLimit = parseMemorySize(value)) <= 0) {
                return usageError("--memory-limit takes a size such as 8G or 512M");
            }
        } else if (a == "--in-process") {
            options.inProcess = true;
        } else if (a == "--ops") {
            if (i + 1 == args.size())
                return usageError("--ops needs the path of a shared library");
            options.opLibraries.push_back(args[++i]);
        } else if (!a.empty() && a[0] == '-') {
            return usageError("unknown option '" + a + "' for " + options.command);
        } else if (options.model.empty()) {
            options.model = a;
        } else if (options.command == "compare" && options.compare.b.modelB.empty()) {
            options.compare.b.modelB = a;
        } else if (options.command == "operators" && options.traceFile.empty()) {
            options.traceFile = a;
        } else {
            return usageError("more than one MODEL given ('" + options.model + "' and '" + a +
                              "')");
        }
    }
    if (options.model.empty() && options.attachFd >= 0)
        options.model = "python:live";
    if (options.model.empty())
        return usageError(options.command + " needs a MODEL (a .pt file or example:tinynet)");
    if (options.command == "operators" && options.traceFile.empty())
        return usageError("operators needs a TRACE: the Chrome-trace JSON of torch.profiler");
    if (options.command == "export" && options.output.empty())
        return usageError("export needs -o FILE (.png, .svg, .pdf, .dot, .json or .txt)");
    if (options.command == "compare" && options.compare.b.modelB.empty() &&
        options.compare.b.dtype.empty() && options.compare.b.inputsB.empty() &&
        !options.compare.b.hasSeedB)
        return usageError("compare needs a run B that differs from A: a second MODEL, --dtype, "
                          "--input-b or --seed-b");
    if (options.run && options.steps >= 0)
        return usageError("--run and --step are either-or");
    // A live engine runs the model in the person's own process: nothing runs here to confine.
    if (options.attachFd >= 0)
        return exportLive(options);
    ConfinedRunOptions confined;
    confined.model = options.model;
    confined.timeLimit = options.timeLimit;
    confined.memoryLimit = options.memoryLimit;
    confined.inProcess = options.inProcess;
    confined.outputs = {&options.output, &options.jsonFile, &options.outputsFile,
                        &options.savedValueFile, &options.csvFile};
    return runConfined(
        confined, [&] { return options.command == "compare" ? compare(options) : run(options); });
}
