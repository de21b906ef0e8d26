#pragma once
// JSON from a model file, read with its nesting bounded: nlohmann's parser keeps its own stack,
// but copying, comparing or dump()ing a value recurses once per level, so a file nested 100,000
// deep overflowed the stack of whatever touched it afterwards. The bound is checked while the
// document is built, before anything walks it, and the refusal names the field and the depth.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace fxview {

// Far deeper than any program torch.export writes (about 10 levels, and 6 more per nested
// subgraph, which ExportedProgram bounds at 32), and shallow enough for any recursive walk.
constexpr int kMaxJsonDepth = 256;

// Parses `text`; a discarded value when it is not valid JSON. Throws std::runtime_error with
// "its WHAT nests JSON values more than N deep (at PATH): ..." when it nests deeper than
// `maxDepth`.
nlohmann::json parseBoundedJson(const std::string& text, const std::string& what,
                                int maxDepth = kMaxJsonDepth);

// A value as a sentence may quote it: a number, a bool or null as written, a string's first 40
// characters, {} or [], "an object of 3 keys", "an array of 12 items"; never more than about 60
// characters, whatever the value holds, and without walking into it.
std::string jsonPreview(const nlohmann::json& value);

} // namespace fxview
