// fxview-reader: reads one model file for the window, so that the window itself parses none. The
// window draws a .pt2 while its engine starts, and finds the graph it kept of any archive opened
// before; reading a zip directory and a program's JSON is where a hostile file strikes (deep
// nesting, lying directories, quadratic work, gigabytes made of a megabyte), so that reading
// happens here, confined as the engine is (no writes anywhere, no network, a memory and a CPU
// cap) and killed by the window when it overruns its time. Any bug a file finds costs the
// window a picture drawn later, never itself. It answers with one frame on stdout
// (core/protocol/ProgramReading.h) and exits; the file's own sentences stay the engine's to say.
// With --schemas it first reads a schema table on stdin (a Python engine's, of its own PyTorch's
// operators) and walks the program with it before the built-in one. With --program MEMBER there
// is no file here (its engine runs on another machine): stdin holds the schema table's length
// (8 bytes, little-endian), the table, then the program's JSON member as the engine sent it,
// zlib-compressed; it is inflated here, confined, to at most --max-program bytes.
//
//   fxview-reader [--max-program BYTES] [--memory-limit SIZE] [--unconfined] [--schemas] FILE
//   fxview-reader [--max-program BYTES] [--memory-limit SIZE] [--unconfined] --program MEMBER

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

#include "BuiltInOperatorSchemas.h"
#include "Confinement.h"
#include "ExportedArchive.h"
#include "ProgramReading.h"
#include "Wire.h"
#include "ZipArchive.h"

namespace {

// The largest program drawn ahead: past it (some 60,000 nodes) the engine draws it. Reading
// takes about 15 times the JSON, within the memory cap below.
constexpr std::uint64_t kLargestProgram = std::uint64_t(64) << 20;
// What the reader may use: reading the largest program takes about 1 GB.
constexpr std::int64_t kMemoryLimit = std::int64_t(3) << 30;
// CPU seconds: the 26,893-node program is read and walked in about 1.5 s. The window's own
// time limit (ReaderProcess) is the one a person meets; this one ends a reader the window forgot.
constexpr rlim_t kCpuSeconds = 30;
// An engine's schema table: all of a PyTorch's ~4,300 operators take 230 KB.
constexpr std::size_t kLargestSchemaTable = std::size_t(16) << 20;

// FNV-1a over 8-byte words, a stored member's bytes read a megabyte at a time.
class ContentHash {
public:
    void add(const unsigned char* p, std::size_t n) {
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, p + i, 8);
            h_ = (h_ ^ word) * kPrime;
            h_ ^= h_ >> 29;
        }
        for (; i < n; ++i)
            h_ = (h_ ^ p[i]) * kPrime;
    }
    std::uint64_t value() const { return h_; }

private:
    static constexpr std::uint64_t kPrime = 0x100000001b3ull;
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// The directory's claims for every member, and for each JSON member (a .pt2's programs and
// configs, never its weights) a hash of the bytes it really holds: a file rewritten with the
// same directory, or a directory that lies about its CRCs, gets another key.
std::string cacheKeyOf(fxview::ZipArchive& zip) {
    std::string key;
    for (const fxview::ZipArchive::Entry& e : zip.entries()) {
        key += e.name + "\n" + std::to_string(e.crc32) + "\n" + std::to_string(e.uncompressedSize) +
               "\n";
        if (!e.name.ends_with(".json") || e.compressedSize > fxview::kLargestProgramJson)
            continue;
        std::optional<std::uint64_t> start = zip.dataOffset(e);
        if (!start)
            continue;
        ContentHash hash;
        std::vector<unsigned char> chunk;
        for (std::uint64_t done = 0; done < e.compressedSize;) {
            const std::uint64_t n = std::min<std::uint64_t>(1 << 20, e.compressedSize - done);
            if (!zip.readRange(*start + done, n, chunk))
                break;
            hash.add(chunk.data(), chunk.size());
            done += n;
        }
        key += "content " + std::to_string(hash.value()) + "\n";
    }
    return key;
}

// Appends stdin to `into` up to `limit` bytes; with `exact`, false when stdin ends before.
bool readStdin(std::string& into, std::size_t limit, bool exact) {
    char chunk[65536];
    for (std::size_t got;
         into.size() < limit &&
         (got = std::fread(chunk, 1, std::min(sizeof chunk, limit - into.size()), stdin)) > 0;)
        into.append(chunk, got);
    return !exact || into.size() == limit;
}

// The schema table on stdin, at most kLargestSchemaTable bytes (more is cut off: its last lines
// are then missing, and the walk says which operator it lacks).
std::string readSchemas() {
    std::string table;
    readStdin(table, kLargestSchemaTable, false);
    return table;
}

// The program a remote engine sent: its schema table and its JSON, inflated to at most
// `maxProgram` bytes. `why` says what is wrong when it returns false.
bool readSentProgram(std::uint64_t maxProgram, std::string& schemas, std::string& json,
                     std::string& why) {
    std::string length;
    if (!readStdin(length, 8, true)) {
        why = "the engine's program ended before its schema table";
        return false;
    }
    std::uint64_t tableSize = 0;
    for (int i = 7; i >= 0; --i)
        tableSize =
            tableSize << 8 | static_cast<unsigned char>(length[static_cast<std::size_t>(i)]);
    if (tableSize > kLargestSchemaTable || !readStdin(schemas, tableSize, true)) {
        why = "the engine's schema table is cut short or past 16 MB";
        return false;
    }
    z_stream z{};
    if (inflateInit(&z) != Z_OK) {
        why = "zlib could not start";
        return false;
    }
    unsigned char in[65536];
    std::vector<unsigned char> out(1 << 20);
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        const std::size_t got = std::fread(in, 1, sizeof in, stdin);
        if (got == 0)
            break;
        z.next_in = in;
        z.avail_in = static_cast<uInt>(got);
        while (z.avail_in > 0 && status != Z_STREAM_END) {
            z.next_out = out.data();
            z.avail_out = static_cast<uInt>(out.size());
            status = inflate(&z, Z_NO_FLUSH);
            if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
                inflateEnd(&z);
                why = "the engine's program does not inflate (zlib: " +
                      std::string(z.msg ? z.msg : "a damaged stream") + ")";
                return false;
            }
            json.append(reinterpret_cast<const char*>(out.data()), out.size() - z.avail_out);
            if (json.size() > maxProgram) {
                inflateEnd(&z);
                why = "the engine's program inflates past " + std::to_string(maxProgram >> 20) +
                      " MB, more than fxview draws ahead";
                return false;
            }
        }
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        why = "the engine's program is cut short";
        return false;
    }
    return true;
}

// `reading`'s graph walked from `program` with `schemas` before the built-in table, or why not.
void walk(fxview::ProgramReading& reading, const fxview::ExportedProgram& program,
          const std::string& schemas) {
    std::vector<std::string> unknown;
    fxview::Graph graph = fxview::walkedWithSchemas(program, schemas, unknown);
    if (!unknown.empty()) {
        reading.why = "it calls " + unknown.front() + ", which the schema table lacks";
        return;
    }
    reading.graph = std::move(graph);
    reading.drawn = true;
}

// The program a remote engine sent, walked: no file, so no cache key.
fxview::ProgramReading readSent(const std::string& member, std::uint64_t maxProgram) {
    fxview::ProgramReading reading;
    std::string schemas, json;
    if (!readSentProgram(maxProgram, schemas, json, reading.why))
        return reading;
    try {
        walk(reading, fxview::parseExportedProgram(json, member), schemas);
    } catch (const std::exception& e) {
        reading.why = e.what();
    }
    return reading;
}

fxview::ProgramReading readAhead(const std::string& path, std::uint64_t maxProgram,
                                 const std::string& schemas) {
    fxview::ProgramReading reading;
    fxview::ZipArchive zip;
    if (std::string why; !zip.open(path, why)) {
        reading.why = "its zip directory does not read: " + why;
        return reading;
    }
    reading.cacheKey = cacheKeyOf(zip);
    try {
        walk(reading, fxview::readExportedArchive(zip, {}, maxProgram).program, schemas);
    } catch (const std::exception& e) {
        reading.why = e.what(); // a TorchScript archive, or a .pt2 the engine will refuse
    }
    return reading;
}

} // namespace

int main(int argc, char** argv) {
    // The window gone (even killed) ends its reader.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 0;
    std::uint64_t maxProgram = kLargestProgram;
    std::int64_t memoryLimit = std::min(kMemoryLimit, fxview::defaultMemoryLimit());
    bool confine = true;
    bool schemasGiven = false;
    std::string path, sentMember;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-program") && i + 1 < argc)
            maxProgram = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--memory-limit") && i + 1 < argc)
            memoryLimit = fxview::parseMemorySize(argv[++i]);
        else if (!std::strcmp(argv[i], "--unconfined"))
            confine = false;
        else if (!std::strcmp(argv[i], "--schemas"))
            schemasGiven = true;
        else if (!std::strcmp(argv[i], "--program") && i + 1 < argc)
            sentMember = argv[++i];
        else if (path.empty() && argv[i][0] != '-')
            path = argv[i];
        else
            path.clear(), i = argc;
    }
    if (path.empty() == sentMember.empty()) {
        std::fprintf(stderr, "usage: fxview-reader [--max-program BYTES] [--memory-limit SIZE] "
                             "[--unconfined] [--schemas] FILE | --program MEMBER\n");
        return 2;
    }
    // Only the answer goes to stdout: anything a library prints goes to stderr.
    int channel = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    std::signal(SIGPIPE, SIG_IGN);
    if (confine) {
        rlimit cpu{kCpuSeconds, kCpuSeconds};
        setrlimit(RLIMIT_CPU, &cpu);
        const fxview::Confinement c = fxview::confineProcess("", memoryLimit);
        if (!c.landlocked)
            std::fprintf(stderr, "fxview-reader: %s\n", c.summary.c_str());
    }
    fxview::ProgramReading reading;
    if (!sentMember.empty())
        reading = readSent(sentMember, maxProgram);
    else
        reading = readAhead(path, maxProgram, schemasGiven ? readSchemas() : std::string());
    std::string answer = fxview::encode(reading);
    if (answer.size() > fxview::kLargestReading) { // the window would not take it
        reading.drawn = false;
        reading.graph = {};
        reading.why = "its graph encodes to " + std::to_string(answer.size() >> 20) +
                      " MB, past what the window takes from a reader";
        answer = fxview::encode(reading);
    }
    return fxview::writeFrame(channel, fxview::kReadingFrame, answer) ? 0 : 1;
}
