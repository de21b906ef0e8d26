#pragma once
// Private to engineclient/: the graphs engines made of archives the window opened, kept in
// fxview's cache folder ($XDG_CACHE_HOME/fxview/graphs), so that an archive opened again (a
// TorchScript one, whose graph only LibTorch can make) is drawn at once while its engine starts.
// An entry is found only for the same file (its path, size and time, and what fxview-reader found
// inside it: every member's name, CRC-32 and size, and a hash of each JSON member's bytes), the
// same fxview and LibTorch and the same op libraries; the engine's graph must still encode to the
// same bytes for the drawing to stay (EngineWorker checks). The window reads only regular files
// of its own there, never through a link, and an entry it cannot read is no entry.

#include <optional>
#include <string>
#include <vector>

#include "Graph.h"

namespace fxview {

// The graph kept for the archive at `source` whose reading's cache key (ProgramReading) is
// `contentKey`; nullopt when there is none, or the entry is not a regular file of this user's,
// or cannot be read whole.
std::optional<Graph> cachedGraph(const std::string& source, const std::string& contentKey,
                                 const std::vector<std::string>& opLibraries);

// Keeps `graph` as the engine made it of `source` (written whole or not at all); the oldest
// entries go past 64.
void keepGraph(const std::string& source, const std::string& contentKey,
               const std::vector<std::string>& opLibraries, const Graph& graph);

} // namespace fxview
