#pragma once
// A generated graph the size of a big model, for the layout benchmark and its tests:
// x -> n0 -> n1 -> ... with every fourth node also adding the value from four nodes back (the
// shape of a residual network) and a module scope every 50 nodes.

#include <string>

#include "Graph.h"

namespace fxview {

inline Graph chainWithSkips(int count) {
    Graph g;
    Node x;
    x.op = Op::Placeholder;
    x.name = x.target = "x";
    g.nodes.push_back(x);
    for (int i = 0; i < count; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.scope = "stage" + std::to_string(i / 50);
        std::string previous = i == 0 ? "x" : "n" + std::to_string(i - 1);
        if (i % 4 == 3 && i >= 4) {
            n.op = Op::CallFunction;
            n.target = "operator.add";
            n.args = {Argument::ofNode(previous), Argument::ofNode("n" + std::to_string(i - 4))};
        } else {
            n.op = Op::CallModule;
            n.target = n.scope + ".conv" + std::to_string(i % 50);
            n.moduleType = "torch.nn.Conv2d";
            n.args = {Argument::ofNode(previous)};
        }
        g.nodes.push_back(n);
    }
    Node out;
    out.op = Op::Output;
    out.name = out.target = "output";
    out.args = {Argument::ofNode("n" + std::to_string(count - 1))};
    g.nodes.push_back(out);
    g.recomputeUsers();
    return g;
}

} // namespace fxview
