#include "ProgramReading.h"

#include "Wire.h"

namespace fxview {

template <typename Io> void walk(Io& io, ProgramReading& m) {
    io(m.cacheKey);
    io(m.drawn);
    io(m.graph);
    io(m.why);
}

std::string encode(const ProgramReading& m) {
    WireWriter w;
    w(m);
    return w.bytes();
}

void decode(const std::string& payload, ProgramReading& m) {
    WireReader r(payload);
    r(m);
    if (!r.atEnd())
        throw WireError("a message has bytes past its end");
}

} // namespace fxview
