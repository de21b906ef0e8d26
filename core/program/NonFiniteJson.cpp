#include "NonFiniteJson.h"

#include <cstring>

namespace fxview {

namespace {

// Where the string opening at `open` (a quote) ends: one past its closing quote, a quote after
// an even number of backslashes; the text's end when it has none.
std::size_t stringEnd(const std::string& text, std::size_t open) {
    const char* begin = text.data();
    const char* end = begin + text.size();
    const char* p = begin + open + 1;
    while (p < end) {
        const char* quote = static_cast<const char*>(std::memchr(p, '"', end - p));
        if (!quote)
            return text.size();
        std::size_t backslashes = 0;
        while (quote - backslashes > p &&
               quote[-1 - static_cast<std::ptrdiff_t>(backslashes)] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return static_cast<std::size_t>(quote - begin) + 1;
        p = quote + 1;
    }
    return text.size();
}

} // namespace

std::string withNonFiniteQuoted(const std::string& text) {
    std::string out;
    out.reserve(text.size() + 64);
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            const std::size_t after = stringEnd(text, i);
            out.append(text, i, after - i);
            i = after;
            continue;
        }
        const char* token = c == 'I' ? "Infinity" : c == 'N' ? "NaN" : nullptr;
        const std::size_t n = token ? std::strlen(token) : 0;
        if (!token || text.compare(i, n, token) != 0) { // else not JSON: the parser says so
            out += c;
            ++i;
            continue;
        }
        const bool negative = c == 'I' && !out.empty() && out.back() == '-';
        if (negative)
            out.pop_back();
        out += negative ? "\"-" : "\"";
        out += token;
        out += '"';
        i += n;
    }
    return out;
}

} // namespace fxview
