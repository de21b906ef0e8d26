// The inputs a run starts from: guessed for each placeholder (a default, a .pt2's example, the
// traced type, or the weights of the first module that consumes it), or made from the person's
// specs. Apart from the step machine because guessing reads the model, not the run.

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "FxText.h"
#include "InputValues.h"
#include "InterpreterPrivate.h"
#include "ModelPrivate.h"
#include "TorchValues.h"

namespace fxview {

namespace {

// The submodule at a dotted path ("layer1.0.conv1") below `root`.
std::optional<torch::jit::Module> submodule(const torch::jit::Module& root,
                                            const std::string& path) {
    torch::jit::Module m = root;
    std::size_t start = 0;
    while (start < path.size()) {
        std::size_t dot = path.find('.', start);
        std::string field =
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!m.hasattr(field) || !m.attr(field).isModule())
            return std::nullopt;
        m = m.attr(field).toModule();
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return m;
}

// A convolution's `groups`: a constant of the class in scripted modules, an argument of the
// aten call in traced ones, so it is read from the forward graph.
std::int64_t convolutionGroups(const torch::jit::Module& conv) {
    std::shared_ptr<torch::jit::Graph> g = conv.get_method("forward").graph()->copy();
    torch::jit::Inline(*g);
    for (const torch::jit::Node* n : g->nodes()) {
        std::string kind = n->kind().toQualString();
        if (kind.rfind("aten::conv", 0) == 0 || kind == "aten::_convolution")
            if (auto groups = torch::jit::constant_as<std::int64_t>(n->namedInput("groups")))
                return *groups;
    }
    return 1;
}

// An input shape for a placeholder whose first consumer is `module`, or "" with no guess.
std::string guessFromModule(const torch::jit::Module& module, const std::string& type,
                            const std::string& path, InputSpec& spec) {
    if (!module.hasattr("weight") || !module.attr("weight").isTensor())
        return {};
    at::Tensor w = module.attr("weight").toTensor();
    std::string weight = "weight " + formatShape(w.sizes().vec());
    if (type == "torch.nn.Linear" && w.dim() == 2) {
        spec.shape = {1, w.size(1)};
        return path + " (torch.nn.Linear, " + weight + ")";
    }
    if ((type == "torch.nn.Conv1d" || type == "torch.nn.Conv2d" || type == "torch.nn.Conv3d") &&
        w.dim() >= 3) {
        spec.shape = {1, w.size(1) * convolutionGroups(module)};
        for (int i = 2; i < w.dim(); ++i)
            spec.shape.push_back(224);
        return path + " (" + type + ", " + weight + ")";
    }
    if (type == "torch.nn.Embedding") {
        spec.shape = {1, 16};
        spec.dtype = "int64";
        return path + " (torch.nn.Embedding, " + weight + ")";
    }
    return {};
}

// "5x4 float32" for the input note.
std::string describeExample(const c10::IValue& v) {
    if (!v.isTensor())
        return v.type()->annotation_str();
    std::string shape;
    for (std::int64_t size : v.toTensor().sizes())
        shape += (shape.empty() ? "" : "x") + std::to_string(size);
    return shape + " " + dtypeName(v.toTensor().scalar_type());
}

// "; dimension 0 (s77) takes 2 to 64" for the input note: the sizes a dynamic .pt2 accepts.
std::string describeDynamic(const PlaceholderSpec& wanted) {
    std::string text;
    for (const PlaceholderSpec::DynamicDim& dyn : wanted.dynamicDims)
        text += "; dimension " + std::to_string(dyn.dim) + " (" + dyn.symbol + ") takes " +
                std::to_string(dyn.min) +
                (dyn.max ? " to " + std::to_string(*dyn.max) : std::string(" or more"));
    return text;
}

} // namespace

InputChoice Interpreter::guessInputs() const {
    InputChoice choice;
    int index = 0;
    for (const Node& node : d->graph.nodes) {
        if (!node.isInput()) // a torch.export program's parameters are placeholders too
            continue;
        const PlaceholderSpec& wanted = d->plan->inputs[static_cast<std::size_t>(index++)];
        if (wanted.defaultValue) { // those after it have defaults too, as in Python
            choice.explanation +=
                "input " + node.name + ": its default, " + formatArgument(node.args.at(0)) + "\n";
            continue;
        }
        InputSpec spec;
        std::string source;
        if (wanted.example) { // a .pt2's own: the values it was exported with
            spec.example = true;
            choice.explanation += "input " + node.name + ": " + wanted.typeOrigin + " (" +
                                  describeExample(*wanted.example) + ")" + describeDynamic(wanted) +
                                  "\n";
            choice.specs.push_back(spec);
            continue;
        }
        if (specFromTracedType(wanted.type, spec)) {
            choice.explanation +=
                "input " + node.name + ": " + spec.text() + ", " + wanted.typeOrigin + "\n";
            choice.specs.push_back(spec);
            continue;
        }
        for (const std::string& userName : node.users) {
            const Node* user = d->graph.find(userName);
            if (!user || user->hidden || user->op != Op::CallModule)
                continue;
            if (d->model->d().exported)
                break; // no modules to read shapes off: its example inputs have them
            if (auto m = submodule(d->model->d().module, user->target))
                source = guessFromModule(*m, user->moduleType, user->target, spec);
            // The first module that consumes it decides, as a person reading the graph would
            // (vit_b_16 reads x.shape before its conv_proj).
            break;
        }
        if (source.empty()) {
            choice.error = "Cannot guess an input for '" + node.name +
                           "' from the graph; give one with --input, e.g. --input 1x3x224x224 "
                           "or --input 2x8:int64.";
            return choice;
        }
        choice.explanation +=
            "input " + node.name + ": " + spec.text() + ", guessed from " + source + "\n";
        choice.specs.push_back(spec);
    }
    return choice;
}

const std::vector<ValueSummary>& Interpreter::inputSummaries() const {
    return d->inputSummaries;
}

std::string Interpreter::setInputs(const std::vector<InputSpec>& specs, std::uint64_t seed) {
    at::manual_seed(seed);
    std::vector<c10::IValue> made;
    if (std::string error = makeInputValues(specs, d->plan->inputs, made, d->plan->flattenInputs);
        !error.empty())
        return error;
    d->inputs = std::move(made);
    if (d->castTo)
        for (c10::IValue& v : d->inputs)
            v = castFloating(v, *d->castTo);
    d->inputSummaries.clear();
    for (const c10::IValue& v : d->inputs)
        d->inputSummaries.push_back(summarize(v, d->options.fullSummaries));
    d->resetRun();
    return {};
}

} // namespace fxview
