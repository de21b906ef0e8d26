#pragma once
// Core-internal: the values a run starts from, made from the person's input specs and checked
// against forward's signature. Include only from core's .cpp files.

#include <string>
#include <vector>

#include "InputSpec.h"
#include "PlanPrivate.h"

namespace fxview {

// Makes one value per forward argument: a random tensor per shape spec (torch.randn after the
// caller's manual_seed), what a torch.save file holds (a tuple or list of several inputs is
// spread over them, or, for a program whose inputs nest, flattened by `flatten`: see
// ExecutionPlan::flattenInputs), and the argument's default for those left out. Returns "" or a
// sentence naming the input and what to do.
std::string makeInputValues(const std::vector<InputSpec>& specs,
                            const std::vector<PlaceholderSpec>& wanted,
                            std::vector<c10::IValue>& made,
                            const ExecutionPlan::Flatten& flatten = {});

// The spec an argument's recorded type implies: a traced archive restores the shapes and dtypes
// it was traced with. False when the type says no shape.
bool specFromTracedType(const c10::TypePtr& type, InputSpec& spec);

} // namespace fxview
