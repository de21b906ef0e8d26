#pragma once
// Whether a finished run computed what the model computes: the graph's output against the
// module's own forward on the same input. fxview promises exactly the model's result, so a
// difference is a bug to show, never to hide; a model with random ops cannot be checked, and says
// so instead.

#include <string>

#include "Graph.h"

namespace fxview {

struct OutputCheck {
    enum class Verdict {
        NotChecked,       // the run has not reached its end
        Equal,            // torch::equal to forward, item by item for tuples, lists and dicts
        Differs,          // fxview computed something else: a bug of fxview's
        Nondeterministic, // the graph has a random op: two runs need not agree
        ForwardFailed,    // the module's own forward raised on this input
        NoReference,      // a torch.export program: LibTorch has no forward of it to run
    };
    Verdict verdict = Verdict::NotChecked;
    std::string message; // one sentence for the banner and fxtrace; "" when Equal
};

// The first node whose result is random (rand, dropout with training=True, bernoulli, an
// uninitialised empty, ...), described as "dropout (torch.nn.functional.dropout with training
// on)", or "" when the graph is deterministic. Searches inside control-flow blocks too.
std::string firstRandomNode(const Graph& graph);

// The sentences the banner, the status bar and fxtrace show for each verdict.
OutputCheck outputsEqual();
OutputCheck outputsDiffer(const std::string& outputNode);
OutputCheck outputsRandom(const std::string& randomNode);
OutputCheck forwardFailed(const std::string& why);
OutputCheck noReference();

} // namespace fxview
