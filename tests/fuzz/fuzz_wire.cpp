// Bytes from an engine as the window reads them: frames taken off the stream (takeFrame), each
// decoded as its kind's message (the engine's requests too, as fxview-engine reads them).

#include <cstdint>
#include <string>

#include "WireMessages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string buffer(reinterpret_cast<const char*>(data), size);
    fxview::Frame frame;
    try {
        while (fxview::takeFrame(buffer, frame)) {
            try {
                fxview::reencode(static_cast<fxview::EngineMessage>(frame.kind), frame.payload);
            } catch (const fxview::WireError&) { // this frame is refused; the stream goes on
            }
        }
    } catch (const fxview::WireError&) { // a header that is not ours
    }
    return 0;
}
