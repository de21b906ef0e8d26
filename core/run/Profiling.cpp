#include "Profiling.h"

namespace fxview {

namespace {

// One run from a reset to its end, node by node (step() checks no breakpoint or watch).
bool runWhole(Interpreter& run, const std::function<bool(const std::string&)>& goOn) {
    run.reset();
    while (!run.finished() && !run.failed()) {
        if (goOn && !goOn(run.nextNode()))
            return false;
        run.step();
    }
    return run.finished();
}

} // namespace

ProfiledRuns profileRuns(Interpreter& run, int runs,
                         const std::function<bool(const std::string& next)>& goOn) {
    ProfiledRuns profile;
    auto stoppedShort = [&] {
        profile.error = run.failed()
                            ? run.failure()
                            : "The profile was stopped after " + std::to_string(profile.runs) +
                                  " of " + std::to_string(runs) + " timed runs.";
    };
    if (!runWhole(run, goOn)) { // the warm-up
        stoppedShort();
        return profile;
    }
    for (int i = 0; i < runs; ++i) {
        if (!runWhole(run, goOn)) {
            stoppedShort();
            break;
        }
        run.graph().forEachNode([&](const Node& n, int) {
            if (const NodeRecord* r = run.record(n.name); r && r->state == NodeState::Done)
                profile.times[n.name].push_back(r->timeUs);
        });
        ++profile.runs;
    }
    return profile;
}

} // namespace fxview
