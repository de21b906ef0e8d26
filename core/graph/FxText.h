#pragma once
// Text views of a Graph that are byte-for-byte counterparts of torch.fx (PyTorch 2.6):
// print(gm.graph) and `for node in graph.nodes: print(node.op, node.name)`.

#include <string>

#include "Graph.h"

namespace fxview {

struct FxTextOptions {
    bool showHidden = false; // show raise-only guards and the scalar work feeding them
};

// torch.fx's Graph.__str__. Control-flow blocks, which torch.fx has no syntax for, are printed
// indented under their node as `block NAME(params):` ... `-> (results)`.
std::string formatGraph(const Graph& graph, const FxTextOptions& options = {});

// One "op name" line per node in order, then "Node count: N".
std::string formatNodeList(const Graph& graph, const FxTextOptions& options = {});

// torch.fx's _format_arg: %name for nodes, Python reprs for literals, (x,) for 1-tuples.
std::string formatArgument(const Argument& argument);

// A table as text, a line per row: each column padded to its widest cell, two spaces apart, no
// trailing spaces (fxtrace's run and compare tables).
std::string alignColumns(const std::vector<std::vector<std::string>>& rows);

// Python's repr() of a float: shortest round-trip digits, "1.0", "1e-05", "inf", "nan".
std::string pythonFloatRepr(double value);
// Python's repr of complex(real, imag): "(1+2j)", "(0.5-0.25j)", "2j" (a real part of +0.0 is
// left out), "(-0-1j)", "(nan+infj)".
std::string pythonComplexRepr(double real, double imag);

} // namespace fxview
