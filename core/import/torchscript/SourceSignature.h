#pragma once
// Core-internal: the annotations a scripted forward's own `def` line gave its parameters, as
// torch.fx prints them on placeholders (`%x : torch.Tensor [num_users=1] = placeholder[...]`).
// Include only from core's .cpp files.

#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
}

namespace fxview {

// One entry per parameter after self, "" where the source wrote no annotation; an empty list
// when the archive kept no source for the function named `function` (a traced archive).
std::vector<std::string> parameterAnnotations(const torch::jit::Graph& graph,
                                              const std::string& function);

// An annotation's text as torch.fx prints the type Python evaluates it to (repr, with types as
// module.qualname): `Tensor` -> `torch.Tensor`, `Optional[Tensor]` ->
// `typing.Optional[torch.Tensor]`, `list[int]` as it is, a string annotation in single quotes.
std::string fxTypeRepr(const std::string& annotation);

} // namespace fxview
