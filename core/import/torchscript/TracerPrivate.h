#pragma once
// Import-internal: tracing any TorchScript module or function (a plan the tracer makes opens its
// call_module and call_function steps with them: ExecutionPlan::traceCallee).

#include "ModelPrivate.h"
#include "Tracer.h"

namespace fxview {

TraceResult traceModule(const torch::jit::Module& module, const std::string& source);
// A function's own graph, its arguments as placeholders (Step Into on a torch.fx.wrap'ped call).
TraceResult traceFunction(torch::jit::Function& function, const std::string& source);

} // namespace fxview
