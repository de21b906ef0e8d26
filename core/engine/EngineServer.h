#pragma once
// The engine's side of the protocol: it holds the open model and its interpreter and answers the
// window's requests one at a time, in the process (or, with --in-process, the thread) that is
// allowed to run model code.

#include "EngineProtocol.h"

namespace fxview {

// Reads requests from `in` and writes answers to `out` until `in` ends. `hello` is sent first.
// `in` is read on a thread of its own, so that an Interrupt frame (Pause) stops the request
// running before its next node. Returns 0 when the window closed the channel, 1 on a broken
// message.
int serveEngine(int in, int out, const EngineHello& hello);

} // namespace fxview
