#include "RunRecords.h"

namespace fxview {

void RunRecords::take(RunState& state) {
    if (!state.recordsAreChanges) {
        records_ = state.records;
        return;
    }
    for (auto& [name, record] : state.records)
        records_[name] = std::move(record);
    state.records = records_;
    state.recordsAreChanges = false;
}

void RunRecords::takeDetail(const ValueSlice& detail) {
    if (!detail.error.empty() || !detail.request.frame.empty())
        return;
    if (auto it = records_.find(detail.request.node); it != records_.end())
        it->second.value = detail.summary;
}

} // namespace fxview
