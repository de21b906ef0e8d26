#pragma once
// fxtrace's engine: the command's work runs in a child process confined as the app's engines are
// (core/confinement/Confinement.h), while this process only waits, so that a model that crashes,
// loops or allocates without end ends in one sentence and exit code 1, never a signal. Files the
// command writes go to the child's temporary folder first and are moved where they were asked
// for once it has ended: the child can write nowhere else.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fxview {

struct ConfinedRunOptions {
    std::string model;            // for sentences
    double timeLimit = 0;         // seconds; 0 = none
    std::int64_t memoryLimit = 0; // bytes; 0 = half the RAM
    bool inProcess = false;       // run `work` here, unconfined (for debugging)
    // Paths the work writes; rewritten to the temporary folder before it starts.
    std::vector<std::string*> outputs;
};

// Runs `work` (returning an exit code) as described above and returns its exit code, or 1 with
// a sentence on stderr if it died or ran out of time.
int runConfined(ConfinedRunOptions& options, const std::function<int()>& work);

// What the work is doing, for the sentence if it dies: "loading the model", a node's name.
// Cheap (a copy into a page shared with the waiting parent); does nothing in-process.
void reportStage(const std::string& stage, bool isNode = false);

} // namespace fxview
