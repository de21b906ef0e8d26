#pragma once
// Private to engineclient/: the graphs engines made of archives the window opened, kept in
// fxview's cache folder ($XDG_CACHE_HOME/fxview/graphs), so that an archive opened again (a
// TorchScript one, whose graph only LibTorch can make) is drawn at once while its engine starts.
// An entry is found only for the same file (its path, size, time and every member's CRC-32 from
// the zip's directory), the same fxview and LibTorch and the same op libraries; the engine's
// graph must still encode to the same bytes for the drawing to stay (EngineWorker checks).

#include <optional>
#include <string>
#include <vector>

#include "Graph.h"

namespace fxview {

// The graph kept for the archive at `source`; nullopt when there is none, or it is not a zip
// archive, or the entry cannot be read whole.
std::optional<Graph> cachedGraph(const std::string& source,
                                 const std::vector<std::string>& opLibraries);

// Keeps `graph` as the engine made it of `source` (written whole or not at all); the oldest
// entries go past 64.
void keepGraph(const std::string& source, const std::vector<std::string>& opLibraries,
               const Graph& graph);

} // namespace fxview
