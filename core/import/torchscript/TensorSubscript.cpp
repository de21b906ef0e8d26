// How TorchScript's front end emits `x[i0, i1, ...]` (ir_emitter.cpp, emitIntAndSliceIndexing):
// left to right, a slice is aten::slice(x, dim, start, end, step) and moves to the next dim, an
// int is aten::select(x, dim, i) and stays, None is aten::unsqueeze(x, dim) and moves on. The
// nodes share the subscript's source range, which is how a chain is told from two subscripts.

#include "TensorSubscript.h"

#include <string>

#include "FxText.h"

namespace fxview {

namespace jit = torch::jit;

bool TensorSubscript::writtenAsSubscript(const jit::Node* n) {
    if (n->inputs().empty() || n->inputs()[0]->type()->kind() != c10::TypeKind::TensorType)
        return false;
    std::string text = spelling_.originalText(n);
    std::size_t end = text.find_last_not_of(" \t\n");
    return end != std::string::npos && text[end] == ']' && text.find("...") == std::string::npos;
}

bool TensorSubscript::isLink(const jit::Node* n) {
    const c10::Symbol k = n->kind();
    if (k != c10::aten::slice && k != c10::aten::select && k != c10::aten::unsqueeze)
        return false;
    return writtenAsSubscript(n);
}

std::optional<Argument> TensorSubscript::tensorIndex(const jit::Node* n, const Argument& indices) {
    if (n->kind() != c10::aten::index || n->inputs().size() != 2 ||
        indices.kind != Argument::Kind::List || indices.items.empty() ||
        isLink(n->inputs()[0]->node()) || !writtenAsSubscript(n))
        return std::nullopt;
    for (const Argument& item : indices.items)
        if (!item.isNode())
            return std::nullopt;
    return indices.items.size() == 1 ? indices.items[0] : Argument::ofTuple(indices.items);
}

bool TensorSubscript::sameSubscript(const jit::Node* a, const jit::Node* b) {
    return spelling_.sameOrigin(a, b);
}

bool TensorSubscript::continues(const jit::Node* n) {
    if (!isLink(n) || n->outputs().size() != 1 || n->output()->uses().size() != 1)
        return false;
    const jit::Use& use = n->output()->uses()[0];
    return use.offset == 0 && isLink(use.user) && sameSubscript(n, use.user);
}

std::vector<const jit::Node*> TensorSubscript::chainEndingAt(const jit::Node* n) {
    if (!isLink(n) || continues(n))
        return {};
    std::vector<const jit::Node*> chain{n};
    for (const jit::Node* p = n->inputs()[0]->node(); continues(p) && sameSubscript(p, n);
         p = p->inputs()[0]->node())
        chain.insert(chain.begin(), p);
    return chain;
}

namespace {

// A slice bound: None, or an int torch.fx prints as it is.
std::optional<std::string> bound(const std::optional<c10::IValue>& v, bool isStep) {
    if (!v)
        return std::nullopt;
    if (v->isNone())
        return std::string("None");
    if (!v->isInt())
        return std::nullopt;
    // TorchScript fills in step 1 for `a:b`, which Python's slice keeps as None.
    if (isStep && v->toInt() == 1)
        return std::string("None");
    return std::to_string(v->toInt());
}

} // namespace

std::optional<Argument> TensorSubscript::index(const std::vector<const jit::Node*>& chain,
                                               const ConstantOf& constantOf) {
    std::vector<Argument> items;
    std::int64_t dim = 0;
    auto input = [&](const jit::Node* n, std::size_t i) -> std::optional<c10::IValue> {
        if (i >= n->inputs().size())
            return std::nullopt;
        return constantOf(n->inputs()[i]);
    };
    for (const jit::Node* n : chain) {
        std::optional<c10::IValue> d = input(n, 1);
        if (!d || !d->isInt() || d->toInt() != dim)
            return std::nullopt;
        if (n->kind() == c10::aten::slice) {
            auto start = bound(input(n, 2), false), end = bound(input(n, 3), false),
                 step = bound(input(n, 4), true);
            if (!start || !end || !step)
                return std::nullopt;
            items.push_back(Argument::ofRepr("slice(" + *start + ", " + *end + ", " + *step + ")"));
            ++dim;
        } else if (n->kind() == c10::aten::select) {
            std::optional<c10::IValue> i = input(n, 2);
            if (!i || !i->isInt())
                return std::nullopt;
            items.push_back(Argument::ofInt(i->toInt()));
        } else {
            items.push_back(Argument::none());
            ++dim;
        }
    }
    if (items.empty())
        return std::nullopt;
    return items.size() == 1 ? items[0] : Argument::ofTuple(std::move(items));
}

std::optional<Argument> TensorSubscript::listSlice(const jit::Node* n,
                                                   const ConstantOf& constantOf) {
    if (n->kind() != c10::aten::slice || n->inputs().size() != 4 ||
        n->inputs()[0]->type()->kind() != c10::TypeKind::ListType)
        return std::nullopt;
    auto start = bound(constantOf(n->inputs()[1]), false),
         end = bound(constantOf(n->inputs()[2]), false),
         step = bound(constantOf(n->inputs()[3]), true);
    if (!start || !end || !step)
        return std::nullopt;
    return Argument::ofRepr("slice(" + *start + ", " + *end + ", " + *step + ")");
}

} // namespace fxview
