// Python lists, tuples and dicts that torch.fx records as literals in the args of the nodes
// using them (`cat([%a, %b])`, `return {'out': %x}`): TorchScript builds them with
// prim::ListConstruct / TupleConstruct / DictConstruct, aten::dict() and fills them with appends
// and `d[k] = v`. Folded here, with the ValueSource that rebuilds them at run time; a list or
// dict mutated any other way is one real object, made by a node all its uses share.

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <cstdint>

#include "TracerState.h"

namespace fxview {

namespace jit = torch::jit;

namespace {

const jit::Graph* calleeGraph(const jit::Node* call) {
    jit::Function* fn = nullptr;
    if (call->kind() == c10::prim::CallMethod) {
        if (auto cls = call->inputs()[0]->type()->cast<c10::ClassType>())
            fn = cls->findMethod(call->s(c10::attr::name));
    } else if (auto type = call->inputs()[0]->type()->cast<c10::FunctionType>()) {
        fn = type->function();
    }
    return fn && fn->isGraphFunction() ? jit::toGraphFunction(*fn).graph().get() : nullptr;
}

// Whether `use` may change the list it is handed: an operator whose schema writes to that
// argument, or a method or function whose own graph does so with its parameter.
bool mutates(const jit::Use& use, int depth) {
    const jit::Node* user = use.user;
    if (user->kind() == c10::prim::CallMethod || user->kind() == c10::prim::CallFunction) {
        const jit::Graph* callee = calleeGraph(user);
        // CallFunction's first input is the function; the callee's graph does not have it.
        std::size_t param = user->kind() == c10::prim::CallFunction ? use.offset - 1 : use.offset;
        if (!callee || depth > 8 || param >= callee->inputs().size())
            return true; // cannot look inside: assume it does
        for (const jit::Use& inner : callee->inputs()[param]->uses())
            if (mutates(inner, depth + 1))
                return true;
        return false;
    }
    if (user->kind() == c10::prim::Loop || user->kind() == c10::prim::If)
        return true; // carried into control flow: one real object keeps it right
    const c10::FunctionSchema* schema = user->maybeSchema();
    if (!schema || use.offset >= schema->arguments().size())
        return false;
    const c10::AliasInfo* alias = schema->arguments()[use.offset].alias_info();
    return alias && alias->isWrite();
}

bool isDictLiteral(const jit::Node* n) {
    return n->kind() == c10::prim::DictConstruct ||
           (n->kind() == c10::aten::dict && n->inputs().empty());
}

// `d[key] = value`; folded if the key is known while tracing (else the trace starts over).
bool setsItem(const jit::Use& use) {
    return use.user->kind() == c10::aten::_set_item && use.offset == 0;
}

} // namespace

// Construct nodes have no schema to run through, so their constants are built here.
c10::IValue Tracer::constructConstant(const jit::Node* n, const Frame& frame) const {
    std::vector<c10::IValue> items;
    for (const jit::Value* input : n->inputs())
        items.push_back(*dataOf(frame, input).constant);
    if (n->kind() == c10::prim::TupleConstruct)
        return c10::ivalue::Tuple::create(std::move(items));
    c10::impl::GenericList list(n->output()->type()->expectRef<c10::ListType>().getElementType());
    for (c10::IValue& item : items)
        list.push_back(std::move(item));
    return list;
}

void Tracer::traceConstruct(const jit::Node* n, Frame& frame) {
    std::vector<Argument> items;
    ValueSource source;
    bool isList = n->kind() == c10::prim::ListConstruct;
    source.kind = isList ? ValueSource::Kind::List : ValueSource::Kind::Tuple;
    if (isList)
        source.listElement = n->output()->type()->expectRef<c10::ListType>().getElementType();
    bool allConstant = true;
    for (const jit::Value* input : n->inputs()) {
        const Binding& b = dataOf(frame, input);
        items.push_back(b.arg);
        source.items.push_back(b.source);
        allConstant = allConstant && b.constant.has_value();
    }
    Argument arg =
        isList ? Argument::ofList(std::move(items)) : Argument::ofTuple(std::move(items));
    // A list that grows by appends stays a literal, even when it starts out constant.
    bool appendedTo = isList && std::any_of(n->output()->uses().begin(), n->output()->uses().end(),
                                            [](const jit::Use& u) {
                                                return u.user->kind() == c10::aten::append;
                                            });
    if (allConstant && !appendedTo) {
        c10::IValue value = constructConstant(n, frame);
        frame[n->output()] = data(std::move(arg), ValueSource::ofConstant(value), value);
    } else {
        Binding literal = data(std::move(arg), std::move(source));
        literal.block = currentBlock_;
        frame[n->output()] = std::move(literal);
    }
}

// A list literal is folded into each use ([%a, %b]) as torch.fx records Python lists. A
// list that is appended to in the block that made it stays a literal that grows: each use
// sees its items at that point (`cat([%pool0, %conv2])`), and the append leaves no node,
// as in torch.fx. Any other mutation (in a loop body or a callee, insert, pop, ...) needs
// one real list object: such a list is made by a node of its own, which all uses share.
namespace {

// Whether `block` (and the blocks inside it) changes attribute `name` through a read of it
// (`self.levels.append(x)`).
bool changesAttribute(const jit::Block* block, const std::string& name) {
    for (const jit::Node* n : block->nodes()) {
        if (n->kind() == c10::prim::GetAttr && n->s(c10::attr::name) == name)
            for (const jit::Use& use : n->output()->uses())
                if ((use.user->kind() == c10::aten::append && use.offset == 0) || mutates(use, 0))
                    return true;
        for (const jit::Block* inner : n->blocks())
            if (changesAttribute(inner, name))
                return true;
    }
    return false;
}

// Whether the code that set the attribute changes it afterwards: then the list set is one
// shared object, not a literal torch.fx would fold into each read.
bool attributeMutated(const jit::Node* setAttr) {
    return changesAttribute(setAttr->owningGraph()->block(), setAttr->s(c10::attr::name));
}

} // namespace

bool Tracer::mutatedElsewhere(const jit::Node* construct) const {
    if (sharedLiterals_.count(construct))
        return true;
    for (const jit::Use& use : construct->output()->uses()) {
        const jit::Node* user = use.user;
        if (user->kind() == c10::aten::append && use.offset == 0 &&
            mayRunInPlaceOf(user, construct->owningBlock()))
            continue;
        // `d["out"] = x` on a dict literal grows it, as an append grows a list literal.
        if (isDictLiteral(construct) && setsItem(use) &&
            mayRunInPlaceOf(user, construct->owningBlock()))
            continue;
        // Stored as a module's attribute and changed through it (raft's `self.corr_pyramid =
        // [corr_volume]`, appended to in a loop): every later read is this one list object.
        if (user->kind() == c10::prim::SetAttr && attributeMutated(user))
            return true;
        if (mutates(use, 0))
            return true;
    }
    return false;
}

bool Tracer::appendsToLiteral(const jit::Node* n, const Frame& frame) const {
    const jit::Value* list = n->inputs()[0];
    const Binding& b = dataOf(frame, list);
    return list->node()->kind() == c10::prim::ListConstruct &&
           mayRunInPlaceOf(n, list->node()->owningBlock()) && !b.constant &&
           b.source.kind == ValueSource::Kind::List;
}

// A literal changes only where it was made: a change in a branch or loop body that stays in the
// graph (an if on the data) needs the list or dict to be one object, which the next trace makes.
// This trace goes on (folding anyway) to find every such literal at once.
bool Tracer::foldedHere(const Binding& literal, const jit::Node* construct) {
    if (literal.block == currentBlock_)
        return true;
    changedAtRunTime_.insert(construct);
    return false;
}

void Tracer::traceAppend(const jit::Node* n, Frame& frame) {
    const Binding& item = dataOf(frame, n->inputs()[1]);
    Binding& list = frame[n->inputs()[0]];
    foldedHere(list, n->inputs()[0]->node());
    list.arg.items.push_back(item.arg);
    list.source.items.push_back(item.source);
    if (n->outputs().size() == 1)
        frame[n->output()] = list;
}

void Tracer::traceUnpack(const jit::Node* n, Frame& frame) {
    const Binding& source = dataOf(frame, n->input());
    bool literal = source.source.kind == ValueSource::Kind::List ||
                   source.source.kind == ValueSource::Kind::Tuple;
    if (source.constant) {
        std::vector<c10::IValue> values = source.constant->isList()
                                              ? source.constant->toListRef().vec()
                                              : source.constant->toTupleRef().elements().vec();
        for (std::size_t i = 0; i < n->outputs().size() && i < values.size(); ++i)
            frame[n->outputs()[i]] = constant(values[i]);
        return;
    }
    if (literal && source.source.items.size() == n->outputs().size()) {
        for (std::size_t i = 0; i < n->outputs().size(); ++i)
            frame[n->outputs()[i]] = data(source.arg.items[i], source.source.items[i]);
        return;
    }
    Binding whole = source;
    for (std::size_t i = 0; i < n->outputs().size(); ++i)
        frame[n->outputs()[i]] = getItem(whole, i, static_cast<int>(n->outputs().size()));
}

// `{"out": x}` and `aten::dict()`: a dict literal whose keys the code wrote (constants).
bool Tracer::traceDict(const jit::Node* n, Frame& frame) {
    if (!isDictLiteral(n) || mutatedElsewhere(n))
        return false;
    const auto& type = n->output()->type()->expectRef<c10::DictType>();
    Binding dict = data(Argument::ofDict({}), ValueSource());
    dict.block = currentBlock_;
    dict.source.kind = ValueSource::Kind::Dict;
    dict.source.dictKey = type.getKeyType();
    dict.source.listElement = type.getValueType();
    for (std::size_t i = 0; i + 1 < n->inputs().size(); i += 2) {
        const Binding& key = dataOf(frame, n->inputs()[i]);
        if (!key.constant)
            return false; // a key known only at run time: the dict is a node of its own
        setItem(dict, *key.constant, key.arg, dataOf(frame, n->inputs()[i + 1]));
    }
    frame[n->output()] = std::move(dict);
    return true;
}

bool Tracer::traceSetItem(const jit::Node* n, Frame& frame) {
    if (n->kind() != c10::aten::_set_item || !isDictLiteral(n->inputs()[0]->node()))
        return false;
    const jit::Value* target = n->inputs()[0];
    Binding& dict = frame[target];
    const Binding& key = dataOf(frame, n->inputs()[1]);
    if (dict.source.kind != ValueSource::Kind::Dict)
        return false;  // made a dict object of its own: the change is a node
    if (!key.constant) // a key known only at run time
        changedAtRunTime_.insert(target->node());
    if (!foldedHere(dict, target->node()) || !key.constant)
        return true;
    setItem(dict, *key.constant, key.arg, dataOf(frame, n->inputs()[2]));
    return true;
}

// As Python's dict: a new key goes last, an existing one keeps its place with the new value.
void Tracer::setItem(Binding& dict, const c10::IValue& key, const Argument& keyArg,
                     const Binding& value) {
    auto& keys = dict.source.keys;
    auto at = static_cast<std::size_t>(
        std::find_if(keys.begin(), keys.end(), [&](const c10::IValue& k) { return k == key; }) -
        keys.begin());
    if (at == keys.size()) {
        keys.push_back(key);
        dict.source.items.push_back(value.source);
        dict.arg.items.push_back(Argument::ofTuple({keyArg, value.arg}));
    } else {
        dict.source.items[at] = value.source;
        dict.arg.items[at].items[1] = value.arg;
    }
}

// `items[0]` of a list or tuple literal and `d["out"]` of a dict literal Python holds: the item
// itself, no node (as in torch.fx).
bool Tracer::traceLiteralItem(const jit::Node* n, Frame& frame) {
    const bool index = n->kind() == c10::aten::__getitem__ || n->kind() == c10::prim::TupleIndex;
    if (!index || n->inputs().size() != 2)
        return false;
    const Binding& literal = dataOf(frame, n->inputs()[0]);
    const Binding& key = dataOf(frame, n->inputs()[1]);
    const ValueSource& source = literal.source;
    if (!key.constant || literal.arg.items.size() != source.items.size())
        return false;
    std::optional<std::size_t> at;
    if (source.kind == ValueSource::Kind::Dict) {
        for (std::size_t i = 0; i < source.keys.size(); ++i)
            if (source.keys[i] == *key.constant)
                at = i;
    } else if ((source.kind == ValueSource::Kind::List ||
                source.kind == ValueSource::Kind::Tuple) &&
               key.constant->isInt()) {
        auto size = static_cast<std::int64_t>(source.items.size());
        std::int64_t i = key.constant->toInt();
        i = i < 0 ? i + size : i;
        if (i >= 0 && i < size)
            at = static_cast<std::size_t>(i);
    }
    if (!at)
        return false;
    const Argument& item = source.kind == ValueSource::Kind::Dict ? literal.arg.items[*at].items[1]
                                                                  : literal.arg.items[*at];
    frame[n->output()] = data(item, source.items[*at]);
    return true;
}

// What Python answers while torch.fx traces, so that no node is recorded: `len` of a list or
// dict literal, and `isinstance` of a value whose type the trace knows (a literal, a constant, a
// value of one concrete type), as torchvision's roi_align asks of the boxes a caller passed.
bool Tracer::traceKnownWhileTracing(const jit::Node* n, Frame& frame) {
    const c10::Symbol kind = n->kind();
    if ((kind != c10::aten::len && kind != c10::prim::isinstance) || n->inputs().size() != 1)
        return false;
    const Binding& value = dataOf(frame, n->input());
    const ValueSource& source = value.source;
    const bool literal = !value.constant && (source.kind == ValueSource::Kind::List ||
                                             source.kind == ValueSource::Kind::Dict);
    if (kind == c10::aten::len) {
        if (!literal || value.arg.items.size() != source.items.size())
            return false;
        frame[n->output()] = constant(c10::IValue(static_cast<std::int64_t>(source.items.size())));
        return true;
    }
    c10::TypePtr type;
    if (value.constant)
        type = value.constant->type();
    else if (literal && source.kind == ValueSource::Kind::List)
        type = c10::ListType::create(source.listElement);
    else if (literal)
        type = c10::DictType::create(source.dictKey, source.listElement);
    else if (source.kind == ValueSource::Kind::Slot)
        type = n->input()->type();
    const c10::TypeKind k = type ? type->kind() : c10::TypeKind::AnyType;
    if (k == c10::TypeKind::UnionType || k == c10::TypeKind::OptionalType ||
        k == c10::TypeKind::AnyType)
        return false;
    bool is = false;
    for (const c10::TypePtr& candidate : n->tys(c10::attr::types))
        is = is || type->isSubtypeOf(*candidate);
    frame[n->output()] = constant(c10::IValue(is));
    return true;
}

} // namespace fxview
