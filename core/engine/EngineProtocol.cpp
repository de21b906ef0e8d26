#include "EngineProtocol.h"

#include "Wire.h"

namespace fxview {

namespace {

template <typename F> std::string written(F&& f) {
    WireWriter w;
    f(w);
    return w.bytes();
}

template <typename F> void readWhole(const std::string& payload, F&& f) {
    WireReader r(payload);
    f(r);
    if (!r.atEnd())
        throw WireError("a message has bytes past its end");
}

void writeFrame(WireWriter& w, const FrameState& f) {
    w.str(f.node);
    w.str(f.moduleType);
    write(w, f.graph);
    w.str(f.graphText);
    write(w, f.records);
    w.str(f.last);
    w.str(f.next);
}

void readFrame(WireReader& r, FrameState& f) {
    f.node = r.str();
    f.moduleType = r.str();
    read(r, f.graph);
    f.graphText = r.str();
    read(r, f.records);
    f.last = r.str();
    f.next = r.str();
}

} // namespace

std::string encode(const EngineHello& m) {
    return written([&](WireWriter& w) {
        w.i64(m.pid);
        w.boolean(m.confined);
        w.str(m.confinement);
        w.str(m.tempDir);
        w.i64(m.memoryLimit);
    });
}

void decode(const std::string& payload, EngineHello& m) {
    readWhole(payload, [&](WireReader& r) {
        m.pid = r.i64();
        m.confined = r.boolean();
        m.confinement = r.str();
        m.tempDir = r.str();
        m.memoryLimit = r.i64();
    });
}

std::string encode(const OpenRequest& m) {
    return written([&](WireWriter& w) {
        w.str(m.source);
        write(w, m.inputs);
        w.i64(static_cast<std::int64_t>(m.seed));
        w.str(m.origin);
    });
}

void decode(const std::string& payload, OpenRequest& m) {
    readWhole(payload, [&](WireReader& r) {
        m.source = r.str();
        read(r, m.inputs);
        m.seed = static_cast<std::uint64_t>(r.i64());
        m.origin = r.str();
    });
}

std::string encode(const ProgressNote& m) {
    return written([&](WireWriter& w) {
        w.str(m.stage);
        w.i64(m.percent);
    });
}

void decode(const std::string& payload, ProgressNote& m) {
    readWhole(payload, [&](WireReader& r) {
        m.stage = r.str();
        m.percent = r.i64();
    });
}

std::string encode(const OpenedModel& m) {
    return written([&](WireWriter& w) {
        w.str(m.className);
        write(w, m.graph);
        w.str(m.graphText);
        w.str(m.json);
        write(w, m.inputs);
        w.i64(static_cast<std::int64_t>(m.seed));
        w.str(m.inputNote);
        w.str(m.inputError);
    });
}

void decode(const std::string& payload, OpenedModel& m) {
    readWhole(payload, [&](WireReader& r) {
        m.className = r.str();
        read(r, m.graph);
        m.graphText = r.str();
        m.json = r.str();
        read(r, m.inputs);
        m.seed = static_cast<std::uint64_t>(r.i64());
        m.inputNote = r.str();
        m.inputError = r.str();
    });
}

std::string encode(const InputsRequest& m) {
    return written([&](WireWriter& w) {
        write(w, m.inputs);
        w.i64(static_cast<std::int64_t>(m.seed));
    });
}

void decode(const std::string& payload, InputsRequest& m) {
    readWhole(payload, [&](WireReader& r) {
        read(r, m.inputs);
        m.seed = static_cast<std::uint64_t>(r.i64());
    });
}

std::string encode(const CommandRequest& m) {
    return written([&](WireWriter& w) {
        w.u8(static_cast<std::uint8_t>(m.command));
        w.str(m.node);
    });
}

void decode(const std::string& payload, CommandRequest& m) {
    readWhole(payload, [&](WireReader& r) {
        std::uint8_t command = r.u8();
        if (command > static_cast<std::uint8_t>(RunCommand::Reset))
            throw WireError("an unknown run command");
        m.command = static_cast<RunCommand>(command);
        m.node = r.str();
    });
}

std::string encode(const BreakpointRequest& m) {
    return written([&](WireWriter& w) {
        w.str(m.node);
        w.boolean(m.on);
    });
}

void decode(const std::string& payload, BreakpointRequest& m) {
    readWhole(payload, [&](WireReader& r) {
        m.node = r.str();
        m.on = r.boolean();
    });
}

std::string encode(const RunState& m) {
    return written([&](WireWriter& w) {
        write(w, m.records);
        w.strs(m.order);
        w.str(m.last);
        w.str(m.next);
        w.boolean(m.finished);
        w.boolean(m.failed);
        w.str(m.failure);
        write(w, m.outputCheck);
        w.i64(m.depth);
        w.str(m.json);
        w.boolean(m.steppedInto != nullptr);
        if (m.steppedInto)
            writeFrame(w, *m.steppedInto);
    });
}

void decode(const std::string& payload, RunState& m) {
    readWhole(payload, [&](WireReader& r) {
        read(r, m.records);
        m.order = r.strs();
        m.last = r.str();
        m.next = r.str();
        m.finished = r.boolean();
        m.failed = r.boolean();
        m.failure = r.str();
        read(r, m.outputCheck);
        m.depth = static_cast<int>(r.i64());
        m.json = r.str();
        m.steppedInto.reset();
        if (r.boolean()) {
            m.steppedInto = std::make_shared<FrameState>();
            readFrame(r, *m.steppedInto);
        }
    });
}

std::string encode(const PathState& m) {
    return written([&](WireWriter& w) {
        write(w, m.graph);
        write(w, m.records);
    });
}

void decode(const std::string& payload, PathState& m) {
    readWhole(payload, [&](WireReader& r) {
        read(r, m.graph);
        read(r, m.records);
    });
}

std::string encode(const std::string& sentence) {
    return written([&](WireWriter& w) { w.str(sentence); });
}

void decode(const std::string& payload, std::string& sentence) {
    readWhole(payload, [&](WireReader& r) { sentence = r.str(); });
}

} // namespace fxview
