#include "SymbolicOps.h"

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

namespace fxview {

namespace {

using IValue = c10::IValue;

double realOf(const IValue& v) {
    return v.isInt() ? static_cast<double>(v.toInt()) : v.isBool() ? v.toBool() : v.toDouble();
}

bool bothInts(const IValue& a, const IValue& b) {
    return (a.isInt() || a.isBool()) && (b.isInt() || b.isBool());
}

std::int64_t intOf(const IValue& v) {
    return v.isBool() ? v.toBool() : v.toInt();
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    if (b == 0)
        throw std::runtime_error("ZeroDivisionError: integer division or modulo by zero");
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

using Binary = std::function<IValue(const IValue&, const IValue&)>;

// An arithmetic op on two Python numbers: ints stay ints, anything else is a float.
Binary arithmetic(std::int64_t (*ints)(std::int64_t, std::int64_t),
                  double (*reals)(double, double)) {
    return [ints, reals](const IValue& a, const IValue& b) -> IValue {
        if (bothInts(a, b))
            return ints(intOf(a), intOf(b));
        return reals(realOf(a), realOf(b));
    };
}

Binary comparison(bool (*compare)(double, double)) {
    return [compare](const IValue& a, const IValue& b) -> IValue {
        if (bothInts(a, b)) // exact for ints beyond 2^53
            return compare(static_cast<double>(intOf(a) > intOf(b)) -
                               static_cast<double>(intOf(a) < intOf(b)),
                           0.0);
        return compare(realOf(a), realOf(b));
    };
}

const std::map<std::string, Binary>& binaries() {
    static const std::map<std::string, Binary> ops = {
        {"mul", arithmetic([](std::int64_t a, std::int64_t b) { return a * b; },
                           [](double a, double b) { return a * b; })},
        {"add", arithmetic([](std::int64_t a, std::int64_t b) { return a + b; },
                           [](double a, double b) { return a + b; })},
        {"sub", arithmetic([](std::int64_t a, std::int64_t b) { return a - b; },
                           [](double a, double b) { return a - b; })},
        {"floordiv", arithmetic(floorDiv, [](double a, double b) { return std::floor(a / b); })},
        {"mod", arithmetic([](std::int64_t a, std::int64_t b) { return a - floorDiv(a, b) * b; },
                           [](double a, double b) { return a - std::floor(a / b) * b; })},
        // int ** int stays an int only for a non-negative exponent (2 ** -1 is 0.5).
        {"pow",
         [](const IValue& a, const IValue& b) -> IValue {
             if (!bothInts(a, b) || intOf(b) < 0)
                 return std::pow(realOf(a), realOf(b));
             // Square and multiply: a graph's exponent may be huge. Past 64 bits (Python's ints
             // go on) the float power is as near as plain data gets.
             std::int64_t r = 1, base = intOf(a);
             for (std::int64_t e = intOf(b); e > 0; e >>= 1) {
                 if ((e & 1) && __builtin_mul_overflow(r, base, &r))
                     return std::pow(realOf(a), realOf(b));
                 if (e > 1 && __builtin_mul_overflow(base, base, &base))
                     return std::pow(realOf(a), realOf(b));
             }
             return r;
         }},
        {"truediv",
         [](const IValue& a, const IValue& b) -> IValue { return realOf(a) / realOf(b); }},
        {"eq", comparison([](double a, double b) { return a == b; })},
        {"ne", comparison([](double a, double b) { return a != b; })},
        {"le", comparison([](double a, double b) { return a <= b; })},
        {"ge", comparison([](double a, double b) { return a >= b; })},
        {"lt", comparison([](double a, double b) { return a < b; })},
        {"gt", comparison([](double a, double b) { return a > b; })},
        {"sym_max",
         [](const IValue& a, const IValue& b) -> IValue { return realOf(a) >= realOf(b) ? a : b; }},
        {"sym_min",
         [](const IValue& a, const IValue& b) -> IValue { return realOf(a) <= realOf(b) ? a : b; }},
    };
    return ops;
}

IValue unary(const std::string& name, const IValue& a) {
    if (name == "neg")
        return a.isDouble() ? IValue(-a.toDouble()) : IValue(-intOf(a));
    if (name == "pos")
        return a;
    if (name == "sym_not")
        return !a.toBool();
    if (name == "sym_int")
        return a.isDouble() ? static_cast<std::int64_t>(std::trunc(a.toDouble())) : intOf(a);
    if (name == "sym_float")
        return realOf(a);
    if (name == "sym_sqrt")
        return std::sqrt(realOf(a));
    throw std::runtime_error(name + " is not a symbolic function fxview knows");
}

std::string functionOf(const std::string& target) {
    for (const char* module : {"_operator.", "operator.", "torch."})
        if (target.rfind(module, 0) == 0)
            return target.substr(std::string(module).size());
    return {};
}

} // namespace

std::optional<torch::jit::Operation> symbolicOperation(const std::string& target, int arity) {
    std::string name = functionOf(target);
    bool python = target.rfind("_operator.", 0) == 0 || target.rfind("operator.", 0) == 0;
    bool sym = target.rfind("torch.sym_", 0) == 0;
    if (!python && !sym)
        return std::nullopt;
    if (arity == 2 && binaries().count(name)) {
        Binary op = binaries().at(name);
        return torch::jit::Operation([op](torch::jit::Stack& stack) {
            IValue b = stack.back();
            stack.pop_back();
            IValue a = stack.back();
            stack.back() = op(a, b);
        });
    }
    if (arity == 3 && name == "sym_ite")
        return torch::jit::Operation([](torch::jit::Stack& stack) {
            IValue otherwise = stack.back();
            stack.pop_back();
            IValue then = stack.back();
            stack.pop_back();
            stack.back() = stack.back().toBool() ? then : otherwise;
        });
    if (arity == 1 && name != "sym_ite" && !binaries().count(name))
        return torch::jit::Operation(
            [name](torch::jit::Stack& stack) { stack.back() = unary(name, stack.back()); });
    return std::nullopt;
}

std::string symbolicTargetName(const std::string& target) {
    return target.rfind("_operator.", 0) == 0 ? target.substr(1) : target;
}

} // namespace fxview
