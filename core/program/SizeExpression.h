#pragma once
// A symbolic size as PyTorch prints it (torch.Size([s77, 4]), `2*s77`), from the sympy srepr a
// .pt2 stores in its tensor_values (`Mul(Integer(2), Symbol('s77', positive=True,
// integer=True))`). LibTorch-free: the inspector shows it before and during a run.

#include <string>

namespace fxview {

// The printed form of one serialized srepr; the srepr itself when it uses what this does not
// read (a function sympy prints another way), so nothing is shown wrong.
std::string sizeExpression(const std::string& srepr);

} // namespace fxview
