#pragma once
// Core-internal: reading Python source text the way its own tokenizer groups it, as far as the
// tracer needs (the model's code kept in a scripted archive): brackets paired and commas split
// at the top level, with strings and comments skipped. Plain strings, no LibTorch.

#include <cstddef>
#include <string>
#include <vector>

namespace fxview {

// `s` without leading and trailing whitespace.
std::string stripped(const std::string& s);

// The bracket paired with the one at `at` (an opener's closer, a closer's opener), scanning
// forward from `from`; std::string::npos when it has none.
std::size_t bracketPartner(const std::string& text, std::size_t from, std::size_t at);

// What is between a pair of brackets, split at its top-level commas; a trailing comma makes
// no empty item (`f(a, b,)`), and `f()` has none.
std::vector<std::string> topLevelItems(const std::string& inside);

} // namespace fxview
