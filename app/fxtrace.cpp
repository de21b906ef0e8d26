// fxtrace: the command-line face of fxview's core. Prints a model's fx-style graph the way
// torch.fx prints it, lists its nodes, or writes it as fxview.graph JSON.
// Exit codes: 0 success, 1 the model failed (load or trace), 2 bad usage.

#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "Examples.h"
#include "FxText.h"
#include "GraphJson.h"
#include "Model.h"
#include "Tracer.h"

namespace {

using namespace fxview;

constexpr int kOk = 0;
constexpr int kModelFailed = 1;
constexpr int kBadUsage = 2;

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
        {"json", "fxtrace json MODEL [-o FILE]",
         "Writes the graph in the fxview.graph JSON format (version 1).\n"
         "  -o, --output FILE   write to FILE instead of standard output\n"},
    };
    return list;
}

std::string modelHelp() {
    std::string text =
        "MODEL is a TorchScript archive (.pt/.pth/.zip written by torch.jit.save of a\n"
        "scripted or traced module) or a built-in example:\n";
    for (const ExampleInfo& e : examples())
        text += "  example:" + e.name + std::string(12 - e.name.size(), ' ') + e.description + "\n";
    return text;
}

void printUsage(std::ostream& out) {
    out << "Usage: fxtrace COMMAND MODEL [OPTIONS]\n\n"
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

struct Options {
    std::string command;
    std::string model;
    std::string output;
    bool showHidden = false;
};

int run(const Options& options) {
    LoadResult loaded = loadModel(options.model);
    if (!loaded.ok()) {
        std::cerr << loaded.error << "\n";
        return kModelFailed;
    }
    TraceResult traced = traceModel(*loaded.model);
    if (!traced.ok()) {
        std::cerr << traced.error << "\n";
        return kModelFailed;
    }
    FxTextOptions text;
    text.showHidden = options.showHidden;
    std::string result;
    if (options.command == "graph")
        result = formatGraph(traced.graph, text);
    else if (options.command == "nodes")
        result = formatNodeList(traced.graph, text);
    else
        result = graphToJson(traced.graph, {options.model, loaded.model->className()});

    if (options.output.empty()) {
        std::cout << result;
        return kOk;
    }
    std::ofstream file(options.output, std::ios::binary);
    file << result;
    if (!file) {
        std::cerr << "Cannot write '" << options.output
                  << "': check that its folder exists and "
                     "is writable.\n";
        return kModelFailed;
    }
    return kOk;
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
        } else if ((a == "-o" || a == "--output") && options.command == "json") {
            if (i + 1 == args.size())
                return usageError(a + " needs a file name");
            options.output = args[++i];
        } else if (!a.empty() && a[0] == '-') {
            return usageError("unknown option '" + a + "' for " + options.command);
        } else if (options.model.empty()) {
            options.model = a;
        } else {
            return usageError("more than one MODEL given ('" + options.model + "' and '" + a +
                              "')");
        }
    }
    if (options.model.empty())
        return usageError(options.command + " needs a MODEL (a .pt file or example:tinynet)");
    return run(options);
}
