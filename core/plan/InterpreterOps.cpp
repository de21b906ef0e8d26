// The instructions TorchScript's interpreter runs itself, as operations the fx interpreter can
// call like any registered operator.

#include "InterpreterOps.h"

namespace fxview {

namespace jit = torch::jit;

namespace {

// A list made by a node of its own (Tracer.cpp's mutatedElsewhere): a new list each time it runs,
// as the script's `[a, b]` is. LibTorch registers no operator for prim::ListConstruct.
jit::Operation makeList(const jit::Node* n) {
    c10::TypePtr element = n->output()->type()->expectRef<c10::ListType>().getElementType();
    std::size_t count = n->inputs().size();
    return jit::Operation([element, count](jit::Stack& stack) {
        c10::impl::GenericList list(element);
        list.reserve(count);
        for (std::size_t i = stack.size() - count; i < stack.size(); ++i)
            list.push_back(stack[i]);
        jit::drop(stack, count);
        stack.emplace_back(std::move(list));
    });
}

// A dict literal ({"logits": x, "aux": [y]}): implemented by TorchScript's interpreter
// itself, not registered as an operator. Inputs alternate key, value.
jit::Operation makeDict(const jit::Node* n) {
    const auto& type = n->output()->type()->expectRef<c10::DictType>();
    c10::TypePtr key = type.getKeyType(), value = type.getValueType();
    std::size_t count = n->inputs().size();
    return jit::Operation([key, value, count](jit::Stack& stack) {
        c10::impl::GenericDict dict(key, value);
        dict.reserve(count / 2);
        for (std::size_t i = stack.size() - count; i < stack.size(); i += 2)
            dict.insert_or_assign(stack[i], stack[i + 1]);
        jit::drop(stack, count);
        stack.emplace_back(std::move(dict));
    });
}

} // namespace

jit::Operation interpreterOperation(const jit::Node* n) {
    switch (n->kind()) {
    case c10::prim::ListConstruct:
        return makeList(n);
    case c10::prim::DictConstruct:
        return makeDict(n);
    case c10::prim::isinstance: {
        // ISINSTANCE: true when the value's type is a subtype of any of the node's types.
        std::vector<c10::TypePtr> types = n->tys(c10::attr::types);
        return jit::Operation([types](jit::Stack& stack) {
            c10::TypePtr type = jit::pop(stack).type();
            bool match = false;
            for (const c10::TypePtr& candidate : types)
                match = match || type->isSubtypeOf(*candidate);
            jit::push(stack, match);
        });
    }
    case c10::prim::TupleSlice: { // t[1:3] with constant bounds
        std::int64_t begin = n->i(c10::attr::beg), end = n->i(c10::attr::end);
        return jit::Operation([begin, end](jit::Stack& stack) {
            auto tuple = jit::pop(stack).toTuple();
            std::vector<c10::IValue> items(tuple->elements().begin() + begin,
                                           tuple->elements().begin() + end);
            jit::push(stack, c10::ivalue::Tuple::create(std::move(items)));
        });
    }
    case c10::prim::CreateObject: { // a TorchScript class's instance (torchvision's ImageList)
        auto type = n->output()->type()->expect<c10::ClassType>();
        return jit::Operation([type](jit::Stack& stack) {
            jit::push(stack, c10::ivalue::Object::create(
                                 c10::StrongTypePtr(type->compilation_unit(), type),
                                 type->numAttributes()));
        });
    }
    case c10::prim::GetAttr: { // an attribute of such an object (LOADATTR)
        auto type = n->input()->type()->expect<c10::ClassType>();
        std::size_t slot = type->getAttributeSlot(n->s(c10::attr::name));
        return jit::Operation([slot](jit::Stack& stack) {
            auto object = jit::pop(stack).toObject();
            jit::push(stack, object->getSlot(slot));
        });
    }
    case c10::prim::SetAttr: { // STOREATTR
        auto type = n->inputs()[0]->type()->expect<c10::ClassType>();
        std::size_t slot = type->getAttributeSlot(n->s(c10::attr::name));
        return jit::Operation([slot](jit::Stack& stack) {
            c10::IValue value = jit::pop(stack);
            jit::pop(stack).toObject()->setSlot(slot, std::move(value));
        });
    }
    default:
        return n->getOperation();
    }
}

} // namespace fxview
