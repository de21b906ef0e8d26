#pragma once
// A model's runs timed node by node (docs/cost.md): what `fxtrace run --profile N` and the
// engine's Profile request take each node's median time and spread from.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "Interpreter.h"

namespace fxview {

struct ProfiledRuns {
    std::unordered_map<std::string, std::vector<double>> times; // by node, a time per run (µs)
    int runs = 0;                                               // timed runs that ended
    std::string error; // why it stopped short: a node failed, or `goOn` said stop
};

// Runs the model from its inputs to its end once to warm up, then `runs` times, each from a
// reset, keeping every node's time of each timed run (a node inside a loop: its last
// iteration's). Breakpoints and the NaN watch do not stop these runs. `goOn` is asked before
// each node (false stops the profile there, as Pause). The interpreter is left holding the last
// run.
ProfiledRuns profileRuns(Interpreter& run, int runs,
                         const std::function<bool(const std::string& next)>& goOn = {});

} // namespace fxview
