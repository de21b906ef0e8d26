#pragma once
// What fxview-reader, the confined process that reads a model file for the window, answers: the
// window parses no model file in its own process (a hostile .pt2 crashed, hung or swelled it when
// it did), so it draws a .pt2 ahead of its engine, and finds the graph it kept of any archive,
// from this. One frame on the reader's stdout (kind kReadingFrame), its fields walked by Wire.h.
//
//   fxview-reader [--max-program BYTES] FILE

#include <cstddef>
#include <cstdint>
#include <string>

#include "Graph.h"

namespace fxview {

constexpr std::uint16_t kReadingFrame = 1;
// The largest answer the window reads (a graph of some 100,000 nodes): what a reader sends
// is held in the window's memory, which has no cap of its own.
constexpr std::size_t kLargestReading = std::size_t(128) << 20;

struct ProgramReading {
    // What an engine's graph of the file depends on inside it, for the window's graph cache:
    // every zip member's name, CRC-32 and size as the directory says, and, for a .pt2, a hash of
    // its program's JSON as read (a directory's claims are not the content). "" when the file is
    // not a zip archive.
    std::string cacheKey;
    bool drawn = false; // `graph` is the .pt2's program, walked with the build-time schemas
    Graph graph;
    // Why nothing was drawn (not a .pt2, a damaged one, an op the table lacks): the engine, which
    // reads the file again, says its own sentence to the person; this one is for the log.
    std::string why;
};

std::string encode(const ProgramReading& m);
// Throws WireError on a payload that does not decode whole.
void decode(const std::string& payload, ProgramReading& m);

} // namespace fxview
