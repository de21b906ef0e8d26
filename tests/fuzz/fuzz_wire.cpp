// Bytes from an engine as the window reads them: frames taken off the stream (takeFrame), each
// decoded as its kind's message (the engine's requests too, as fxview-engine reads them).

#include <cstdint>
#include <string>

#include "WireMessages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string buffer(reinterpret_cast<const char*>(data), size);
    fxview::Frame frame;
    try {
        // An odd first byte: an engine reached over SSH, whose login shell may print first
        // (skipPreamble), the rest fed in two reads as a socket may cut it.
        if (size > 0 && (data[0] & 1)) {
            std::string printed, rest = buffer.substr(buffer.size() / 2);
            buffer.resize(buffer.size() / 2);
            bool done = fxview::skipPreamble(buffer, printed);
            buffer += rest;
            if (!done && !fxview::skipPreamble(buffer, printed))
                return 0;
        }
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
