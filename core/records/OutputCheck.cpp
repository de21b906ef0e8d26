#include "OutputCheck.h"

#include <set>

namespace fxview {

namespace {

// "aten::dropout.Tensor" -> "dropout"; "__torch__.torch.nn.functional.dropout" -> "dropout".
std::string opBaseName(const Node& node) {
    std::string name = node.schema.empty() ? node.target : node.schema;
    std::size_t ns = name.rfind("::");
    if (ns != std::string::npos) {
        name = name.substr(ns + 2);
        return name.substr(0, name.find('.'));
    }
    return name.substr(name.rfind('.') + 1);
}

// Ops whose every result is random or uninitialised memory (ATen's random and empty families).
const std::set<std::string>& alwaysRandom() {
    static const std::set<std::string> ops = {
        "rand",     "rand_like",    "randn",      "randn_like",  "randint",      "randint_like",
        "randperm", "bernoulli",    "bernoulli_", "multinomial", "normal",       "normal_",
        "uniform_", "exponential_", "geometric_", "cauchy_",     "log_normal_",  "random_",
        "poisson",  "empty",        "empty_like", "new_empty",   "empty_strided"};
    return ops;
}

// Ops that are random only in training mode: where their training flag sits, and what it is
// when the call leaves it out (the tracer drops arguments left at their default). The aten forms
// take it as a required `train`; torch.nn.functional's default to training=True for dropout and
// dropout1d/2d/3d, False for alpha_dropout, feature_alpha_dropout and rrelu.
struct TrainingFlag {
    int index = -1; // -1: not a training-dependent op
    bool byDefault = false;
};

TrainingFlag trainingFlagOf(const std::string& op) {
    static const std::set<std::string> onByDefault = {
        "dropout",   "dropout_",        "dropout1d",        "dropout2d",
        "dropout3d", "feature_dropout", "feature_dropout_", "native_dropout"};
    static const std::set<std::string> offByDefault = {
        "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_"};
    if (onByDefault.count(op))
        return {2, true}; // (input, p, train)
    if (offByDefault.count(op))
        return {2, false};
    if (op == "rrelu" || op == "rrelu_")
        return {3, false}; // (input, lower, upper, training)
    return {};
}

// A training flag known to be False makes the op deterministic; True, or a value only known at
// run time, does not.
bool trainingOn(const Node& node, const TrainingFlag& flag) {
    auto on = [](const Argument& a) { return !(a.kind == Argument::Kind::Bool && !a.boolean); };
    for (const KeywordArgument& kw : node.kwargs)
        if (kw.name == "train" || kw.name == "training")
            return on(kw.value);
    if (flag.index < static_cast<int>(node.args.size()))
        return on(node.args[static_cast<std::size_t>(flag.index)]);
    return flag.byDefault;
}

} // namespace

std::string firstRandomNode(const Graph& graph) {
    std::string found;
    graph.forEachNode([&](const Node& node, int) {
        if (!found.empty() || (node.op != Op::CallFunction && node.op != Op::CallMethod))
            return;
        std::string op = opBaseName(node);
        if (alwaysRandom().count(op))
            found = node.name + " (" + node.target + ")";
        else if (TrainingFlag flag = trainingFlagOf(op); flag.index >= 0 && trainingOn(node, flag))
            found = node.name + " (" + node.target + " with training on)";
    });
    return found;
}

OutputCheck outputsEqual() {
    return {OutputCheck::Verdict::Equal, {}};
}

OutputCheck outputsDiffer(const std::string& outputNode) {
    return {OutputCheck::Verdict::Differs,
            "This run's output (" + outputNode +
                ") differs from the model's own forward on the same input: fxview has a bug "
                "here; please report it with the model."};
}

OutputCheck outputsRandom(const std::string& randomNode) {
    return {OutputCheck::Verdict::Nondeterministic,
            "This run's output cannot be checked against the model's own forward: " + randomNode +
                " is random, so two runs need not agree."};
}

OutputCheck forwardFailed(const std::string& why) {
    return {OutputCheck::Verdict::ForwardFailed,
            "The model's own forward failed on this input (" + why +
                "), so this run's output could not be checked against it."};
}

OutputCheck noReference() {
    return {OutputCheck::Verdict::NoReference,
            "A torch.export program has no forward that LibTorch can run, so this run's output "
            "was not checked here: compare `fxtrace run --save-outputs` with "
            "torch.export.load(path).module() in Python."};
}

} // namespace fxview
