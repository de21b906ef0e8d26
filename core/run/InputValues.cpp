// Inputs of any signature: tensors, tuples and (nested) lists of them from torch.save files,
// integer tensors, and optional arguments left at their defaults.

#include "InputValues.h"

#include <cstdio>
#include <fstream>

#include <unistd.h>

#include "ModelPrivate.h"
#include "TorchValues.h"

#include <torch/csrc/jit/serialization/pickle.h>

namespace fxview {

namespace {

// An input bigger than half of this machine's memory is refused before it is made: randn would
// fill every page of it, and the allocator's refusal comes only past what the system can give.
std::string inputTooBig(const InputSpec& spec, c10::ScalarType type) {
    double bytes = static_cast<double>(c10::elementSize(type));
    for (std::int64_t d : spec.shape)
        bytes *= static_cast<double>(d);
    const double memory =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (bytes <= memory / 2)
        return {};
    char text[160];
    std::snprintf(text, sizeof text, "needs %.1f GiB, more than half of this machine's %.1f GiB",
                  bytes / (1 << 30), memory / (1 << 30));
    return "The input " + spec.text() + " " + text + "; choose a smaller shape.";
}

std::string randomInput(const InputSpec& spec, c10::IValue& value) {
    c10::ScalarType type = c10::ScalarType::Float;
    scalarTypeFromName(spec.dtype, type);
    if (std::string tooBig = inputTooBig(spec, type); !tooBig.empty())
        return tooBig;
    try {
        // Floats are torch.randn; integers are indices in [0, 10), as for an Embedding.
        value = at::isFloatingType(type) ? at::randn(spec.shape, at::TensorOptions(type))
                : type == c10::ScalarType::Bool
                    ? at::randint(0, 2, spec.shape).to(type)
                    : at::randint(0, 10, spec.shape, at::TensorOptions(type));
        return {};
    } catch (const std::exception& e) {
        return "Cannot make the input " + spec.text() + " (" + firstLineOf(e) +
               "); choose a smaller shape.";
    }
}

std::string fileInput(const std::string& file, c10::IValue& value) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return "Cannot read the input file '" + file + "'; check the path.";
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    try {
        value = torch::jit::pickle_load(bytes);
        return {};
    } catch (const std::exception& e) {
        return "Cannot read an input from '" + file + "' (" + firstLineOf(e) +
               "); save a tensor, or a tuple or list of the inputs, with torch.save(value, path).";
    }
}

// Python's pickles carry no element types: a saved [t1, t2] loads as a List[Any]. Rebuilt with
// the argument's own types where every item fits, as TorchScript's argument check would accept.
bool conform(c10::IValue& v, const c10::TypePtr& type) {
    if (type->kind() == c10::TypeKind::OptionalType) {
        if (v.isNone())
            return true;
        return conform(v, type->expectRef<c10::OptionalType>().getElementType());
    }
    if (type->kind() == c10::TypeKind::ListType && (v.isList() || v.isTuple())) {
        c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
        c10::impl::GenericList list(element);
        std::vector<c10::IValue> items =
            v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
        for (c10::IValue& item : items) {
            if (!conform(item, element))
                return false;
            list.push_back(std::move(item));
        }
        v = std::move(list);
        return true;
    }
    if (type->kind() == c10::TypeKind::TupleType && (v.isTuple() || v.isList())) {
        const auto& tuple = type->expectRef<c10::TupleType>();
        std::vector<c10::IValue> items =
            v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
        if (items.size() != tuple.elements().size())
            return false;
        for (std::size_t i = 0; i < items.size(); ++i)
            if (!conform(items[i], tuple.elements()[i]))
                return false;
        v = c10::ivalue::Tuple::create(std::move(items));
        return true;
    }
    return v.type()->isSubtypeOf(*c10::unshapedType(type));
}

// A tuple or list from a file is spread over the arguments unless the first argument takes it
// whole (a List[Tensor] argument given [t1, t2]).
bool spreads(const c10::IValue& v, const std::vector<PlaceholderSpec>& wanted) {
    if (!v.isTuple() && !v.isList())
        return false;
    c10::IValue whole = v;
    return wanted.empty() || !conform(whole, wanted[0].type);
}

// A .pt2 was exported for one shape, bar its dynamic dimensions' ranges: what
// torch.export.load(...).module() refuses (_check_input_constraints) is refused here too.
std::string exportedShapeError(const c10::IValue& v, const PlaceholderSpec& wanted) {
    if (!wanted.exportedSizes || !v.isTensor())
        return {};
    const std::vector<std::int64_t>& sizes = *wanted.exportedSizes;
    at::IntArrayRef got = v.toTensor().sizes();
    const std::string input = "Input '" + wanted.name + "'";
    if (got.size() != sizes.size())
        return input + " has " + std::to_string(got.size()) +
               " dimensions but the program was "
               "exported for " +
               std::to_string(sizes.size()) + "; give a shape like the example's.";
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        const std::string at = std::to_string(got[d]) + " at dimension " + std::to_string(d);
        if (sizes[d] >= 0 && got[d] != sizes[d])
            return input + " has " + at + " but the program was exported for " +
                   std::to_string(sizes[d]) + " there (not a dynamic dimension); give " +
                   std::to_string(sizes[d]) + ".";
        for (const PlaceholderSpec::DynamicDim& dyn : wanted.dynamicDims)
            if (dyn.dim == static_cast<int>(d) &&
                (got[d] < dyn.min || (dyn.max && got[d] > *dyn.max)))
                return input + " has " + at + " but the program was exported for " +
                       std::to_string(dyn.min) + " to " +
                       (dyn.max ? std::to_string(*dyn.max) : std::string("any size")) +
                       " there (its dynamic dimension " + dyn.symbol +
                       "); give a size in that range.";
    }
    return {};
}

std::string names(const std::vector<PlaceholderSpec>& wanted) {
    std::string out;
    for (std::size_t i = 0; i < wanted.size(); ++i)
        out += (i ? ", " : "") + wanted[i].name;
    return out;
}

} // namespace

std::string makeInputValues(const std::vector<InputSpec>& specs,
                            const std::vector<PlaceholderSpec>& wanted,
                            std::vector<c10::IValue>& made, const ExecutionPlan::Flatten& flatten) {
    std::vector<c10::IValue> values;
    for (const InputSpec& spec : specs) {
        c10::IValue v;
        std::size_t i = values.size();
        if (spec.example) {
            if (i >= wanted.size() || !wanted[i].example)
                return "This model has no example input" +
                       (i < wanted.size() ? " for '" + wanted[i].name + "'" : std::string()) +
                       " (only a .pt2 saves one); give a shape such as 1x3x224x224 instead.";
            values.push_back(*wanted[i].example);
            continue;
        }
        std::string error = spec.file.empty() ? randomInput(spec, v) : fileInput(spec.file, v);
        if (!error.empty())
            return error;
        if (!spec.file.empty() && specs.size() == 1 && flatten) {
            // What ep.module() takes, nested: its in_spec says which leaves are inputs.
            if (std::string misfit = flatten(v, values); !misfit.empty())
                return misfit;
            continue;
        }
        if (!spec.file.empty() && specs.size() == 1 && spreads(v, wanted)) {
            for (const c10::IValue& item :
                 v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec())
                values.push_back(item);
            continue;
        }
        values.push_back(std::move(v));
    }
    const std::string takes = "The model takes " + std::to_string(wanted.size()) + " input(s) (" +
                              names(wanted) + ") but " + std::to_string(values.size()) +
                              " were given";
    if (values.size() > wanted.size())
        return takes + "; pass one --input per input, or one file holding a tuple of them all.";
    for (std::size_t i = values.size(); i < wanted.size(); ++i) {
        if (!wanted[i].defaultValue)
            return takes + " and '" + wanted[i].name +
                   "' has no default; pass one --input per input.";
        values.push_back(*wanted[i].defaultValue);
    }
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        c10::IValue v = values[i];
        if (!conform(v, wanted[i].type))
            return "Input '" + wanted[i].name + "' must be a " +
                   c10::unshapedType(wanted[i].type)->annotation_str() + " but " +
                   (i < specs.size() && !specs[i].file.empty() ? "the file holds"
                                                               : "what was given is") +
                   " a " + values[i].type()->annotation_str() + "; give one of that type.";
        values[i] = std::move(v);
        if (std::string error = exportedShapeError(values[i], wanted[i]); !error.empty())
            return error;
    }
    made = std::move(values);
    return {};
}

bool specFromTracedType(const c10::TypePtr& type, InputSpec& spec) {
    auto tensor = type->cast<c10::TensorType>();
    if (!tensor)
        return false;
    auto sizes = tensor->sizes().concrete_sizes();
    if (!sizes || !tensor->scalarType())
        return false;
    spec = InputSpec();
    spec.shape = *sizes;
    spec.dtype = dtypeName(*tensor->scalarType());
    return true;
}

} // namespace fxview
