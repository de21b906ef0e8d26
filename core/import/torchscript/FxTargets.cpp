#include "FxTargets.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace fxview {

namespace {

// aten ops that Python code reaches through an operator; in-place forms come from `x += y`,
// which torch.fx records as the plain operator because Proxy has no __iadd__.
const std::map<std::string, std::string>& pythonOperators() {
    static const std::map<std::string, std::string> table = {
        {"add", "add"},
        {"sub", "sub"},
        {"mul", "mul"},
        {"div", "truediv"},
        {"floordiv", "floordiv"},
        {"remainder", "mod"},
        {"pow", "pow"},
        {"matmul", "matmul"},
        {"neg", "neg"},
        {"eq", "eq"},
        {"ne", "ne"},
        {"lt", "lt"},
        {"le", "le"},
        {"gt", "gt"},
        {"ge", "ge"},
        {"__getitem__", "getitem"},
        {"__and__", "and_"},
        {"__or__", "or_"},
        {"__xor__", "xor"},
        {"__not__", "not_"},
        {"__is__", "is_"},
        {"__isnot__", "is_not"},
        {"__contains__", "contains"},
        {"bitwise_not", "invert"},
        {"mod", "mod"},
    };
    return table;
}

// How torch.fx 2.6 prints the ops of torch._C._nn. Where torch.nn.functional.X is a Python
// function (it wraps the op), torch.fx records torch.nn.functional.X; where torch.nn.functional.X
// *is* the C builtin (F.linear, F.gelu, F.scaled_dot_product_attention), or Python reaches the
// op only as torch._C._nn.X, Node._pretty_print_target names its module: torch._C._nn.X.
// Read off PyTorch 2.6 (dir(torch._C._nn) against torch.nn.functional).
const std::set<std::string>& functionalWrappers() {
    static const std::set<std::string> ops = {"adaptive_avg_pool2d",
                                              "adaptive_avg_pool3d",
                                              "adaptive_max_pool2d",
                                              "adaptive_max_pool3d",
                                              "binary_cross_entropy",
                                              "elu",
                                              "fractional_max_pool2d",
                                              "fractional_max_pool3d",
                                              "glu",
                                              "hardsigmoid",
                                              "hardswish",
                                              "hardtanh",
                                              "huber_loss",
                                              "l1_loss",
                                              "leaky_relu",
                                              "max_pool2d_with_indices",
                                              "max_pool3d_with_indices",
                                              "max_unpool2d",
                                              "max_unpool3d",
                                              "mish",
                                              "mse_loss",
                                              "multi_margin_loss",
                                              "multilabel_margin_loss",
                                              "nll_loss",
                                              "pad",
                                              "relu6",
                                              "silu",
                                              "smooth_l1_loss",
                                              "soft_margin_loss"};
    return ops;
}

const std::set<std::string>& nnBuiltins() {
    static const std::set<std::string> ops = {
        // torch.nn.functional.X is torch._C._nn.X
        "avg_pool2d", "avg_pool3d", "elu_", "gelu", "hardtanh_", "leaky_relu_", "linear", "one_hot",
        "scaled_dot_product_attention", "softplus", "softshrink",
        // only in torch._C._nn (what F.interpolate, F.cross_entropy and the in-place
        // activations call)
        "col2im", "cross_entropy_loss", "gelu_", "hardsigmoid_", "hardswish_", "im2col",
        "log_sigmoid", "mish_", "nll_loss2d", "nll_loss_nd", "reflection_pad1d", "reflection_pad2d",
        "reflection_pad3d", "relu6_", "replication_pad1d", "replication_pad2d", "replication_pad3d",
        "silu_", "upsample_bicubic2d", "upsample_bilinear2d", "upsample_linear1d",
        "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "upsample_trilinear3d"};
    return ops;
}

// Tensor methods with no torch.X function: torch.fx records them as call_method.
const std::set<std::string>& methodOnlyOps() {
    static const std::set<std::string> ops = {
        "view",    "view_as",       "size",         "contiguous", "expand",   "expand_as",
        "type_as", "repeat",        "new_zeros",    "new_ones",   "new_full", "new_empty",
        "to",      "cpu",           "cuda",         "float",      "double",   "half",
        "long",    "int",           "bool",         "item",       "dim",      "tolist",
        "stride",  "is_contiguous", "element_size", "unfold",     "fill_",    "zero_",
        "copy_",   "masked_fill_",  "index_put_",   "reshape_as", "bfloat16", "byte",
        "char",    "short",         "data_ptr",     "numpy"};
    return ops;
}

// Python builtins that TorchScript compiles to aten ops: int(x), float(x), len(xs)...
const std::map<std::string, std::string>& pythonBuiltins() {
    static const std::map<std::string, std::string> table = {
        {"Int", "int"}, {"Float", "float"}, {"Bool", "bool"},           {"len", "len"},
        {"str", "str"}, {"abs", "abs"},     {"ScalarImplicit", "float"}};
    return table;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    std::string part;
    while (std::getline(in, part, sep))
        parts.push_back(part);
    return parts;
}

bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A dotted name of Python modules that hold torch's functions: torch, torch.nn.functional, F...
// (a Tensor-valued receiver is anything else: x, self.w, f(x), x[0], (a + b)).
bool isModulePath(const std::string& receiver) {
    static const std::set<std::string> roots = {"torch", "F", "nn", "math", "operator"};
    std::vector<std::string> parts = split(receiver, '.');
    if (parts.empty() || !roots.count(parts[0]))
        return false;
    for (const std::string& part : parts)
        if (part.empty() || !std::all_of(part.begin(), part.end(), isIdentifierChar))
            return false;
    return true;
}

} // namespace

Spelling spellingOf(const std::string& callText, const std::string& name) {
    // TorchScript's range for a call covers its callee (`x.mean`, `torch.mean`); a whole call
    // (`f(x).mean(1)`) has its last argument list dropped first.
    std::size_t end = callText.find_last_not_of(" \t\n");
    if (end == std::string::npos)
        return Spelling::Unknown;
    std::size_t calleeEnd = end;
    if (callText[end] == ')') {
        int depth = 0;
        std::size_t open = std::string::npos;
        for (std::size_t i = end + 1; i-- > 0;) {
            char c = callText[i];
            depth += c == ')' || c == ']' ? 1 : c == '(' || c == '[' ? -1 : 0;
            if (depth == 0) {
                open = i;
                break;
            }
        }
        if (open == std::string::npos || open == 0 || callText[open] != '(')
            return Spelling::Unknown;
        calleeEnd = callText.find_last_not_of(" \t\n", open - 1);
        if (calleeEnd == std::string::npos)
            return Spelling::Unknown;
    }
    std::size_t start = calleeEnd + 1;
    while (start > 0 && isIdentifierChar(callText[start - 1]))
        --start;
    if (callText.compare(start, calleeEnd + 1 - start, name) != 0 ||
        calleeEnd + 1 - start != name.size())
        return Spelling::Unknown;
    if (start == 0 || callText[start - 1] != '.')
        return Spelling::Function; // a bare name: `from torch import flatten`
    std::size_t receiverStart = callText.find_first_not_of(" \t\n");
    std::string receiver = callText.substr(receiverStart, start - 1 - receiverStart);
    // `x + torch.add(a, b)` is the outer add's text too: a receiver is one primary expression.
    int depth = 0;
    for (char c : receiver) {
        depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
        if (depth == 0 && std::strchr(" \t\n+-*/%@<>=!&|^~,:", c))
            return Spelling::Unknown;
    }
    return isModulePath(receiver) ? Spelling::Function : Spelling::Method;
}

Spelling spellingInLine(const std::string& line, const std::string& name) {
    Spelling found = Spelling::Unknown;
    for (std::size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
        std::size_t after = line.find_first_not_of(' ', at + name.size());
        if ((at > 0 && isIdentifierChar(line[at - 1])) || after == std::string::npos ||
            line[after] != '(')
            continue;
        // The receiver: identifiers, dots and bracketed groups back from the dot.
        std::size_t start = at;
        if (at > 0 && line[at - 1] == '.') {
            start = at - 1;
            while (start > 0) {
                char c = line[start - 1];
                if (isIdentifierChar(c) || c == '.') {
                    --start;
                } else if (c == ')' || c == ']') {
                    int depth = 0;
                    while (start > 0) {
                        char d = line[--start];
                        depth += d == ')' || d == ']' ? 1 : d == '(' || d == '[' ? -1 : 0;
                        if (depth == 0)
                            break;
                    }
                } else {
                    break;
                }
            }
        }
        if (line.compare(start, 4, "def ") == 0 ||
            (start >= 4 && line.compare(start - 4, 4, "def ") == 0))
            continue;
        Spelling here = spellingOf(line.substr(start, at + name.size() - start), name);
        if (here == Spelling::Unknown || (found != Spelling::Unknown && here != found))
            return Spelling::Unknown;
        found = here;
    }
    const bool inplace = name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_';
    if (found == Spelling::Unknown && inplace) {
        const std::string base = name.substr(0, name.size() - 1);
        for (const char* module : {"F.", "torch.nn.functional.", "nn.functional."})
            for (std::size_t at = line.find(module + base); at != std::string::npos;
                 at = line.find(module + base, at + 1)) {
                std::size_t after = at + std::strlen(module) + base.size();
                bool call = line.find_first_not_of(' ', after) != std::string::npos &&
                            line[line.find_first_not_of(' ', after)] == '(';
                if (call && (at == 0 || !isIdentifierChar(line[at - 1]) || line[at - 1] == '.'))
                    return Spelling::Functional;
            }
    }
    return found;
}

FxCall fxCallFor(const std::string& ns, const std::string& name, bool operatorForm,
                 Spelling spelling) {
    if (ns == "aten") {
        std::string base = name;
        bool inplace = base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_';
        if (inplace)
            base.pop_back();
        auto op = pythonOperators().find(base);
        if (operatorForm && op != pythonOperators().end() && spelling == Spelling::Unknown)
            return {Op::CallFunction, "operator." + op->second, op->second};
        if (spelling == Spelling::Method) // as written: x.mean(1), x.relu_()
            return {Op::CallMethod, name, name};
        if (spelling == Spelling::Functional) // F.layer_norm(...), F.relu(x, inplace=True)
            return {Op::CallFunction,
                    (nnBuiltins().count(base) ? "torch._C._nn." : "torch.nn.functional.") + base,
                    base};
        auto builtin = pythonBuiltins().find(name);
        if (builtin != pythonBuiltins().end())
            return {Op::CallFunction, "builtins." + builtin->second, builtin->second};
        if (functionalWrappers().count(name))
            return {Op::CallFunction, "torch.nn.functional." + name, name};
        if (nnBuiltins().count(name))
            return {Op::CallFunction, "torch._C._nn." + name, name};
        if (methodOnlyOps().count(name) && spelling != Spelling::Function)
            return {Op::CallMethod, name, name};
        return {Op::CallFunction, "torch." + name, name};
    }
    if (ns == "prim" && name == "TupleIndex") // `f(x)[0]` on a tuple a call returned
        return {Op::CallFunction, "operator.getitem", "getitem"};
    if (ns == "prim") // TorchScript's own instructions: shown by their TorchScript name
        return {Op::CallFunction, "prim::" + name, name};
    return {Op::CallFunction, "torch.ops." + ns + "." + name, name};
}

const std::vector<std::string>& aliasesOf(const std::string& op) {
    // torch/csrc/jit/passes/normalize_ops.cpp (PyTorch 2.6), the torch.X and Tensor.X names
    // among its aliases (torch.special's are not here: torch.fx names those torch.special.X).
    static const std::map<std::string, std::vector<std::string>> aliases = [] {
        const std::vector<std::pair<const char*, const char*>> renamed = {
            {"absolute", "abs"},       {"clip", "clamp"},
            {"arccos", "acos"},        {"arcsin", "asin"},
            {"arctan", "atan"},        {"arctan2", "atan2"},
            {"arccosh", "acosh"},      {"arcsinh", "asinh"},
            {"arctanh", "atanh"},      {"fix", "trunc"},
            {"negative", "neg"},       {"subtract", "sub"},
            {"greater_equal", "ge"},   {"greater", "gt"},
            {"less_equal", "le"},      {"less", "lt"},
            {"not_equal", "ne"},       {"divide", "div"},
            {"multiply", "mul"},       {"true_divide", "div"},
            {"concat", "cat"},         {"concatenate", "cat"},
            {"row_stack", "vstack"},   {"swapdims", "transpose"},
            {"swapaxes", "transpose"}, {"moveaxis", "movedim"},
            {"ger", "outer"},          {"det", "linalg_det"},
            {"inverse", "linalg_inv"}, {"matrix_power", "linalg_matrix_power"}};
        const std::set<std::string> inPlace = {
            "absolute",      "clip",        "arccos",     "arcsin",  "arctan",    "arctan2",
            "arccosh",       "arcsinh",     "arctanh",    "fix",     "negative",  "subtract",
            "greater_equal", "greater",     "less_equal", "less",    "not_equal", "divide",
            "multiply",      "true_divide", "swapdims",   "swapaxes"};
        std::map<std::string, std::vector<std::string>> table;
        for (const auto& [alias, op] : renamed) {
            table[op].push_back(alias);
            if (inPlace.count(alias))
                table[std::string(op) + "_"].push_back(std::string(alias) + "_");
        }
        return table;
    }();
    static const std::vector<std::string> none;
    auto it = aliases.find(op);
    return it == aliases.end() ? none : it->second;
}

std::string functionalName(const std::string& qualifiedName) {
    // Without __torch__ and the mangling TorchScript adds where a function was compiled twice
    // (F.interpolate called with other argument types: functional.___torch_mangle_1).
    const std::string python = pythonClassName(qualifiedName);
    const std::string prefix = "torch.nn.functional.";
    if (python.rfind(prefix, 0) != 0)
        return {};
    std::string rest = python.substr(prefix.size());
    if (rest.find('.') != std::string::npos)
        return {};
    // F.max_pool2d and its kin are boolean_dispatch objects named after the public function;
    // TorchScript compiles the branch taken (_max_pool2d), torch.fx records the name called.
    static const std::set<std::string> dispatched = {"_max_pool1d",
                                                     "_max_pool2d",
                                                     "_max_pool3d",
                                                     "_adaptive_max_pool1d",
                                                     "_adaptive_max_pool2d",
                                                     "_adaptive_max_pool3d",
                                                     "_fractional_max_pool2d",
                                                     "_fractional_max_pool3d"};
    return dispatched.count(rest) ? rest.substr(1) : rest;
}

std::string fxWrappedFunction(const std::string& qualifiedName) {
    // Every torch.fx.wrap in torchvision 0.21 (grep "fx.wrap" in its sources; torchaudio 2.6
    // has none). wrap() registers a name in its module's globals, so the module path is the
    // function's own.
    static const std::set<std::string> wrapped = {
        "torchvision.ops.drop_block.drop_block2d",
        "torchvision.ops.drop_block.drop_block3d",
        "torchvision.ops.poolers._filter_input",
        "torchvision.ops.poolers._multiscale_roi_align",
        "torchvision.ops.poolers._setup_scales",
        "torchvision.ops.ps_roi_align.ps_roi_align",
        "torchvision.ops.ps_roi_pool.ps_roi_pool",
        "torchvision.ops.roi_align.roi_align",
        "torchvision.ops.roi_pool.roi_pool",
        "torchvision.ops.stochastic_depth.stochastic_depth",
        "torchvision.models.swin_transformer._get_relative_position_bias",
        "torchvision.models.swin_transformer._patch_merging_pad",
        "torchvision.models.swin_transformer.shifted_window_attention",
        "torchvision.models.video.mvit._add_rel_pos",
        "torchvision.models.video.mvit._add_shortcut",
        "torchvision.models.video.mvit._squeeze",
        "torchvision.models.video.mvit._unsqueeze",
        "torchvision.models.video.swin_transformer._compute_attention_mask_3d",
        "torchvision.models.video.swin_transformer._compute_pad_size_3d",
        "torchvision.models.video.swin_transformer._get_relative_position_bias",
        "torchvision.models.video.swin_transformer._get_window_and_shift_size",
        "torchvision.models.video.swin_transformer.shifted_window_attention_3d",
    };
    std::string python = pythonClassName(qualifiedName); // drops __torch__ and mangling
    return wrapped.count(python) ? python : std::string();
}

std::string pythonClassName(const std::string& torchScriptClass) {
    std::string out;
    for (const std::string& part : split(torchScriptClass, '.')) {
        if (part == "__torch__" || part.rfind("___torch_mangle_", 0) == 0)
            continue;
        out += (out.empty() ? "" : ".") + part;
    }
    return out;
}

std::string publicClassName(const std::string& pythonClass) {
    const std::string prefix = "torch.nn.modules.";
    if (pythonClass.rfind(prefix, 0) != 0)
        return pythonClass;
    return "torch.nn." + pythonClass.substr(pythonClass.rfind('.') + 1);
}

bool isLeafModuleClass(const std::string& pythonClass) {
    static const std::set<std::string> containers = {"Sequential", "ModuleList", "ModuleDict",
                                                     "ParameterList", "ParameterDict"};
    bool torchNn =
        pythonClass.rfind("torch.nn.", 0) == 0 || pythonClass.rfind("torch.ao.nn.", 0) == 0;
    std::string shortName = pythonClass.substr(pythonClass.rfind('.') + 1);
    return torchNn && !containers.count(shortName);
}

} // namespace fxview
