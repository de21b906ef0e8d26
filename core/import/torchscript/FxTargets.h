#pragma once
// How torch.fx would name the call behind a TorchScript operator: `x + y` compiles to aten::add
// but torch.fx records operator.add; torch.flatten stays torch.flatten; x.view(...) is a method.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "Graph.h"

namespace fxview {

struct FxCall {
    Op op = Op::CallFunction;
    std::string target;    // "operator.add", "torch.flatten", "view"
    std::string candidate; // the node name torch.fx would start from: "add", "flatten", "view"
};

// How the model's source spelled a call: `x.mean(1)` (a Tensor method, torch.fx's call_method)
// or `torch.mean(x, 1)` (call_function); Unknown when the text says neither (`x + y`, code
// without source, a call whose name is not the op's).
// Functional: an op reached through the torch.nn.functional function of its name (traced
// `F.layer_norm(...)` is aten::layer_norm, `F.relu(x, inplace=True)` aten::relu_), which
// torch.fx records as the F call.
enum class Spelling { Unknown, Method, Function, Functional };

// The spelling of the op `name` in `callText`, the source range TorchScript kept for its node
// ("self.pool(x).flatten(1)" -> Method; "torch.flatten(x, 1)", "F.relu(x)" -> Function).
Spelling spellingOf(const std::string& callText, const std::string& name);

// The same from a whole line of source (what a traced archive keeps: file and line only): every
// call of `name` on the line must agree, else Unknown. An in-place `name` (relu_) not called on
// the line but whose base is called as F.relu(...) there is Functional.
Spelling spellingInLine(const std::string& line, const std::string& name);

// `ns` and `name` split a TorchScript symbol: ("aten", "add_") for aten::add_.
// `operatorForm` is false when the call can't come from a Python operator (aten::add with an
// alpha other than 1 must have been torch.add). `spelling`, when known, decides method against
// function the way the source did.
FxCall fxCallFor(const std::string& ns, const std::string& name, bool operatorForm = true,
                 Spelling spelling = Spelling::Unknown);

// The torch.nn.functional function a scripted `prim::CallFunction` stands for, from its
// qualified name ("__torch__.torch.nn.functional.relu"), or "" if it is not one.
std::string functionalName(const std::string& qualifiedName);

// The aliases TorchScript's NormalizeOps pass renames to `op` (transpose: swapaxes, swapdims),
// in-place forms included; none for most ops.
const std::vector<std::string>& aliasesOf(const std::string& op);

// torch.fx's target for a scripted function its library wraps with torch.fx.wrap, so that
// symbolic_trace records one call_function for it ("__torch__.torchvision.ops.stochastic_depth.
// stochastic_depth" -> "torchvision.ops.stochastic_depth.stochastic_depth"), or "".
std::string fxWrappedFunction(const std::string& qualifiedName);

// How a torch.nn.functional function hands itself to __torch_function__, which is the call
// torch.fx records: `handle_torch_function(interpolate, (input,), input, size=size, ...)` is
// args (input,) and every keyword, defaults included. By the name of the function's `def`
// (`_max_pool2d` for F.max_pool2d); FunctionalCalls.cpp, generated from PyTorch's source.
struct FunctionalCall {
    std::vector<std::string> positional;                       // parameter names
    std::vector<std::pair<std::string, std::string>> keywords; // keyword -> parameter name
    // Defaults as Python has them (`padding=0` where TorchScript's schema holds [0, 0]): what
    // torch.fx records for a parameter the call left out.
    std::map<std::string, Argument> defaults;
};
const std::map<std::string, FunctionalCall>& functionalCalls();

// "__torch__.torch.nn.modules.linear.___torch_mangle_3.Linear" -> "torch.nn.modules.linear.Linear"
std::string pythonClassName(const std::string& torchScriptClass);

// The short public name torch documents: "torch.nn.modules.linear.Linear" -> "torch.nn.Linear".
std::string publicClassName(const std::string& pythonClass);

// torch.fx's default leaf rule: a torch.nn module that is not a container.
bool isLeafModuleClass(const std::string& pythonClass);

} // namespace fxview
