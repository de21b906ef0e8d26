#pragma once
// For tests that build small fx graphs by hand (plain data, no LibTorch): a node in a module
// scope taking the named nodes as its args.

#include <string>
#include <vector>

#include "Graph.h"

inline fxview::Node scopedNode(fxview::Op op, const std::string& name, const std::string& scope,
                               std::vector<std::string> inputs = {}) {
    fxview::Node n;
    n.op = op;
    n.name = name;
    n.target = op == fxview::Op::CallModule ? scope + "." + name : "operator.add";
    n.scope = scope;
    for (const std::string& input : inputs)
        n.args.push_back(fxview::Argument::ofNode(input));
    return n;
}
