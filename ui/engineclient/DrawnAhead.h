#pragma once
// Private to engineclient/: a .pt2's graph read and walked by the window itself (no LibTorch),
// so that it is drawn while the engine process starts; the engine's graph, when it comes, must be
// the same to the byte for the drawing to stay (EngineWorker checks).

#include <optional>
#include <string>

#include "Graph.h"

namespace fxview {

// The graph of the program the file at `source` holds, walked with the build-time operator
// schemas; nullopt when it is not a readable .pt2 or calls an op the table lacks (the engine
// draws those).
std::optional<Graph> programDrawnAhead(const std::string& source);

} // namespace fxview
