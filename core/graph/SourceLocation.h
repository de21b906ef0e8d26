#pragma once
// Where in the model's code a node was made, read from the Python traceback text a node keeps
// (`Node::sourceTrace`): a .pt2's stack_trace as torch.export wrote it, or the frames the
// TorchScript tracer writes in the same shape. Plain C++, no torch.

#include <optional>
#include <string>
#include <vector>

namespace fxview {

struct SourceLocation {
    std::string file;     // as the traceback names it: "/tmp/m.py"
    int line = 0;         // 1-based
    std::string function; // "forward"
    std::string text;     // the line itself, stripped: "x = self.fc(x)"; "" if not kept
};

// Every frame of a traceback, outermost first as Python prints them:
//   File "/tmp/m.py", line 12, in forward
//     x = self.fc(x)
// Caret lines (`~~~^^^`) and anything that is not a frame are skipped.
std::vector<SourceLocation> tracebackFrames(const std::string& trace);

// The frames of the model's own code, innermost first as a debugger's call stack lists them:
// those in PyTorch's own files (a path through a `torch` package directory,
// `.../torch/nn/modules/linear.py`) left out, unless all are: then the innermost alone (the
// code inside a torch.nn module is PyTorch's). Empty for a trace without frames.
std::vector<SourceLocation> modelFrames(const std::string& trace);

// The line of the model's code that made the node: modelFrames' first; nullopt if none.
std::optional<SourceLocation> innermostFrame(const std::string& trace);

// Whether `file` is one of PyTorch's own (`.../site-packages/torch/fx/proxy.py`).
bool isTorchInternalFile(const std::string& file);

// One frame as Python's traceback.format_list writes it, ending in a newline.
std::string tracebackFrame(const SourceLocation& frame);

} // namespace fxview
