#include "PythonText.h"

namespace fxview {

namespace {

bool opener(char c) {
    return c == '(' || c == '[' || c == '{';
}

bool closer(char c) {
    return c == ')' || c == ']' || c == '}';
}

// Walks `text` from `from`, calling visit(i, depth, code) for each character but comments:
// `code` is false inside a string (its quotes included), `depth` the bracket depth before it.
// Stops when visit returns false.
template <typename Visit> void walkCode(const std::string& text, std::size_t from, Visit visit) {
    char quote = 0;
    int depth = 0;
    for (std::size_t i = from; i < text.size(); ++i) {
        char c = text[i];
        if (!quote && c == '#') { // a comment, to the end of its line
            while (i + 1 < text.size() && text[i + 1] != '\n')
                ++i;
            continue;
        }
        bool code = !quote && c != '\'' && c != '"';
        if (quote)
            quote = c == quote ? 0 : quote;
        else if (!code)
            quote = c;
        if (!visit(i, depth, code))
            return;
        if (code)
            depth += opener(c) ? 1 : closer(c) ? -1 : 0;
    }
}

} // namespace

std::string stripped(const std::string& s) {
    std::size_t begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::size_t bracketPartner(const std::string& text, std::size_t from, std::size_t at) {
    std::vector<std::size_t> opens;
    std::size_t found = std::string::npos;
    walkCode(text, from, [&](std::size_t i, int, bool code) {
        if (!code)
            return true;
        if (opener(text[i])) {
            opens.push_back(i);
        } else if (closer(text[i])) {
            if (opens.empty())
                return false;
            std::size_t open = opens.back();
            opens.pop_back();
            if (i == at || open == at) {
                found = i == at ? open : i;
                return false;
            }
        }
        return true;
    });
    return found;
}

std::vector<std::string> topLevelItems(const std::string& inside) {
    std::vector<std::string> items(1);
    walkCode(inside, 0, [&](std::size_t i, int depth, bool code) {
        if (code && inside[i] == ',' && depth == 0)
            items.emplace_back();
        else
            items.back() += inside[i];
        return true;
    });
    if (stripped(items.back()).empty())
        items.pop_back();
    return items;
}

} // namespace fxview
