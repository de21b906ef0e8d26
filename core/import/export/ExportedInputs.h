#pragma once
// Core-internal: a torch.export program's inputs as ep.module() takes them. Its signature's in_spec
// says how (args, kwargs) flatten to the graph's user inputs: dicts, lists and tuples nested in
// the arguments, and leaves export specialised away (a float, a string: constant inputs, which
// ep.module() checks and the graph ignores). Include only from core's .cpp files.

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "ExportedProgram.h"

namespace fxview {

// Whether the program's inputs are more than its user inputs in a row, so that what a person
// gives must be flattened by its in_spec: nested containers, constant inputs, keyword arguments.
bool inputsNest(const ExportedProgram& program);

// `given` flattened as ep.module() flattens its arguments: the tuple (or list) of its positional
// arguments, the one argument of a program that takes one, or (args, kwargs) where it takes
// keywords. Appends the user inputs, in the graph's order, to `userInputs`; the constants are
// checked, not passed. Returns "" or one sentence naming the path of the leaf that does not fit
// ("args[1][1] is a tensor but the program takes a list of 1 there").
std::string flattenExportedInputs(const ExportedProgram& program, const c10::IValue& given,
                                  std::vector<c10::IValue>& userInputs);

} // namespace fxview
