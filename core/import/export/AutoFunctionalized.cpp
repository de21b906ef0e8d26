// auto_functionalized and auto_functionalized_v2 run as auto_functionalized_dense and
// auto_functionalized_v2_dense (torch/_higher_order_ops/auto_functionalize.py) run them: the
// op's mutable arguments (the schema's Tensor(a!) ones) are cloned with their strides kept, the
// op writes into the clones, and the clones (v1) or the cloned bases (v2) are returned after the
// op's own outputs, so nothing the program holds is written.

#include "AutoFunctionalized.h"

#include <ATen/ATen.h>

#include <map>
#include <optional>
#include <stdexcept>

namespace fxview {

namespace {

namespace jit = torch::jit;
using Kwargs = std::map<std::string, c10::IValue>;

// torch._prims_common.clone_preserve_strides: the storage the view spans from offset 0,
// cloned, and the same view of the copy.
at::Tensor clonePreservingStrides(const at::Tensor& x) {
    std::int64_t needed = 0;
    if (x.numel() != 0) {
        needed = 1 + x.storage_offset();
        for (std::int64_t d = 0; d < x.dim(); ++d)
            needed += (x.size(d) - 1) * x.stride(d);
    }
    at::Tensor buffer = at::as_strided(x, {needed}, {1}, 0).clone();
    return at::as_strided(buffer, x.sizes(), x.strides(), x.storage_offset());
}

// is_tensorlist_like_type: Tensor[], Tensor?[] and an optional of either.
bool isTensorList(const c10::TypePtr& type) {
    c10::TypePtr t = type;
    if (auto optional = t->cast<c10::OptionalType>())
        t = optional->getElementType();
    return t->kind() == c10::TypeKind::ListType;
}

bool holdsOptionalTensors(const c10::TypePtr& type) {
    c10::TypePtr t = type;
    if (auto optional = t->cast<c10::OptionalType>())
        t = optional->getElementType();
    auto list = t->cast<c10::ListType>();
    return list && list->getElementType()->kind() == c10::TypeKind::OptionalType;
}

// A list of tensors (or Nones, for Tensor?[]) of the type the op's argument has.
c10::IValue tensorList(const std::vector<std::optional<at::Tensor>>& items, bool optional) {
    if (optional) {
        c10::List<std::optional<at::Tensor>> list;
        for (const auto& t : items)
            list.push_back(t);
        return list;
    }
    c10::List<at::Tensor> list;
    for (const auto& t : items)
        list.push_back(t ? *t : at::Tensor());
    return list;
}

std::vector<std::optional<at::Tensor>> tensorsOf(const c10::IValue& v) {
    std::vector<std::optional<at::Tensor>> items;
    for (const c10::IValue& item : v.toListRef())
        items.push_back(item.isNone() ? std::nullopt : std::optional<at::Tensor>(item.toTensor()));
    return items;
}

class Call {
public:
    Call(std::string hop, std::shared_ptr<jit::Operator> op, Kwargs kwargs)
        : hop_(std::move(hop)), op_(std::move(op)), schema_(op_->schema()),
          kwargs_(std::move(kwargs)) {
        for (const c10::Argument& a : schema_.arguments())
            if (a.alias_info() && a.alias_info()->isWrite())
                mutableArgs_.push_back(&a);
    }

    c10::IValue v1() {
        // _only_clone_these_tensors: the names to clone (None: every mutable argument)
        std::optional<c10::IValue> only = take("_only_clone_these_tensors");
        std::vector<c10::IValue> cloned;
        for (const c10::Argument* a : mutableArgs_) {
            c10::IValue& v = at(a->name());
            bool clone = !only || only->isNone() || listHolds(*only, a->name());
            if (clone && v.isTensor()) {
                v = clonePreservingStrides(v.toTensor());
            } else if (clone && v.isList()) {
                auto items = tensorsOf(v);
                for (auto& t : items)
                    if (t)
                        t = clonePreservingStrides(*t);
                v = tensorList(items, holdsOptionalTensors(a->type()));
            }
            cloned.push_back(v);
        }
        return results(callOp(), cloned);
    }

    c10::IValue v2() {
        std::optional<c10::IValue> all = take("_all_bases");
        std::vector<std::optional<at::Tensor>> bases;
        if (all && !all->isNone())
            bases = tensorsOf(*all);
        std::optional<c10::IValue> only = take("_only_clone_these_bases");
        for (const c10::Argument* a : mutableArgs_)
            if (kwargs_.count("_" + a->name() + "_dtype"))
                throw std::runtime_error(hop_ + " of an out= operator (" + schema_.name() +
                                         "), which fxview does not run yet");
        // read_view_information_from_args, before the bases are cloned (as torch does).
        std::map<std::string, std::vector<std::optional<View>>> views;
        std::map<std::string, bool> listOf;
        for (const c10::Argument* a : mutableArgs_) {
            const std::string& name = a->name();
            listOf[name] = isTensorList(a->type());
            if (!listOf[name]) {
                views[name] = {readView("_" + name)};
                continue;
            }
            c10::IValue length = required("_" + name + "_length");
            if (length.isNone()) {
                views[name] = {};
                listOf[name] = false; // the whole list is None
                continue;
            }
            for (std::int64_t i = 0; i < length.toInt(); ++i)
                views[name].push_back(readView("_" + name + "_" + std::to_string(i)));
        }
        for (std::size_t i = 0; i < bases.size(); ++i)
            if (bases[i] && (!only || only->isNone() || listHolds(*only, i)))
                bases[i] = clonePreservingStrides(*bases[i]);
        for (const c10::Argument* a : mutableArgs_) {
            const std::string& name = a->name();
            const auto& info = views[name];
            if (!listOf[name]) {
                kwargs_[name] = info.empty() || !info[0] ? c10::IValue()
                                                         : c10::IValue(regenerate(*info[0], bases));
                continue;
            }
            std::vector<std::optional<at::Tensor>> items;
            for (const auto& one : info)
                items.push_back(one ? std::optional<at::Tensor>(regenerate(*one, bases))
                                    : std::nullopt);
            kwargs_[name] = tensorList(items, holdsOptionalTensors(a->type()));
        }
        std::vector<c10::IValue> newBases;
        for (const auto& b : bases)
            newBases.push_back(b ? c10::IValue(*b) : c10::IValue());
        return results(callOp(), newBases);
    }

private:
    // A view of a base, as its keys describe it (the *ViewInfo classes).
    struct View {
        enum class Kind { Base, Alias, Slice, Strided } kind = Kind::Base;
        std::int64_t base = 0;
        std::vector<std::int64_t> size, stride;
        std::int64_t offset = 0, dim = 0, start = 0, end = 0;
    };

    const std::string hop_;
    const std::shared_ptr<jit::Operator> op_;
    const c10::FunctionSchema& schema_;
    Kwargs kwargs_;
    std::vector<const c10::Argument*> mutableArgs_;

    std::optional<c10::IValue> take(const std::string& key) {
        auto it = kwargs_.find(key);
        if (it == kwargs_.end())
            return std::nullopt;
        c10::IValue v = std::move(it->second);
        kwargs_.erase(it);
        return v;
    }

    c10::IValue required(const std::string& key) {
        if (auto v = take(key))
            return *v;
        throw std::runtime_error(hop_ + " lacks its argument " + key + " for " + schema_.name());
    }

    c10::IValue& at(const std::string& name) {
        auto it = kwargs_.find(name);
        if (it == kwargs_.end())
            throw std::runtime_error(hop_ + " lacks " + schema_.name() + "'s argument " + name);
        return it->second;
    }

    static bool listHolds(const c10::IValue& list, const std::string& name) {
        for (const c10::IValue& item : list.toListRef())
            if (item.isString() && item.toStringRef() == name)
                return true;
        return false;
    }

    static bool listHolds(const c10::IValue& list, std::size_t index) {
        for (const c10::IValue& item : list.toListRef())
            if (item.isInt() && item.toInt() == static_cast<std::int64_t>(index))
                return true;
        return false;
    }

    // read_single_view
    std::optional<View> readView(const std::string& prefix) {
        c10::IValue base = required(prefix + "_base_index");
        if (base.isNone())
            return std::nullopt;
        View v;
        v.base = base.toInt();
        if (take(prefix + "_alias")) {
            v.kind = View::Kind::Alias;
        } else if (kwargs_.count(prefix + "_storage_offset")) {
            v.kind = View::Kind::Strided;
            v.size = required(prefix + "_size").toIntVector();
            v.stride = required(prefix + "_stride").toIntVector();
            v.offset = required(prefix + "_storage_offset").toInt();
        } else if (kwargs_.count(prefix + "_slice_dim")) {
            v.kind = View::Kind::Slice;
            v.dim = required(prefix + "_slice_dim").toInt();
            v.start = required(prefix + "_slice_start").toInt();
            v.end = required(prefix + "_slice_end").toInt();
        }
        return v;
    }

    // regenerate_view
    at::Tensor regenerate(const View& v, const std::vector<std::optional<at::Tensor>>& bases) {
        if (v.base < 0 || v.base >= static_cast<std::int64_t>(bases.size()) ||
            !bases[static_cast<std::size_t>(v.base)])
            throw std::runtime_error(hop_ + " names base " + std::to_string(v.base) + " of " +
                                     std::to_string(bases.size()) + " in _all_bases");
        const at::Tensor& base = *bases[static_cast<std::size_t>(v.base)];
        switch (v.kind) {
        case View::Kind::Base:
            return base;
        case View::Kind::Alias:
            return at::alias(base);
        case View::Kind::Slice:
            return at::slice(base, v.dim, v.start, v.end);
        case View::Kind::Strided:
            return at::as_strided(base, v.size, v.stride, v.offset);
        }
        return base;
    }

    // _mutable_op(**kwargs): every argument by its schema name, defaults where not given.
    jit::Stack callOp() {
        jit::Stack stack;
        std::size_t used = 0;
        for (const c10::Argument& formal : schema_.arguments()) {
            auto it = kwargs_.find(formal.name());
            if (it != kwargs_.end()) {
                stack.push_back(it->second);
                ++used;
            } else if (formal.default_value()) {
                stack.push_back(*formal.default_value());
            } else {
                throw std::runtime_error(hop_ + " lacks " + schema_.name() + "'s argument " +
                                         formal.name());
            }
        }
        if (used != kwargs_.size())
            for (const auto& [key, value] : kwargs_)
                if (!schema_.argumentIndexWithName(key))
                    throw std::runtime_error(hop_ + " gave " + schema_.name() +
                                             " an argument it does not take: " + key);
        op_->getOperation()(stack);
        return stack;
    }

    // (*out, *rest) when the op returns a tuple, else (out, *rest): None first when it returns
    // nothing.
    static c10::IValue results(jit::Stack out, const std::vector<c10::IValue>& rest) {
        std::vector<c10::IValue> all;
        if (out.empty())
            all.push_back(c10::IValue());
        for (c10::IValue& v : out)
            all.push_back(std::move(v));
        all.insert(all.end(), rest.begin(), rest.end());
        return c10::ivalue::Tuple::create(std::move(all));
    }
};

} // namespace

jit::Operation autoFunctionalizedOperation(AutoFunctionalizedKind kind,
                                           std::shared_ptr<jit::Operator> op,
                                           std::vector<std::string> names) {
    return jit::Operation([kind, op, names](jit::Stack& stack) {
        const std::string hop =
            kind == AutoFunctionalizedKind::V1 ? "auto_functionalized" : "auto_functionalized_v2";
        Kwargs kwargs;
        std::size_t base = stack.size() - names.size();
        for (std::size_t i = 0; i < names.size(); ++i)
            kwargs[names[i]] = std::move(stack[base + i]);
        stack.resize(base);
        Call call(hop, op, std::move(kwargs));
        stack.push_back(kind == AutoFunctionalizedKind::V1 ? call.v1() : call.v2());
    });
}

} // namespace fxview
