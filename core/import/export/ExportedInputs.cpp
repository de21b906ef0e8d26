// Flattening ep.module()'s arguments by the program's in_spec: see ExportedInputs.h.

#include "ExportedInputs.h"

#include <algorithm>

#include "FxText.h"

namespace fxview {

namespace {

using Tree = OutputTree;

std::string describe(const c10::IValue& v) {
    if (v.isTensor())
        return "a tensor";
    if (v.isTuple())
        return "a tuple of " + std::to_string(v.toTupleRef().elements().size());
    if (v.isList())
        return "a list of " + std::to_string(v.toListRef().size());
    if (v.isGenericDict())
        return "a dict of " + std::to_string(v.toGenericDict().size());
    if (v.isNone())
        return "None";
    if (v.isInt())
        return std::to_string(v.toInt());
    if (v.isDouble())
        return pythonFloatRepr(v.toDouble());
    if (v.isBool())
        return v.toBool() ? "True" : "False";
    if (v.isString())
        return "'" + v.toStringRef() +
               "'"; // as Python's repr quotes it (the graph's text does not)
    return "a " + v.type()->annotation_str();
}

std::string container(const Tree& tree) {
    const std::string n = std::to_string(tree.children.size());
    switch (tree.kind) {
    case Tree::Kind::Tuple:
        return "a tuple of " + n;
    case Tree::Kind::List:
        return "a list of " + n;
    case Tree::Kind::Dict:
        return "a dict of " + n;
    case Tree::Kind::Leaf:
        break;
    }
    return "one value";
}

// Walks `tree` and `v` together, appending leaves; false with `error` at the first misfit.
bool flatten(const Tree& tree, const c10::IValue& v, const std::string& path,
             std::vector<c10::IValue>& leaves, std::string& error) {
    if (tree.kind == Tree::Kind::Leaf) {
        leaves.push_back(v);
        return true;
    }
    auto misfit = [&] {
        error =
            path + " is " + describe(v) + " but the program takes " + container(tree) + " there";
        return false;
    };
    if (tree.kind == Tree::Kind::Dict) {
        if (!v.isGenericDict())
            return misfit();
        c10::impl::GenericDict dict = v.toGenericDict();
        for (std::size_t i = 0; i < tree.keys.size(); ++i) {
            c10::IValue key = tree.intKeys
                                  ? c10::IValue(static_cast<std::int64_t>(std::stoll(tree.keys[i])))
                                  : c10::IValue(tree.keys[i]);
            auto it = dict.find(key);
            const std::string at =
                path + "[" + (tree.intKeys ? tree.keys[i] : "'" + tree.keys[i] + "'") + "]";
            if (it == dict.end()) {
                error = at + " is missing: the program takes a dict with the keys it was "
                             "exported with";
                return false;
            }
            if (!flatten(tree.children[i], it->value(), at, leaves, error))
                return false;
        }
        return dict.size() == tree.keys.size() || misfit(); // no key it was not exported with
    }
    // pytree tells tuples and lists apart, as ep.module() does.
    const bool tuple = tree.kind == Tree::Kind::Tuple;
    if (tuple ? !v.isTuple() : !v.isList())
        return misfit();
    std::vector<c10::IValue> items = tuple ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    if (items.size() != tree.children.size())
        return misfit();
    for (std::size_t i = 0; i < items.size(); ++i)
        if (!flatten(tree.children[i], items[i], path + "[" + std::to_string(i) + "]", leaves,
                     error))
            return false;
    return true;
}

// Whether a given leaf equals the constant export specialised (Python's ==: 2 == 2.0).
bool sameConstant(const ExportedValue& c, const c10::IValue& v) {
    using K = ExportedValue::Kind;
    const bool number = v.isInt() || v.isDouble() || v.isBool();
    const double x = v.isInt()      ? static_cast<double>(v.toInt())
                     : v.isDouble() ? v.toDouble()
                     : v.isBool()   ? (v.toBool() ? 1.0 : 0.0)
                                    : 0.0;
    switch (c.kind) {
    case K::None:
        return v.isNone();
    case K::Int:
        return number && x == static_cast<double>(c.integer);
    case K::Float:
        return number && x == c.real;
    case K::Bool:
        return number && x == (c.boolean ? 1.0 : 0.0);
    case K::String:
        return v.isString() && v.toStringRef() == c.text;
    default:
        return true; // a kind ep.module()'s guard fxview does not check
    }
}

// The args and kwargs specs of the in_spec's root: (tuple(args), dict(kwargs)).
bool splitRoot(const Tree& root, const Tree*& args, const Tree*& kwargs) {
    if (root.kind != Tree::Kind::Tuple || root.children.size() != 2 ||
        root.children[0].kind != Tree::Kind::Tuple || root.children[1].kind != Tree::Kind::Dict)
        return false;
    args = &root.children[0];
    kwargs = &root.children[1];
    return true;
}

} // namespace

bool inputsNest(const ExportedProgram& program) {
    const Tree* args = nullptr;
    const Tree* kwargs = nullptr;
    if (!program.inputTree || !splitRoot(*program.inputTree, args, kwargs))
        return false;
    for (const ExportedInput& in : program.inputs)
        if (in.kind == ExportedInput::Kind::Constant)
            return true;
    for (const Tree& arg : args->children)
        if (arg.kind != Tree::Kind::Leaf)
            return true;
    return !kwargs->children.empty();
}

std::string flattenExportedInputs(const ExportedProgram& program, const c10::IValue& given,
                                  std::vector<c10::IValue>& userInputs) {
    const Tree* args = nullptr;
    const Tree* kwargs = nullptr;
    if (!program.inputTree || !splitRoot(*program.inputTree, args, kwargs))
        return "the program keeps no input spec fxview reads, so its inputs cannot be nested";
    std::vector<c10::IValue> leaves;
    std::string error;
    bool fits = false;
    if (!kwargs->children.empty()) {
        fits = flatten(*program.inputTree, given, "(args, kwargs)", leaves, error);
    } else {
        // One argument may come bare; several come as the tuple (or list) of them.
        c10::IValue all = given;
        if (args->children.size() == 1 &&
            !(given.isTuple() && given.toTupleRef().elements().size() == 1) &&
            !(given.isList() && given.toListRef().size() == 1))
            all = c10::ivalue::Tuple::create({given});
        else if (given.isList())
            all = c10::ivalue::Tuple::create(given.toListRef().vec());
        fits = flatten(*args, all, "args", leaves, error);
    }
    if (!fits) {
        // The user inputs themselves, flat and in the graph's order, as fxview.save writes them
        // (its positional arguments, then its keywords' values), fit too.
        std::size_t users = 0;
        for (const ExportedInput& in : program.inputs)
            users += in.kind == ExportedInput::Kind::UserInput;
        if ((given.isTuple() || given.isList()) &&
            (given.isTuple() ? given.toTupleRef().elements().size() : given.toListRef().size()) ==
                users) {
            std::vector<c10::IValue> flat =
                given.isTuple() ? given.toTupleRef().elements().vec() : given.toListRef().vec();
            if (std::all_of(flat.begin(), flat.end(), [](const c10::IValue& v) {
                    return !v.isTuple() && !v.isList() && !v.isGenericDict();
                })) {
                userInputs.insert(userInputs.end(), flat.begin(), flat.end());
                return {};
            }
        }
        return "The inputs do not fit the program: " + error +
               "; give what ep.module() takes: torch.save(tuple_of_args, path)" +
               (kwargs->children.empty() ? "" : ", or torch.save((args, kwargs), path)") +
               ", or the user inputs flat, in the graph's order.";
    }
    std::size_t next = 0;
    for (const ExportedInput& in : program.inputs) {
        using K = ExportedInput::Kind;
        if (in.kind != K::UserInput && in.kind != K::Constant)
            continue;
        if (next >= leaves.size())
            return "The program's input spec holds " + std::to_string(leaves.size()) +
                   " leaves but its graph more user inputs; export it again.";
        const c10::IValue& leaf = leaves[next++];
        if (in.kind == K::UserInput) {
            userInputs.push_back(leaf);
        } else if (!sameConstant(in.value, leaf)) {
            return "Input '" + in.name + "' is " + describe(leaf) +
                   " but the program was exported with " +
                   (in.value.kind == ExportedValue::Kind::String
                        ? "'" + in.value.text + "'"
                        : formatArgument(exportedArgument(in.value))) +
                   " there, a constant export specialised away (ep.module() refuses another); "
                   "give that value, or export again with the value as a tensor.";
        }
    }
    return {};
}

} // namespace fxview
