#pragma once
// Core-internal: running an operator as a plain call of torch.export's ep.module() runs it, grad
// mode on and its weights requiring grad as the file saved them. Some CPU kernels take another
// path then (aten.lstm's oneDNN kernel by grad mode, matmul's folding of a 3-d input by whether
// an operand requires grad), and differ in the last bits from the no-grad run. Include only from
// core's run/ files.

#include <ATen/core/ivalue.h>

namespace fxview {

// `value` (a tensor, or a list or tuple holding tensors) without the autograd history its
// operator gave it, so that no node keeps the values it saved for a backward that never comes:
// a tensor that required grad still does (its grad_fn one shared node that is never run), as
// the next operator must see it. Leaves (weights, inputs) are returned as they are.
c10::IValue withoutHistory(const c10::IValue& value);

} // namespace fxview
