#pragma once
// A blocking conversation with an engine on a connected socket, for the command line (fxtrace
// --attach, the window has its own asynchronous one): one request at a time, its answers read
// until Done. Torch-free: the engine may be the person's own Python (python/fxview/live.py).

#include <string>
#include <vector>

#include "EngineProtocol.h"
#include "Wire.h"

namespace fxview {

// The socket a live engine waits on: `spec` is an inherited file descriptor ("7") or the path
// of a Unix socket it listens on (through scripts/in-root, or sudo, which closes inherited
// descriptors). Returns the connected descriptor, or -1 with a sentence in `error`.
int connectLiveEngine(const std::string& spec, std::string& error);

class EngineConnection {
public:
    explicit EngineConnection(int fd) : fd_(fd) {}

    // Reads the engine's hello; "" or a sentence saying why there is none.
    std::string greet(EngineHello& hello);
    // Sends one request and returns what the engine answered before Done. "" or a sentence:
    // the engine went away, or sent something that is not a message of ours.
    std::string ask(EngineMessage kind, const std::string& payload, std::vector<Frame>& answers);

private:
    int fd_;
};

} // namespace fxview
