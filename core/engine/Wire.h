#pragma once
// The engine process's wire format: length-prefixed frames, each a versioned header and a binary
// payload of plain data (no text parsing on either side, arrays such as histograms as raw
// numbers). Both ends are the same build, so numbers travel in this machine's byte order; the
// header's version refuses a frame from another build instead of misreading it.
//
// Frame: magic "FXVE" (4 bytes), version (u16), kind (u16), payload length (u32), payload.

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "Graph.h"
#include "InputSpec.h"
#include "OutputCheck.h"
#include "RunRecord.h"

namespace fxview {

constexpr std::uint16_t kWireVersion = 2;
constexpr std::size_t kFrameHeaderSize = 12;
// A frame bigger than this is a broken peer, not a message: a vit_b_16 graph is ~2 MB.
constexpr std::uint32_t kMaxFramePayload = 1u << 30;

// Thrown by the reader on a payload that does not decode (cut short, absurd length).
struct WireError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class WireWriter {
public:
    void u8(std::uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void u32(std::uint32_t v) { raw(&v, sizeof v); }
    void i64(std::int64_t v) { raw(&v, sizeof v); }
    void f64(double v) { raw(&v, sizeof v); }
    void str(const std::string& s) {
        u32(static_cast<std::uint32_t>(s.size()));
        bytes_.append(s);
    }
    void i64s(const std::vector<std::int64_t>& v) {
        u32(static_cast<std::uint32_t>(v.size()));
        raw(v.data(), v.size() * sizeof(std::int64_t));
    }
    void strs(const std::vector<std::string>& v) {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const std::string& s : v)
            str(s);
    }
    const std::string& bytes() const { return bytes_; }

private:
    void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
    std::string bytes_;
};

class WireReader {
public:
    explicit WireReader(const std::string& payload)
        : p_(payload.data()), end_(p_ + payload.size()) {}
    std::uint8_t u8() {
        std::uint8_t v;
        raw(&v, 1);
        return v;
    }
    bool boolean() { return u8() != 0; }
    std::uint32_t u32() {
        std::uint32_t v;
        raw(&v, sizeof v);
        return v;
    }
    std::int64_t i64() {
        std::int64_t v;
        raw(&v, sizeof v);
        return v;
    }
    double f64() {
        double v;
        raw(&v, sizeof v);
        return v;
    }
    std::string str() {
        std::uint32_t n = count(1);
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    std::vector<std::int64_t> i64s() {
        std::vector<std::int64_t> v(count(sizeof(std::int64_t)));
        raw(v.data(), v.size() * sizeof(std::int64_t));
        return v;
    }
    std::vector<std::string> strs() {
        std::vector<std::string> v(count(4));
        for (std::string& s : v)
            s = str();
        return v;
    }
    // A length that the rest of the payload could hold, at `minSize` bytes per item.
    std::uint32_t count(std::size_t minSize) {
        std::uint32_t n = u32();
        if (static_cast<std::size_t>(end_ - p_) < n * minSize)
            throw WireError("a length runs past the end of the message");
        return n;
    }
    bool atEnd() const { return p_ == end_; }

private:
    void raw(void* out, std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n)
            throw WireError("the message is cut short");
        std::memcpy(out, p_, n);
        p_ += n;
    }
    const char* p_;
    const char* end_;
};

// One frame off the wire.
struct Frame {
    std::uint16_t kind = 0;
    std::string payload;
};

std::string encodeFrame(std::uint16_t kind, const std::string& payload);
// Takes whole frames off the front of `buffer` (bytes as they arrived). Throws WireError on a
// header that is not ours or from another version.
bool takeFrame(std::string& buffer, Frame& frame);
// Blocking I/O on a file descriptor (the engine's side): false on end of file or error.
bool writeFrame(int fd, std::uint16_t kind, const std::string& payload);
bool readFrame(int fd, Frame& frame);

// The plain data that crosses: each pair writes and reads the whole struct.
void write(WireWriter& w, const ValueSummary& v);
void read(WireReader& r, ValueSummary& v);
void write(WireWriter& w, const NodeRecord& v);
void read(WireReader& r, NodeRecord& v);
void write(WireWriter& w, const Graph& v);
void read(WireReader& r, Graph& v);
void write(WireWriter& w, const InputSpec& v);
void read(WireReader& r, InputSpec& v);
void write(WireWriter& w, const OutputCheck& v);
void read(WireReader& r, OutputCheck& v);

template <typename T> void write(WireWriter& w, const std::vector<T>& items) {
    w.u32(static_cast<std::uint32_t>(items.size()));
    for (const T& item : items)
        write(w, item);
}
template <typename T> void read(WireReader& r, std::vector<T>& items) {
    items.resize(r.count(1));
    for (T& item : items)
        read(r, item);
}
template <typename T> void write(WireWriter& w, const std::unordered_map<std::string, T>& items) {
    w.u32(static_cast<std::uint32_t>(items.size()));
    for (const auto& [key, item] : items) {
        w.str(key);
        write(w, item);
    }
}
template <typename T> void read(WireReader& r, std::unordered_map<std::string, T>& items) {
    std::uint32_t n = r.count(5);
    items.clear();
    items.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string key = r.str();
        read(r, items[key]);
    }
}

} // namespace fxview
