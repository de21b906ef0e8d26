#pragma once
// Part of ExportedProgram's reader, torch-free: Python's json writes float('inf'), -inf and nan
// as the bare tokens Infinity, -Infinity and NaN (a masked attention's -inf fill), which strict
// JSON parsers refuse.

#include <string>

namespace fxview {

// `text` with those tokens, outside strings, made the strings "Infinity", "-Infinity" and "NaN"
// (which ExportedProgram's realOf reads). Strings are copied whole (memchr finds their ends: a
// 25,000-node program's JSON is 29 MB, mostly strings); outside them JSON has no other I or N.
std::string withNonFiniteQuoted(const std::string& text);

} // namespace fxview
