#include "NodeNamer.h"

#include <algorithm>
#include <cctype>

namespace fxview {

namespace {

// Python keywords, and names in builtins or torch.fx's own globals that generated code would
// shadow: torch.fx renames a node rather than let it hide them.
const std::set<std::string>& reservedNames() {
    static const std::set<std::string> names = {
        // keyword.kwlist
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
        // torch.fx's _custom_builtins
        "inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree",
        // builtins.__dict__ of Python 3.11
        "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
        "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning",
        "ChildProcessError", "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError",
        "ConnectionResetError", "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning",
        "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError",
        "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError",
        "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError",
        "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
        "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented",
        "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
        "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError",
        "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration",
        "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError",
        "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
        "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError",
        "Warning", "ZeroDivisionError", "__build_class__", "__debug__", "__doc__", "__import__",
        "__loader__", "__name__", "__package__", "__spec__", "abs", "aiter", "all", "anext", "any",
        "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
        "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
        "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset",
        "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance",
        "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min",
        "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr",
        "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
        "super", "tuple", "type", "vars", "zip"};
    return names;
}

bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// n + 1 of a decimal number without leading zeros.
std::string incremented(std::string n) {
    for (std::size_t i = n.size(); i-- > 0;) {
        if (n[i] != '9') {
            ++n[i];
            return n;
        }
        n[i] = '0';
    }
    return "1" + n;
}

} // namespace

std::string NodeNamer::snakeCase(const std::string& name) {
    // torch.fx.graph._snake_case: an underscore before a capital that follows a lower-case letter.
    std::string out;
    bool previousLower = false;
    for (char c : name) {
        auto u = static_cast<unsigned char>(c);
        if (previousLower && std::isupper(u))
            out += '_';
        out += static_cast<char>(std::tolower(u));
        previousLower = std::islower(u);
    }
    return out;
}

std::string NodeNamer::create(const std::string& candidate) {
    // _illegal_char_regex ("[^0-9a-zA-Z_]+"): a run of other characters becomes one '_'.
    std::string name;
    bool inRun = false;
    for (char c : candidate) {
        if (isIdentifierChar(c)) {
            name += c;
            inRun = false;
        } else if (!inRun) {
            name += '_';
            inRun = true;
        }
    }
    if (name.empty())
        name = "_unnamed";
    if (std::isdigit(static_cast<unsigned char>(name[0])))
        name = "_" + name;

    // _name_suffix_regex ("(.*)_(\\d+)$"): "add_1" is base "add" counting on from 1.
    std::string base = name;
    std::string num; // "" for none
    std::size_t underscore = name.rfind('_');
    if (underscore != std::string::npos && underscore + 1 < name.size() &&
        name.find_first_not_of("0123456789", underscore + 1) == std::string::npos) {
        base = name.substr(0, underscore);
        num = name.substr(underscore + 1);
        num.erase(0, std::min(num.find_first_not_of('0'), num.size() - 1)); // int("007") == 7
        name = base + "_" + num;
    }
    if (num.empty() || num == "0") { // `if not num: num = self._base_count[base]`
        auto it = baseCount_.find(base);
        num = it == baseCount_.end() ? "0" : it->second;
    }
    while (used_.count(name) || reservedNames().count(name)) {
        num = incremented(num);
        name = base + "_" + num;
    }
    used_.insert(name);
    baseCount_[base] = num;
    return name;
}

} // namespace fxview
