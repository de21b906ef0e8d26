#include "FxTargets.h"

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

} // namespace

FxCall fxCallFor(const std::string& ns, const std::string& name, bool operatorForm) {
    if (ns == "aten") {
        std::string base = name;
        bool inplace = base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_';
        if (inplace)
            base.pop_back();
        auto op = pythonOperators().find(base);
        if (operatorForm && op != pythonOperators().end())
            return {Op::CallFunction, "operator." + op->second, op->second};
        auto builtin = pythonBuiltins().find(name);
        if (builtin != pythonBuiltins().end())
            return {Op::CallFunction, "builtins." + builtin->second, builtin->second};
        if (functionalWrappers().count(name))
            return {Op::CallFunction, "torch.nn.functional." + name, name};
        if (nnBuiltins().count(name))
            return {Op::CallFunction, "torch._C._nn." + name, name};
        if (methodOnlyOps().count(name))
            return {Op::CallMethod, name, name};
        return {Op::CallFunction, "torch." + name, name};
    }
    if (ns == "prim") // TorchScript's own instructions: shown by their TorchScript name
        return {Op::CallFunction, "prim::" + name, name};
    return {Op::CallFunction, "torch.ops." + ns + "." + name, name};
}

std::string functionalName(const std::string& qualifiedName) {
    const std::string prefix = "__torch__.torch.nn.functional.";
    if (qualifiedName.rfind(prefix, 0) != 0)
        return {};
    std::string rest = qualifiedName.substr(prefix.size());
    return rest.find('.') == std::string::npos ? rest : std::string();
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
