#pragma once
// The engine's side of the protocol: it holds the open model and its interpreter and answers the
// window's requests one at a time, in the process (or, with --in-process, the thread) that is
// allowed to run model code.

#include <atomic>

#include "EngineProtocol.h"

namespace fxview {

// Set (by a signal handler, or another thread) to stop a long run before its next node, as
// Pause does; the server clears it when a request begins.
std::atomic<bool>& engineInterruptFlag();

// Reads requests from `in` and writes answers to `out` until `in` ends. `hello` is sent first.
// Returns 0 when the window closed the channel, 1 on a broken message.
int serveEngine(int in, int out, const EngineHello& hello);

} // namespace fxview
