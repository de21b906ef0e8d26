#pragma once
// The engine process's wire format: length-prefixed frames, each a versioned header and a binary
// payload of plain data (no text parsing on either side, arrays such as histograms as raw
// numbers). Numbers travel little-endian whatever the two machines are (the window on one, an
// engine on another, reached over SSH); the header's version refuses a frame from another build
// instead of misreading it.
//
// Frame: magic "FXVE" (4 bytes), version (u16), kind (u16), payload length (u32), payload.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "Graph.h"
#include "InputSpec.h"
#include "OutputCheck.h"
#include "RunRecord.h"

namespace fxview {

constexpr std::uint16_t kWireVersion = 14;
constexpr std::size_t kFrameHeaderSize = 12;
// A frame bigger than this is a broken peer, not a message: a vit_b_16 graph is ~2 MB.
constexpr std::uint32_t kMaxFramePayload = 1u << 30;
// How deep values may nest (python/fxview/wire.py has the same bound).
constexpr int kMaxWireDepth = 256;

// Thrown by the reader on a payload that does not decode (cut short, absurd length).
struct WireError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A number in the wire's order (little-endian) from this machine's, and back: the same turn.
template <typename T> T wireOrder(T v) {
    if constexpr (std::endian::native == std::endian::big) {
        auto* bytes = reinterpret_cast<unsigned char*>(&v);
        std::reverse(bytes, bytes + sizeof v);
    }
    return v;
}

template <typename T> struct IsVector : std::false_type {};
template <typename T> struct IsVector<std::vector<T>> : std::true_type {};
template <typename T> struct IsStringMap : std::false_type {};
template <typename T> struct IsStringMap<std::unordered_map<std::string, T>> : std::true_type {};
template <typename T> struct IsShared : std::false_type {};
template <typename T> struct IsShared<std::shared_ptr<T>> : std::true_type {};

// `w(field)` writes a field of any type that crosses: numbers, strings, enums, vectors, maps by
// name, shared pointers (null or one), and plain-data structs through their `walk` (below), which
// lists each struct's fields once for the writer and the reader both: the two cannot disagree.
class WireWriter {
public:
    void u8(std::uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void u32(std::uint32_t v) { number(v); }
    void i64(std::int64_t v) { number(v); }
    void f64(double v) { number(v); }
    void str(const std::string& s) {
        u32(static_cast<std::uint32_t>(s.size()));
        bytes_.append(s);
    }
    template <typename T> void operator()(const T& v) {
        if constexpr (std::is_same_v<T, bool>) {
            boolean(v);
        } else if constexpr (std::is_enum_v<T>) {
            u8(static_cast<std::uint8_t>(v));
        } else if constexpr (std::is_integral_v<T>) {
            i64(static_cast<std::int64_t>(v));
        } else if constexpr (std::is_floating_point_v<T>) {
            f64(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
            str(v);
        } else if constexpr (IsVector<T>::value) {
            u32(static_cast<std::uint32_t>(v.size()));
            for (const auto& item : v)
                (*this)(item);
        } else if constexpr (IsStringMap<T>::value) {
            u32(static_cast<std::uint32_t>(v.size()));
            for (const auto& [key, item] : v) {
                str(key);
                (*this)(item);
            }
        } else if constexpr (IsShared<T>::value) {
            boolean(v != nullptr);
            if (v)
                (*this)(*v);
        } else {
            walk(*this, const_cast<T&>(v)); // a writer's walk only reads the fields
        }
    }
    const std::string& bytes() const { return bytes_; }

private:
    template <typename T> void number(T v) {
        v = wireOrder(v);
        bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    std::string bytes_;
};

// `r(field)` reads what `w(field)` wrote. A length is believed only as far as the bytes left
// could hold it, and items are made as they are read, so a lying peer costs no more memory
// than the bytes it sent.
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
    std::uint32_t u32() { return number<std::uint32_t>(); }
    std::int64_t i64() { return number<std::int64_t>(); }
    double f64() { return number<double>(); }
    std::string str() {
        std::uint32_t n = count(1);
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    template <typename T> void operator()(T& v) {
        // Arguments nest in arguments, nodes in blocks: a peer's nesting is bounded, not the
        // stack (a hostile frame of 100,000 nested lists overflowed it).
        struct Nesting {
            int& depth;
            explicit Nesting(int& d) : depth(d) {
                if (++depth > kMaxWireDepth)
                    throw WireError("a value is nested deeper than the protocol allows");
            }
            ~Nesting() { --depth; }
        } nesting(depth_);
        if constexpr (std::is_same_v<T, bool>) {
            v = boolean();
        } else if constexpr (std::is_enum_v<T>) {
            v = static_cast<T>(u8());
        } else if constexpr (std::is_integral_v<T>) {
            v = static_cast<T>(i64());
        } else if constexpr (std::is_floating_point_v<T>) {
            v = f64();
        } else if constexpr (std::is_same_v<T, std::string>) {
            v = str();
        } else if constexpr (IsVector<T>::value) {
            std::uint32_t n = count(1);
            v.clear();
            for (std::uint32_t i = 0; i < n; ++i)
                (*this)(v.emplace_back());
        } else if constexpr (IsStringMap<T>::value) {
            std::uint32_t n = count(5);
            v.clear();
            for (std::uint32_t i = 0; i < n; ++i) {
                std::string key = str();
                (*this)(v[key]);
            }
        } else if constexpr (IsShared<T>::value) {
            v.reset();
            if (boolean()) {
                v = std::make_shared<typename T::element_type>();
                (*this)(*v);
            }
        } else {
            walk(*this, v);
        }
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
    template <typename T> T number() {
        T v;
        raw(&v, sizeof v);
        return wireOrder(v);
    }
    const char* p_;
    const char* end_;
    int depth_ = 0;
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
// An engine reached through a login shell (fxview ssh://...) may come after what the shell printed
// first (a banner from .bashrc): the engine writes kFramesFollow before its first frame, and the
// window skips everything up to it. The NULs keep it out of any text a shell prints.
inline constexpr std::string_view kFramesFollow{"\0FXVIEW-FRAMES\0", 15};
// Past this much printed before kFramesFollow, no engine is coming.
constexpr std::size_t kLargestPreamble = 64 * 1024;
// Moves what precedes kFramesFollow at the front of `buffer` into `printed`, and drops the marker:
// true once it is gone, false while it may still come (a marker cut across two reads stays in
// `buffer`). Throws WireError once `printed` passes kLargestPreamble.
bool skipPreamble(std::string& buffer, std::string& printed);
// Blocking I/O on a file descriptor (the engine's side): false on end of file or error.
bool writeFrame(int fd, std::uint16_t kind, const std::string& payload);
bool writeAll(int fd, const char* bytes, std::size_t count); // bytes that are not a frame
bool readFrame(int fd, Frame& frame);

// The plain data that crosses, each struct's fields once: `io` is a WireWriter or a WireReader.
template <typename Io> void walk(Io& io, Argument& a) {
    io(a.kind);
    io(a.boolean);
    io(a.integer);
    io(a.real);
    io(a.text);
    io(a.items);
}
template <typename Io> void walk(Io& io, KeywordArgument& k) {
    io(k.name);
    io(k.value);
}
template <typename Io> void walk(Io& io, HeldTensor& t) {
    io(t.name);
    io(t.shape);
    io(t.dtype);
}
template <typename Io> void walk(Io& io, OutputRole& o) {
    io(o.kind);
    io(o.target);
}
template <typename Io> void walk(Io& io, Node& n);
template <typename Io> void walk(Io& io, Block& b) {
    io(b.label);
    io(b.params);
    io(b.nodes);
    io(b.results);
    io(b.subgraph);
}
template <typename Io> void walk(Io& io, Node& n) {
    io(n.op);
    io(n.name);
    io(n.target);
    io(n.schema);
    io(n.moduleType);
    io(n.typeName);
    io(n.args);
    io(n.kwargs);
    io(n.users);
    io(n.scope);
    io(n.scopeType);
    io(n.hidden);
    io(n.blocks);
    io(n.tensors);
    io(n.placeholderKind);
    io(n.sourceTrace);
    io(n.outputRoles);
    io(n.collapsedNodes);
    io(n.symbolicShape);
}
template <typename Io> void walk(Io& io, Graph& g) {
    io(g.modelClass);
    io(g.nodes);
}
template <typename Io> void walk(Io& io, ValueSummary& v) {
    io(v.type);
    io(v.shape);
    io(v.stride);
    io(v.dtype);
    io(v.device);
    io(v.numel);
    io(v.bytes);
    io(v.hasStats);
    io(v.min);
    io(v.max);
    io(v.mean);
    io(v.std);
    io(v.nanCount);
    io(v.infCount);
    io(v.histogram);
    io(v.histogramSample);
    io(v.hasDetail);
    io(v.qscheme);
    io(v.qaxis);
    io(v.scaleMin);
    io(v.scaleMax);
    io(v.zeroPointMin);
    io(v.zeroPointMax);
    io(v.intMin);
    io(v.intMax);
    io(v.items);
    io(v.value);
}
template <typename Io> void walk(Io& io, NodeRecord& r) {
    io(r.state);
    io(r.value);
    io(r.timeUs);
    io(r.runs);
    io(r.blockRuns);
    io(r.error);
    io(r.warning);
    io(r.newBytes);
    io(r.aliasKind);
    io(r.liveBytes);
    io(r.flops);
}
template <typename Io> void walk(Io& io, LiveValue& v) {
    io(v.node);
    io(v.bytes);
}
template <typename Io> void walk(Io& io, PeakLive& p) {
    io(p.node);
    io(p.bytes);
    io(p.values);
}
template <typename Io> void walk(Io& io, InputSpec& s) {
    io(s.shape);
    io(s.dtype);
    io(s.file);
    io(s.example);
}
template <typename Io> void walk(Io& io, OutputCheck& c) {
    io(c.verdict);
    io(c.message);
}

} // namespace fxview
