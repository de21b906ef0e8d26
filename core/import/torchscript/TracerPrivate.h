#pragma once
// Core-internal: tracing any TorchScript module (the interpreter steps into submodules with it).

#include "ModelPrivate.h"
#include "Tracer.h"

namespace fxview {

TraceResult traceModule(const torch::jit::Module& module, const std::string& source);
// A function's own graph, its arguments as placeholders (Step Into on a torch.fx.wrap'ped call).
TraceResult traceFunction(torch::jit::Function& function, const std::string& source);

} // namespace fxview
