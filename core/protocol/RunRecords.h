#pragma once
// A peer's copy of a run's records. A live engine sends only the records that changed since its
// last RunState (RunState::recordsAreChanges) and answers a DetailRequest with one record's
// std and histograms; the window and fxtrace keep the rest here.

#include <string>
#include <unordered_map>

#include "EngineProtocol.h"

namespace fxview {

class RunRecords {
public:
    // Brings the copy up to `state` (replaced by a whole one, merged with changes) and gives
    // `state` every record.
    void take(RunState& state);
    // A Detail's summary becomes its node's value (a node of the model's own graph: a module
    // stepped into is sent whole each time).
    void takeDetail(const ValueSlice& detail);
    void clear() { records_.clear(); }

private:
    std::unordered_map<std::string, NodeRecord> records_;
};

} // namespace fxview
