#include "Wire.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

namespace fxview {

namespace {

constexpr char kMagic[4] = {'F', 'X', 'V', 'E'};

bool readAll(int fd, char* p, std::size_t n) {
    while (n > 0) {
        ssize_t got = ::read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        n -= static_cast<std::size_t>(got);
    }
    return true;
}

// Header fields: kind and length, after checking the magic and version.
std::uint32_t parseHeader(const char* header, std::uint16_t& kind) {
    if (std::memcmp(header, kMagic, 4) != 0)
        throw WireError("the engine sent something that is not an fxview engine message");
    std::uint16_t version;
    std::uint32_t length;
    std::memcpy(&version, header + 4, 2);
    std::memcpy(&kind, header + 6, 2);
    std::memcpy(&length, header + 8, 4);
    version = wireOrder(version);
    kind = wireOrder(kind);
    length = wireOrder(length);
    if (version != kWireVersion)
        throw WireError("the engine speaks wire version " + std::to_string(version) +
                        ", this fxview " + std::to_string(kWireVersion));
    if (length > kMaxFramePayload)
        throw WireError("the engine sent a message of " + std::to_string(length) + " bytes");
    return length;
}

} // namespace

std::string encodeFrame(std::uint16_t kind, const std::string& payload) {
    std::string frame(kFrameHeaderSize, '\0');
    std::memcpy(&frame[0], kMagic, 4);
    const std::uint16_t version = wireOrder(kWireVersion);
    kind = wireOrder(kind);
    const std::uint32_t length = wireOrder(static_cast<std::uint32_t>(payload.size()));
    std::memcpy(&frame[4], &version, 2);
    std::memcpy(&frame[6], &kind, 2);
    std::memcpy(&frame[8], &length, 4);
    frame += payload;
    return frame;
}

bool takeFrame(std::string& buffer, Frame& frame) {
    if (buffer.size() < kFrameHeaderSize)
        return false;
    std::uint32_t length = parseHeader(buffer.data(), frame.kind);
    if (buffer.size() < kFrameHeaderSize + length)
        return false;
    frame.payload.assign(buffer, kFrameHeaderSize, length);
    buffer.erase(0, kFrameHeaderSize + length);
    return true;
}

bool writeAll(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        ssize_t wrote = ::write(fd, p, n);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return false;
        p += wrote;
        n -= static_cast<std::size_t>(wrote);
    }
    return true;
}

bool skipPreamble(std::string& buffer, std::string& printed) {
    const std::size_t at = buffer.find(kFramesFollow);
    // Without the marker, its first bytes may be the last ones here: those wait for the next read.
    const std::size_t before =
        at != std::string::npos ? at
                                : buffer.size() - std::min(buffer.size(), kFramesFollow.size() - 1);
    printed.append(buffer, 0, before);
    buffer.erase(0, at != std::string::npos ? at + kFramesFollow.size() : before);
    if (printed.size() > kLargestPreamble)
        throw WireError("it printed more than " + std::to_string(kLargestPreamble >> 10) +
                        " KB and no fxview engine started");
    return at != std::string::npos;
}

bool writeFrame(int fd, std::uint16_t kind, const std::string& payload) {
    std::string frame = encodeFrame(kind, payload);
    return writeAll(fd, frame.data(), frame.size());
}

bool readFrame(int fd, Frame& frame) {
    char header[kFrameHeaderSize];
    if (!readAll(fd, header, sizeof header))
        return false;
    std::uint32_t length = parseHeader(header, frame.kind);
    frame.payload.resize(length);
    return readAll(fd, frame.payload.data(), length);
}

} // namespace fxview
