#include "SourceLocation.h"

#include <sstream>

namespace fxview {

namespace {

std::string stripped(const std::string& s) {
    const char* space = " \t\r\n";
    std::size_t begin = s.find_first_not_of(space);
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(space) - begin + 1);
}

// `File "PATH", line N, in FUNC` (leading spaces already gone).
std::optional<SourceLocation> frameHeader(const std::string& line) {
    const std::string open = "File \"", middle = "\", line ", in = ", in ";
    if (line.rfind(open, 0) != 0)
        return std::nullopt;
    std::size_t quote = line.rfind(middle);
    if (quote == std::string::npos || quote < open.size())
        return std::nullopt;
    std::size_t digits = quote + middle.size(), end = digits;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9')
        ++end;
    if (end == digits || end - digits > 9)
        return std::nullopt;
    SourceLocation frame;
    frame.file = line.substr(open.size(), quote - open.size());
    frame.line = std::stoi(line.substr(digits, end - digits));
    if (line.compare(end, in.size(), in) == 0)
        frame.function = line.substr(end + in.size());
    else if (end != line.size())
        return std::nullopt;
    return frame;
}

// Python 3.11+ marks the failing part of a line with `~~~^^^` under it.
bool isCaretLine(const std::string& text) {
    return text.find_first_not_of("~^") == std::string::npos;
}

} // namespace

std::vector<SourceLocation> tracebackFrames(const std::string& trace) {
    std::vector<SourceLocation> frames;
    bool expectText = false; // the line after a header is its source, if any
    std::istringstream in(trace);
    for (std::string raw; std::getline(in, raw);) {
        std::string line = stripped(raw);
        if (auto header = frameHeader(line)) {
            frames.push_back(std::move(*header));
            expectText = true;
            continue;
        }
        if (expectText && !line.empty() && !isCaretLine(line))
            frames.back().text = line;
        expectText = false;
    }
    return frames;
}

bool isTorchInternalFile(const std::string& file) {
    std::string path = file;
    for (char& c : path)
        c = c == '\\' ? '/' : c;
    return path.rfind("torch/", 0) == 0 || path.find("/torch/") != std::string::npos;
}

std::vector<SourceLocation> modelFrames(const std::string& trace) {
    std::vector<SourceLocation> frames = tracebackFrames(trace), own;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it)
        if (!isTorchInternalFile(it->file))
            own.push_back(*it);
    if (own.empty() && !frames.empty())
        own.push_back(frames.back());
    return own;
}

std::optional<SourceLocation> innermostFrame(const std::string& trace) {
    std::vector<SourceLocation> own = modelFrames(trace);
    if (own.empty())
        return std::nullopt;
    return own.front();
}

std::string tracebackFrame(const SourceLocation& frame) {
    std::string text = "  File \"" + frame.file + "\", line " + std::to_string(frame.line) +
                       ", in " + frame.function + "\n";
    if (!frame.text.empty())
        text += "    " + frame.text + "\n";
    return text;
}

} // namespace fxview
