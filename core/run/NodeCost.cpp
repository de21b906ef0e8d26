// What a node's run costs (NodeCost.h): storages, aliasing and FLOPs. The FLOP formulas are
// torch/utils/flop_counter.py's (mm_flop, bmm_flop, conv_flop_count, sdpa_flop_count), applied
// to the kernels ATen runs for the operator: FlopCounterMode sees those kernels, not the
// composite op a graph names (linear is an addmm, matmul an mm, a bmm or an uncounted mv).

#include "NodeCost.h"

#include <functional>

#include <ATen/ExpandUtils.h>
#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>

#include "Graph.h"
#include "RunRecord.h"

namespace fxview {

namespace {

void forEachTensor(const c10::IValue& value, const std::function<void(const at::Tensor&)>& visit) {
    if (value.isTensor()) {
        if (value.toTensor().defined())
            visit(value.toTensor());
    } else if (value.isTuple()) {
        for (const c10::IValue& item : value.toTupleRef().elements())
            forEachTensor(item, visit);
    } else if (value.isList()) {
        for (const c10::IValue& item : value.toListRef())
            forEachTensor(item, visit);
    } else if (value.isGenericDict()) {
        for (const auto& item : value.toGenericDict())
            forEachTensor(item.value(), visit);
    }
}

// A sparse or nested tensor has no single storage: it holds none fxview can count.
bool hasStorage(const at::Tensor& t) {
    return t.layout() == c10::kStrided && t.has_storage();
}

std::int64_t product(c10::IntArrayRef sizes, std::size_t from = 0, std::size_t to = SIZE_MAX) {
    std::int64_t p = 1;
    for (std::size_t i = from; i < sizes.size() && i < to; ++i)
        p *= sizes[i];
    return p;
}

const at::Tensor* tensorAt(const torch::jit::Stack& operands, std::size_t i) {
    if (i >= operands.size() || !operands[i].isTensor() || !operands[i].toTensor().defined())
        return nullptr;
    return &operands[i].toTensor();
}

// The operator a node names, without namespace and overload: "linear" for aten::linear.default,
// torch.ops.aten.linear.default, torch._C._nn.linear and call_method linear.
std::string operatorName(const Node& node) {
    std::string name = node.schema.empty() ? node.target : node.schema;
    if (auto colons = name.find("::"); colons != std::string::npos)
        return name.substr(colons + 2, name.find('.', colons) - colons - 2);
    if (name.rfind("torch.ops.", 0) == 0) {
        std::size_t ns = name.find('.', 10), end = name.find('.', ns + 1);
        return name.substr(0, ns) == "torch.ops.aten" ? name.substr(ns + 1, end - ns - 1) : "";
    }
    return name.substr(name.rfind('.') + 1);
}

// flop_counter's mm_flop and bmm_flop: 2 * m * k * n per matrix product.
std::int64_t matrixProducts(std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n) {
    return 2 * batch * m * k * n;
}

// at::native's should_fold (LinearAlgebra.cpp): a matmul folded into one mm or mv.
bool matmulFolds(const at::Tensor& a, const at::Tensor& b) {
    const bool aLarger = a.dim() >= b.dim();
    const at::Tensor larger = aLarger ? a : b.mT();
    const at::Tensor other = aLarger ? b : (a.dim() == 2 ? a.t() : a);
    if (!(larger.dim() >= 3 && other.dim() <= 2))
        return false;
    if (other.requires_grad())
        return true;
    if (a.dim() == 2)
        return false;
    if (larger.numel() == 0)
        return true;
    for (std::int64_t i = 0; i + 2 < larger.dim(); ++i)
        if (larger.stride(i) != larger.stride(i + 1) * larger.size(i + 1))
            return false;
    return true;
}

// torch.matmul as at::native's _matmul_impl runs it: dot and mv are not counted (flop_counter
// has no formula for them), mm and bmm are.
std::int64_t matmulFlops(const at::Tensor& a, const at::Tensor& b) {
    const auto da = a.dim(), db = b.dim();
    if (da == 0 || db == 0)
        return 0;
    if (db == 1 && da <= 2)
        return 0; // dot, mv
    if (da == 1 && db == 2)
        return matrixProducts(1, 1, b.size(0), b.size(1));
    if (da == 2 && db == 2)
        return matrixProducts(1, a.size(0), a.size(1), b.size(1));
    if (matmulFolds(a, b)) {
        if (da >= 3) // the batch folded into the rows: an mm, or an mv for a vector
            return db == 1
                       ? 0
                       : matrixProducts(1, product(a.sizes(), 0, da - 1), a.size(-1), b.size(-1));
        return da == 1 ? 0
                       : matrixProducts(1, product(b.sizes(), 0, db - 2) * b.size(-1), b.size(-2),
                                        a.size(0));
    }
    // bmm over the broadcast batch; a vector is one row or one column.
    const std::int64_t m = da == 1 ? 1 : a.size(-2), k = a.size(-1);
    const std::int64_t n = db == 1 ? 1 : b.size(-1);
    std::vector<std::int64_t> batchA(a.sizes().begin(), a.sizes().end() - std::min<int64_t>(da, 2));
    std::vector<std::int64_t> batchB(b.sizes().begin(), b.sizes().end() - std::min<int64_t>(db, 2));
    const auto batch = at::infer_size(batchA, batchB);
    return matrixProducts(product(batch), m, k, n);
}

// flop_counter's conv_flop_count: only multiplications by the filter, bias left out.
std::int64_t convolutionFlops(const at::Tensor& x, const at::Tensor& w, const c10::IValue& out,
                              bool transposed) {
    if (!out.isTensor())
        return 0;
    const at::Tensor& y = out.toTensor();
    // An unbatched input ([C, L...]) runs as a batch of one.
    const bool batched = x.dim() == w.dim();
    const std::int64_t batch = batched ? x.size(0) : 1;
    const std::size_t spatial = batched ? 2 : 1;
    const std::int64_t convShape =
        transposed ? product(x.sizes(), spatial) : product(y.sizes(), spatial);
    return convShape * product(w.sizes(), 2) * batch * w.size(0) * w.size(1) * 2;
}

// flop_counter's sdpa_flop_count: q @ k^T, then the scores @ v, over every query head.
std::int64_t attentionFlops(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
    if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
        return 0;
    const std::int64_t heads = product(q.sizes(), 0, q.dim() - 2);
    const std::int64_t sq = q.size(-2), dq = q.size(-1), sk = k.size(-2), dv = v.size(-1);
    return matrixProducts(heads, sq, dq, sk) + matrixProducts(heads, sq, sk, dv);
}

// nn.MultiheadAttention as F.multi_head_attention_forward runs it without its fast path (cost.py's
// _multihead_attention): four projections, each a linear, and attention's two products over
// every head, 2·N·L·S·E each whatever the heads. A traced module keeps neither batch_first nor
// add_zero_attn: the attention weights the call returned ((N, L, S), or (N, heads, L, S)) say the
// batch and the keys; without them batch_first (not said: the default, second) and the keys
// bias_k and add_zero_attn add.
std::int64_t multiheadAttentionFlops(const torch::jit::Stack& operands, const c10::IValue& value,
                                     const ModuleFacts& module) {
    // A traced call takes a tensor once however many arguments it was: self-attention's query is
    // its key and value, and a key that is the value comes once.
    const at::Tensor* q = tensorAt(operands, 0);
    const at::Tensor* k = operands.size() > 1 ? tensorAt(operands, 1) : q;
    const at::Tensor* v = operands.size() > 2 ? tensorAt(operands, 2) : k;
    if (!q || !k || !v || q->dim() < 2 || q->dim() != k->dim() || q->dim() != v->dim())
        return 0;
    const std::int64_t e = q->size(-1), kdim = k->size(-1), vdim = v->size(-1);
    if (e == 0 || kdim == 0 || vdim == 0)
        return 0;
    const std::int64_t rowsQ = q->numel() / e, rowsK = k->numel() / kdim, rowsV = v->numel() / vdim;
    const std::int64_t projections =
        matrixProducts(1, rowsQ, e, e) + matrixProducts(1, rowsK, kdim, e) +
        matrixProducts(1, rowsV, vdim, e) + matrixProducts(1, rowsQ, e, e);
    const bool first = module.batchFirst.isBool() && module.batchFirst.toBool();
    std::int64_t batch = q->dim() == 3 ? q->size(first ? 0 : 1) : 1;
    if (batch == 0)
        return 0;
    std::int64_t keys = rowsK / batch + module.addedKeys;
    if (value.isTuple() && value.toTupleRef().elements().size() == 2 &&
        value.toTupleRef().elements()[1].isTensor()) {
        const at::Tensor& weights = value.toTupleRef().elements()[1].toTensor();
        if (weights.dim() == q->dim() || weights.dim() == q->dim() + 1) {
            batch = q->dim() == 3 ? weights.size(0) : 1;
            keys = weights.size(-1);
        }
    }
    if (batch == 0)
        return 0;
    return projections + 2 * matrixProducts(batch, rowsQ / batch, e, keys);
}

} // namespace

void addStorages(const c10::IValue& value, StorageBytes& out) {
    forEachTensor(value, [&](const at::Tensor& t) {
        if (hasStorage(t))
            out.emplace(t.storage().unsafeGetStorageImpl(),
                        static_cast<std::int64_t>(t.storage().nbytes()));
    });
}

std::unordered_map<const void*, std::int64_t> versionsByStorage(const torch::jit::Stack& operands) {
    std::unordered_map<const void*, std::int64_t> versions;
    for (const c10::IValue& operand : operands)
        forEachTensor(operand, [&](const at::Tensor& t) {
            if (hasStorage(t) && !t.is_inference())
                versions.emplace(t.storage().unsafeGetStorageImpl(),
                                 static_cast<std::int64_t>(t._version()));
        });
    return versions;
}

void noteOutputCost(NodeRecord& record, const torch::jit::Stack& operands,
                    const std::unordered_map<const void*, std::int64_t>& before,
                    const c10::IValue& value) {
    StorageBytes held, outputs;
    for (const c10::IValue& operand : operands)
        addStorages(operand, held);
    addStorages(value, outputs);
    record.newBytes = 0;
    record.aliasKind.clear();
    bool aliases = false, written = false;
    for (const auto& [storage, bytes] : outputs) {
        if (!held.count(storage)) {
            record.newBytes += bytes;
            continue;
        }
        aliases = true;
        auto was = before.find(storage);
        forEachTensor(value, [&](const at::Tensor& t) {
            if (was != before.end() && hasStorage(t) && !t.is_inference() &&
                t.storage().unsafeGetStorageImpl() == storage &&
                static_cast<std::int64_t>(t._version()) != was->second)
                written = true;
        });
    }
    if (aliases)
        record.aliasKind = written ? "in-place" : "view";
}

std::int64_t countFlops(const Node& node, const torch::jit::Stack& operands,
                        const c10::IValue& value, const ModuleFacts& module) {
    try {
        if (node.op == Op::CallModule) {
            const std::string type = node.moduleType.substr(node.moduleType.rfind('.') + 1);
            if (type == "MultiheadAttention")
                return multiheadAttentionFlops(operands, value, module);
            const at::Tensor* x = tensorAt(operands, 0);
            const c10::IValue& weight = module.weight;
            if (!x || !weight.isTensor() || !weight.toTensor().defined())
                return 0;
            const at::Tensor& w = weight.toTensor();
            if (type == "Linear" && w.dim() == 2)
                return matrixProducts(product(x->sizes(), 0, x->dim() - 1), 1, w.size(1),
                                      w.size(0));
            if (type.rfind("ConvTranspose", 0) == 0)
                return convolutionFlops(*x, w, value, true);
            if (type.rfind("Conv", 0) == 0)
                return convolutionFlops(*x, w, value, false);
            return 0;
        }
        const std::string op = operatorName(node);
        const at::Tensor *a = tensorAt(operands, 0), *b = tensorAt(operands, 1),
                         *c = tensorAt(operands, 2);
        if (op == "linear" && a && b && b->dim() == 2)
            return matrixProducts(product(a->sizes(), 0, a->dim() - 1), 1, b->size(1), b->size(0));
        if (op == "mm" && a && b && a->dim() == 2 && b->dim() == 2)
            return matrixProducts(1, a->size(0), a->size(1), b->size(1));
        if (op == "addmm" && b && c && b->dim() == 2 && c->dim() == 2)
            return matrixProducts(1, b->size(0), b->size(1), c->size(1));
        if (op == "bmm" && a && b && a->dim() == 3 && b->dim() == 3)
            return matrixProducts(a->size(0), a->size(1), a->size(2), b->size(2));
        if (op == "baddbmm" && b && c && b->dim() == 3 && c->dim() == 3)
            return matrixProducts(b->size(0), b->size(1), b->size(2), c->size(2));
        if ((op == "matmul" || op == "__matmul__") && a && b)
            return matmulFlops(*a, *b);
        if ((op == "conv1d" || op == "conv2d" || op == "conv3d") && a && b)
            return convolutionFlops(*a, *b, value, false);
        if (op.rfind("conv_transpose", 0) == 0 && a && b)
            return convolutionFlops(*a, *b, value, true);
        if ((op == "convolution" || op == "_convolution") && a && b && operands.size() > 6 &&
            operands[6].isBool())
            return convolutionFlops(*a, *b, value, operands[6].toBool());
        if ((op == "scaled_dot_product_attention" || op.rfind("_scaled_dot_product_", 0) == 0) &&
            a && b && c)
            return attentionFlops(*a, *b, *c);
    } catch (const std::exception&) {
        // Shapes the formula cannot read (a symbolic size, an odd layout): no count.
    }
    return 0;
}

std::vector<std::int64_t> storageShares(const std::vector<const c10::IValue*>& values,
                                        const std::unordered_set<const void*>& apart) {
    std::unordered_set<const void*> seen(apart);
    std::vector<std::int64_t> shares;
    shares.reserve(values.size());
    for (const c10::IValue* value : values) {
        StorageBytes held;
        addStorages(*value, held);
        std::int64_t bytes = 0;
        for (const auto& [storage, size] : held)
            if (seen.insert(storage).second)
                bytes += size;
        shares.push_back(bytes);
    }
    return shares;
}

} // namespace fxview
