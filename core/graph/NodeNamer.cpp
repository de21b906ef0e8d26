#include "NodeNamer.h"

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
    std::string name;
    for (char c : candidate)
        name += isIdentifierChar(c) ? c : '_';
    if (name.empty())
        name = "_";
    if (std::isdigit(static_cast<unsigned char>(name[0])))
        name = "_" + name;

    // Split a numeric suffix so "add_1" counts on from 1, as torch.fx's _name_suffix_regex does.
    std::string base = name;
    long long num = 0;
    std::size_t underscore = name.rfind('_');
    if (underscore != std::string::npos && underscore + 1 < name.size() &&
        name.find_first_not_of("0123456789", underscore + 1) == std::string::npos) {
        base = name.substr(0, underscore);
        num = std::stoll(name.substr(underscore + 1));
        name = base + "_" + std::to_string(num);
    }

    while (used_.count(name) || reservedNames().count(name)) {
        ++num;
        name = base + "_" + std::to_string(num);
    }
    used_.insert(name);
    return name;
}

} // namespace fxview
