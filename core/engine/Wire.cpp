#include "Wire.h"

#include <cerrno>
#include <unistd.h>

namespace fxview {

namespace {

constexpr char kMagic[4] = {'F', 'X', 'V', 'E'};

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
    if (version != kWireVersion)
        throw WireError("the engine speaks wire version " + std::to_string(version) +
                        ", this fxview " + std::to_string(kWireVersion));
    if (length > kMaxFramePayload)
        throw WireError("the engine sent a message of " + std::to_string(length) + " bytes");
    return length;
}

} // namespace

// The parts of a Graph: in fxview's namespace (not an anonymous one) so that the vector
// templates of Wire.h find them by argument-dependent lookup.
void write(WireWriter& w, const Argument& a) {
    w.u8(static_cast<std::uint8_t>(a.kind));
    w.boolean(a.boolean);
    w.i64(a.integer);
    w.f64(a.real);
    w.str(a.text);
    write(w, a.items);
}

void read(WireReader& r, Argument& a) {
    a.kind = static_cast<Argument::Kind>(r.u8());
    a.boolean = r.boolean();
    a.integer = r.i64();
    a.real = r.f64();
    a.text = r.str();
    read(r, a.items);
}

void write(WireWriter& w, const KeywordArgument& k) {
    w.str(k.name);
    write(w, k.value);
}

void read(WireReader& r, KeywordArgument& k) {
    k.name = r.str();
    read(r, k.value);
}

void write(WireWriter& w, const HeldTensor& t) {
    w.str(t.name);
    w.i64s(t.shape);
    w.str(t.dtype);
}

void read(WireReader& r, HeldTensor& t) {
    t.name = r.str();
    t.shape = r.i64s();
    t.dtype = r.str();
}

void write(WireWriter& w, const OutputRole& o) {
    w.str(o.kind);
    w.str(o.target);
}

void read(WireReader& r, OutputRole& o) {
    o.kind = r.str();
    o.target = r.str();
}

void write(WireWriter& w, const Node& n);
void read(WireReader& r, Node& n);

void write(WireWriter& w, const Block& b) {
    w.str(b.label);
    w.strs(b.params);
    write(w, b.nodes);
    write(w, b.results);
    w.boolean(b.subgraph);
}

void read(WireReader& r, Block& b) {
    b.label = r.str();
    b.params = r.strs();
    read(r, b.nodes);
    read(r, b.results);
    b.subgraph = r.boolean();
}

void write(WireWriter& w, const Node& n) {
    w.u8(static_cast<std::uint8_t>(n.op));
    w.str(n.name);
    w.str(n.target);
    w.str(n.schema);
    w.str(n.moduleType);
    write(w, n.args);
    write(w, n.kwargs);
    w.strs(n.users);
    w.str(n.scope);
    w.str(n.scopeType);
    w.boolean(n.hidden);
    write(w, n.blocks);
    write(w, n.tensors);
    w.u8(static_cast<std::uint8_t>(n.placeholderKind));
    w.str(n.sourceTrace);
    write(w, n.outputRoles);
    w.i64(n.collapsedNodes);
}

void read(WireReader& r, Node& n) {
    n.op = static_cast<Op>(r.u8());
    n.name = r.str();
    n.target = r.str();
    n.schema = r.str();
    n.moduleType = r.str();
    read(r, n.args);
    read(r, n.kwargs);
    n.users = r.strs();
    n.scope = r.str();
    n.scopeType = r.str();
    n.hidden = r.boolean();
    read(r, n.blocks);
    read(r, n.tensors);
    n.placeholderKind = static_cast<PlaceholderKind>(r.u8());
    n.sourceTrace = r.str();
    read(r, n.outputRoles);
    n.collapsedNodes = static_cast<int>(r.i64());
}

std::string encodeFrame(std::uint16_t kind, const std::string& payload) {
    std::string frame(kFrameHeaderSize, '\0');
    std::memcpy(&frame[0], kMagic, 4);
    std::memcpy(&frame[4], &kWireVersion, 2);
    std::memcpy(&frame[6], &kind, 2);
    auto length = static_cast<std::uint32_t>(payload.size());
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

void write(WireWriter& w, const ValueSummary& v) {
    w.str(v.type);
    w.i64s(v.shape);
    w.i64s(v.stride);
    w.str(v.dtype);
    w.str(v.device);
    w.i64(v.numel);
    w.i64(v.bytes);
    w.boolean(v.hasStats);
    w.f64(v.min);
    w.f64(v.max);
    w.f64(v.mean);
    w.f64(v.std);
    w.i64(v.nanCount);
    w.i64(v.infCount);
    w.i64s(v.histogram);
    w.i64(v.histogramSample);
    write(w, v.items);
    w.str(v.value);
}

void read(WireReader& r, ValueSummary& v) {
    v.type = r.str();
    v.shape = r.i64s();
    v.stride = r.i64s();
    v.dtype = r.str();
    v.device = r.str();
    v.numel = r.i64();
    v.bytes = r.i64();
    v.hasStats = r.boolean();
    v.min = r.f64();
    v.max = r.f64();
    v.mean = r.f64();
    v.std = r.f64();
    v.nanCount = r.i64();
    v.infCount = r.i64();
    v.histogram = r.i64s();
    v.histogramSample = r.i64();
    read(r, v.items);
    v.value = r.str();
}

void write(WireWriter& w, const NodeRecord& v) {
    w.u8(static_cast<std::uint8_t>(v.state));
    write(w, v.value);
    w.f64(v.timeUs);
    w.i64(v.runs);
    w.i64s({v.blockRuns.begin(), v.blockRuns.end()});
    w.str(v.error);
    w.str(v.warning);
}

void read(WireReader& r, NodeRecord& v) {
    v.state = static_cast<NodeState>(r.u8());
    read(r, v.value);
    v.timeUs = r.f64();
    v.runs = static_cast<int>(r.i64());
    std::vector<std::int64_t> runs = r.i64s();
    v.blockRuns.assign(runs.begin(), runs.end());
    v.error = r.str();
    v.warning = r.str();
}

void write(WireWriter& w, const Graph& v) {
    w.str(v.modelClass);
    write(w, v.nodes);
}

void read(WireReader& r, Graph& v) {
    v.modelClass = r.str();
    read(r, v.nodes);
}

void write(WireWriter& w, const InputSpec& v) {
    w.i64s(v.shape);
    w.str(v.dtype);
    w.str(v.file);
    w.boolean(v.example);
}

void read(WireReader& r, InputSpec& v) {
    v.shape = r.i64s();
    v.dtype = r.str();
    v.file = r.str();
    v.example = r.boolean();
}

void write(WireWriter& w, const OutputCheck& v) {
    w.u8(static_cast<std::uint8_t>(v.verdict));
    w.str(v.message);
}

void read(WireReader& r, OutputCheck& v) {
    v.verdict = static_cast<OutputCheck::Verdict>(r.u8());
    v.message = r.str();
}

} // namespace fxview
