// Keeping requires_grad without keeping autograd's graph: see EagerGrad.h.

#include "EagerGrad.h"

#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/csrc/autograd/variable.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace fxview {

namespace {

// LibTorch 2.6 holds autograd nodes by std::shared_ptr, 2.14 by c10::intrusive_ptr.
using NodePtr = decltype(torch::autograd::Edge::function);

template <typename Ptr> Ptr errorNode(const std::string& why) {
    using Error = std::conditional_t<sizeof(Ptr) != 0, torch::autograd::Error, void>;
    if constexpr (std::is_same_v<Ptr, std::shared_ptr<torch::autograd::Node>>)
        return std::make_shared<Error>(why);
    else
        return c10::make_intrusive<Error>(why);
}

// The grad_fn every value made in a run points to: a node that says why if a backward ever
// reached it, and holds nothing.
NodePtr runHistory() {
    static const NodePtr node = errorNode<NodePtr>(
        "fxview keeps no autograd history: a run's values are not differentiated");
    return node;
}

at::Tensor withoutHistory(const at::Tensor& t) {
    if (!t.defined() || !t.requires_grad() || !t.grad_fn())
        return t; // a leaf, or made without grad: nothing is held
    at::Tensor kept = t.detach();
    torch::autograd::impl::set_gradient_edge(kept, torch::autograd::Edge(runHistory(), 0));
    return kept;
}

} // namespace

c10::IValue withoutHistory(const c10::IValue& value) {
    if (value.isTensor())
        return withoutHistory(value.toTensor());
    if (value.isTensorList()) {
        c10::List<at::Tensor> list;
        for (std::size_t i = 0; i < value.toTensorList().size(); ++i)
            list.push_back(withoutHistory(value.toTensorList().get(i)));
        return list;
    }
    if (value.isTuple()) {
        std::vector<c10::IValue> items;
        for (const c10::IValue& item : value.toTupleRef().elements())
            items.push_back(withoutHistory(item));
        return c10::ivalue::Tuple::create(std::move(items));
    }
    if (value.isList()) {
        c10::impl::GenericList list(value.toList().elementType());
        for (const c10::IValue& item : value.toListRef())
            list.push_back(withoutHistory(item));
        return list;
    }
    return value;
}

} // namespace fxview
