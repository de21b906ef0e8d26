// A node's source trace (a .pt2's stack_trace, a live GraphModule's): its frames, the model's
// own, the innermost.

#include <cstdint>
#include <string>

#include "SourceLocation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string trace(reinterpret_cast<const char*>(data), size);
    fxview::tracebackFrames(trace);
    fxview::modelFrames(trace);
    fxview::innermostFrame(trace);
    return 0;
}
