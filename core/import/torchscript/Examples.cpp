// The built-in examples, written as TorchScript source and compiled by LibTorch, with parameters
// initialised the way torch.nn does it, so that after the same seed they equal PyTorch's exactly.

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "ExampleModules.h"
#include "Examples.h"
#include "ModelPrivate.h"

namespace fxview {

namespace {

using torch::jit::Module;

// One CompilationUnit per example, with PyTorch's class names: a second class of the same name
// is mangled (___torch_mangle_N) exactly as torch.jit.script does.
class ModuleFactory {
public:
    // Parameters and submodules must be registered before `forward` that uses them is
    // compiled, so the caller calls define() last. Without Python's resolver a submodule is not
    // callable, so sources call `self.sub.forward(x)`: the same prim::CallMethod either way.
    Module create(const std::string& qualifiedClass) {
        Module m(c10::QualifiedName(qualifiedClass), cu_, /*shouldMangle=*/true);
        m.register_attribute("training", c10::BoolType::get(), false);
        return m;
    }

    Module makeParent(const std::string& qualifiedClass,
                      const std::vector<std::pair<std::string, Module>>& children,
                      const std::string& forwardSource) {
        Module m = create(qualifiedClass);
        for (const auto& [name, child] : children)
            m.register_module(name, child);
        m.define(forwardSource);
        return m;
    }

private:
    std::shared_ptr<torch::jit::CompilationUnit> cu_ =
        std::make_shared<torch::jit::CompilationUnit>();
};

// torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5)) followed by the bias init of Linear/Conv:
// the same double arithmetic and the same order of draws from the generator as PyTorch.
void initLikeTorchNn(at::Tensor& weight, at::Tensor& bias, std::int64_t fanIn) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1 + std::pow(a, 2)));
    const double std = gain / std::sqrt(static_cast<double>(fanIn));
    const double bound = std::sqrt(3.0) * std;
    weight.uniform_(-bound, bound);
    const double biasBound = fanIn > 0 ? 1 / std::sqrt(static_cast<double>(fanIn)) : 0;
    bias.uniform_(-biasBound, biasBound);
}

Module linear(ModuleFactory& f, std::int64_t in, std::int64_t out) {
    at::Tensor weight = at::empty({out, in});
    at::Tensor bias = at::empty({out});
    initLikeTorchNn(weight, bias, in);
    Module m = f.create("__torch__.torch.nn.modules.linear.Linear");
    m.register_parameter("weight", weight.requires_grad_(), false);
    m.register_parameter("bias", bias.requires_grad_(), false);
    m.define("def forward(self, input: Tensor) -> Tensor:\n"
             "    return torch.linear(input, self.weight, self.bias)\n");
    return m;
}

Module conv2d(ModuleFactory& f, std::int64_t in, std::int64_t out, int kernel, int stride,
              int padding) {
    at::Tensor weight = at::empty({out, in, kernel, kernel});
    at::Tensor bias = at::empty({out});
    initLikeTorchNn(weight, bias, in * kernel * kernel);
    // stride/padding are constants of the module in PyTorch too (Conv2d.__constants__).
    std::string s = std::to_string(stride), p = std::to_string(padding);
    Module m = f.create("__torch__.torch.nn.modules.conv.Conv2d");
    m.register_parameter("weight", weight.requires_grad_(), false);
    m.register_parameter("bias", bias.requires_grad_(), false);
    m.define("def forward(self, input: Tensor) -> Tensor:\n"
             "    return torch.conv2d(input, self.weight, self.bias, [" +
             s + ", " + s + "], [" + p + ", " + p + "], [1, 1], 1)\n");
    return m;
}

Module batchNorm2d(ModuleFactory& f, std::int64_t channels) {
    Module m = f.create("__torch__.torch.nn.modules.batchnorm.BatchNorm2d");
    m.register_parameter("weight", at::ones({channels}).requires_grad_(), false);
    m.register_parameter("bias", at::zeros({channels}).requires_grad_(), false);
    m.register_buffer("running_mean", at::zeros({channels}));
    m.register_buffer("running_var", at::ones({channels}));
    m.register_buffer("num_batches_tracked", at::zeros({}, at::kLong));
    m.define("def forward(self, input: Tensor) -> Tensor:\n"
             "    return torch.batch_norm(input, self.weight, self.bias, "
             "self.running_mean, self.running_var, self.training, 0.1, 1e-05, True)\n");
    return m;
}

Module relu(ModuleFactory& f) {
    Module m = f.create("__torch__.torch.nn.modules.activation.ReLU");
    m.define("def forward(self, input: Tensor) -> Tensor:\n"
             "    return torch.relu(input)\n");
    return m;
}

Module adaptiveAvgPool2d(ModuleFactory& f) {
    Module m = f.create("__torch__.torch.nn.modules.pooling.AdaptiveAvgPool2d");
    m.define("def forward(self, input: Tensor) -> Tensor:\n"
             "    return torch.adaptive_avg_pool2d(input, [1, 1])\n");
    return m;
}

// The seed model: fc1 = Linear(4, 8), relu, fc2 = Linear(8, 2).
Module tinyNet() {
    ModuleFactory f;
    Module fc1 = linear(f, 4, 8);
    Module fc2 = linear(f, 8, 2);
    return f.makeParent("__torch__.TinyNet", {{"fc1", fc1}, {"fc2", fc2}},
                        "def forward(self, x):\n"
                        "    x = self.fc1.forward(x)\n"
                        "    x = torch.relu(x)\n"
                        "    x = self.fc2.forward(x)\n"
                        "    return x\n");
}

// Control flow that depends on the data: an `if` on the sign of a sum and a loop counted by a
// shape (a constant range would be unrolled, as Python unrolls it for torch.fx), and an input
// check that raises, as scripted code often has (hidden in the fx view).
Module branchy() {
    ModuleFactory f;
    Module fc = linear(f, 4, 4);
    Module head = linear(f, 4, 2);
    return f.makeParent("__torch__.Branchy", {{"fc", fc}, {"head", head}},
                        "def forward(self, x):\n"
                        "    assert x.dim() == 2, 'expected a 2-D input [batch, 4]'\n"
                        "    h = self.fc.forward(x)\n"
                        "    if bool(h.sum() > 0):\n"
                        "        h = torch.relu(h)\n"
                        "    else:\n"
                        "        h = -h\n"
                        "    for i in range(h.size(1) - 1):\n"
                        "        h = torch.tanh(h) * 0.5 + h\n"
                        "    return self.head.forward(h)\n");
}

Module residualBlock(ModuleFactory& f, std::int64_t channels) {
    Module conv1 = conv2d(f, channels, channels, 3, 1, 1);
    Module bn1 = batchNorm2d(f, channels);
    Module conv2 = conv2d(f, channels, channels, 3, 1, 1);
    Module bn2 = batchNorm2d(f, channels);
    return f.makeParent(
        "__torch__.ResidualBlock",
        {{"conv1", conv1}, {"bn1", bn1}, {"relu", relu(f)}, {"conv2", conv2}, {"bn2", bn2}},
        "def forward(self, x):\n"
        "    out = self.relu.forward(self.bn1.forward(self.conv1.forward(x)))\n"
        "    out = self.bn2.forward(self.conv2.forward(out))\n"
        "    out = out + x\n"
        "    return self.relu.forward(out)\n");
}

// Conv/BatchNorm/ReLU blocks, a residual add inside a nested module, a pool and a Linear head.
Module smallCnn() {
    ModuleFactory f;
    Module stemConv = conv2d(f, 3, 16, 3, 1, 1);
    Module stemBn = batchNorm2d(f, 16);
    Module act = relu(f);
    Module block = residualBlock(f, 16);
    Module downConv = conv2d(f, 16, 32, 3, 2, 1);
    Module downBn = batchNorm2d(f, 32);
    Module pool = adaptiveAvgPool2d(f);
    Module fc = linear(f, 32, 10);
    return f.makeParent(
        "__torch__.SmallCNN",
        {{"stem_conv", stemConv},
         {"stem_bn", stemBn},
         {"relu", act},
         {"block", block},
         {"down_conv", downConv},
         {"down_bn", downBn},
         {"pool", pool},
         {"fc", fc}},
        "def forward(self, x):\n"
        "    x = self.relu.forward(self.stem_bn.forward(self.stem_conv.forward(x)))\n"
        "    x = self.block.forward(x)\n"
        "    x = self.relu.forward(self.down_bn.forward(self.down_conv.forward(x)))\n"
        "    x = self.pool.forward(x)\n"
        "    x = torch.flatten(x, 1)\n"
        "    return self.fc.forward(x)\n");
}

const std::map<std::string, std::function<Module()>>& builders() {
    static const std::map<std::string, std::function<Module()>> table = {
        {"tinynet", tinyNet}, {"branchy", branchy}, {"smallcnn", smallCnn}};
    return table;
}

} // namespace

Module buildExample(const std::string& name) {
    auto it = builders().find(name);
    if (it == builders().end())
        throw std::invalid_argument(name);
    // Every example starts from torch.manual_seed(0), as its PyTorch counterpart would.
    at::manual_seed(0);
    Module m = it->second();
    m.eval();
    return m;
}

} // namespace fxview
