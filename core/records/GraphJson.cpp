#include "GraphJson.h"

#include <cmath>

#include "JsonWriter.h"

namespace fxview {

namespace {

void writeArgument(JsonWriter& w, const Argument& a) {
    switch (a.kind) {
    case Argument::Kind::None:
        w.null();
        break;
    case Argument::Kind::Bool:
        w.value(a.boolean);
        break;
    case Argument::Kind::Int:
        w.value(a.integer);
        break;
    case Argument::Kind::Float:
        if (std::isfinite(a.real))
            w.value(a.real);
        else
            w.beginObject()
                .key("repr")
                .value(a.real > 0   ? "inf"
                       : a.real < 0 ? "-inf"
                                    : "nan")
                .endObject();
        break;
    case Argument::Kind::String:
        w.value(a.text);
        break;
    case Argument::Kind::NodeRef:
        w.beginObject().key("node").value(a.text).endObject();
        break;
    case Argument::Kind::Repr:
        w.beginObject().key("repr").value(a.text).endObject();
        break;
    case Argument::Kind::List:
        w.beginArray();
        for (const Argument& item : a.items)
            writeArgument(w, item);
        w.endArray();
        break;
    case Argument::Kind::Tuple:
        // JSON has no tuples: they are tagged so (x,) and [x] stay apart.
        w.beginObject().key("tuple").beginArray();
        for (const Argument& item : a.items)
            writeArgument(w, item);
        w.endArray().endObject();
        break;
    case Argument::Kind::Dict:
        // {"dict": [[key, value], ...]}: keys may be ints, and the order is Python's.
        w.beginObject().key("dict").beginArray();
        for (const Argument& entry : a.items) {
            w.beginArray();
            for (const Argument& part : entry.items)
                writeArgument(w, part);
            w.endArray();
        }
        w.endArray().endObject();
        break;
    }
}

void writeNumbers(JsonWriter& w, const std::vector<std::int64_t>& numbers) {
    w.beginArray();
    for (std::int64_t n : numbers)
        w.value(n);
    w.endArray();
}

void writeValue(JsonWriter& w, const ValueSummary& v) {
    w.beginObject().key("type").value(v.type);
    if (v.type == "Tensor") {
        w.key("shape");
        writeNumbers(w, v.shape);
        w.key("dtype").value(v.dtype);
        w.key("device").value(v.device);
        w.key("stride");
        writeNumbers(w, v.stride);
        w.key("numel").value(v.numel);
        w.key("bytes").value(v.bytes);
        if (!v.qscheme.empty()) {
            // Per tensor, min and max are equal. The stats below are of the dequantized values.
            w.key("quantization").beginObject().key("qscheme").value(v.qscheme);
            if (v.qaxis >= 0)
                w.key("axis").value(v.qaxis);
            w.key("scale_min").value(v.scaleMin).key("scale_max").value(v.scaleMax);
            w.key("zero_point_min").value(v.zeroPointMin);
            w.key("zero_point_max").value(v.zeroPointMax);
            if (v.hasStats)
                w.key("int_min").value(v.intMin).key("int_max").value(v.intMax);
            w.endObject();
        }
        if (v.hasStats || v.nanCount || v.infCount) {
            w.key("stats").beginObject();
            if (v.hasStats) {
                w.key("min").value(v.min).key("max").value(v.max);
                w.key("mean").value(v.mean);
                if (v.hasDetail) // a live run's record has std once the window asked for it
                    w.key("std").value(v.std);
            }
            w.key("nan").value(v.nanCount).key("inf").value(v.infCount).endObject();
        }
    } else if (v.type == "tuple" || v.type == "list" || v.type == "dict") {
        if (v.type == "dict") // its keys, as str() joined by ", "
            w.key("keys").value(v.value);
        w.key("items").beginArray();
        for (const ValueSummary& item : v.items)
            writeValue(w, item);
        w.endArray();
    } else if (!v.value.empty()) {
        w.key("value").value(v.value);
    }
    w.endObject();
}

const char* stateName(NodeState s) {
    switch (s) {
    case NodeState::Pending:
        return "pending";
    case NodeState::Done:
        return "done";
    case NodeState::Failed:
        return "failed";
    case NodeState::NotExecuted:
        return "not_executed";
    }
    return "?";
}

void writeMeta(JsonWriter& w, const NodeRecord& r) {
    w.key("meta").beginObject();
    w.key("executed").value(r.state == NodeState::Done || r.state == NodeState::Failed);
    w.key("state").value(stateName(r.state));
    if (r.runs > 0) {
        w.key("time_us").value(r.timeUs);
        w.key("runs").value(r.runs);
        w.key("value");
        writeValue(w, r.value);
        // What it cost (docs/cost.md): new storage, aliasing, the live set after it, FLOPs.
        w.key("bytes").value(r.newBytes);
        if (!r.aliasKind.empty())
            w.key("alias").value(r.aliasKind);
        w.key("live_bytes").value(r.liveBytes);
        w.key("flops").value(r.flops);
    }
    if (!r.blockRuns.empty()) {
        w.key("block_runs").beginArray();
        for (int n : r.blockRuns)
            w.value(n);
        w.endArray();
    }
    if (!r.error.empty())
        w.key("error").value(r.error);
    w.endObject();
}

void writeNodes(JsonWriter& w, const std::vector<Node>& nodes, const JsonRunInfo* run);

void writeNode(JsonWriter& w, const Node& n, const JsonRunInfo* run) {
    w.beginObject();
    w.key("name").value(n.name);
    w.key("op").value(opName(n.op));
    w.key("target").value(n.target);
    if (!n.moduleType.empty())
        w.key("module_type").value(n.moduleType);
    if (!n.schema.empty())
        w.key("schema").value(n.schema);
    w.key("scope").value(n.scope);
    if (!n.scopeType.empty())
        w.key("scope_type").value(n.scopeType);
    w.key("args").beginArray();
    for (const Argument& a : n.args)
        writeArgument(w, a);
    w.endArray();
    w.key("kwargs").beginObject();
    for (const KeywordArgument& k : n.kwargs) {
        w.key(k.name);
        writeArgument(w, k.value);
    }
    w.endObject();
    w.key("users").beginArray();
    for (const std::string& u : n.users)
        w.value(u);
    w.endArray();
    if (n.hidden)
        w.key("hidden").value(true);
    // A .pt2's graph signature: which placeholders are weights (and whose), what each output is.
    if (n.op == Op::Placeholder && !n.isInput()) {
        w.key("placeholder_kind").value(placeholderKindName(n.placeholderKind));
        if (!n.tensors.empty())
            w.key("state_name").value(n.tensors[0].name);
    }
    if (!n.symbolicShape.empty()) { // a dynamic dimension's size as the program has it
        w.key("symbolic_shape").beginArray();
        for (const std::string& size : n.symbolicShape)
            w.value(size);
        w.endArray();
    }
    if (!n.outputRoles.empty()) {
        w.key("output_roles").beginArray();
        for (const OutputRole& role : n.outputRoles) {
            w.beginObject().key("kind").value(role.kind);
            if (!role.target.empty())
                w.key("target").value(role.target);
            w.endObject();
        }
        w.endArray();
    }
    if (!n.blocks.empty()) {
        w.key("blocks").beginArray();
        for (const Block& b : n.blocks) {
            w.beginObject().key("label").value(b.label);
            if (b.subgraph)
                w.key("subgraph").value(true);
            w.key("params").beginArray();
            for (const std::string& p : b.params)
                w.value(p);
            w.endArray();
            w.key("nodes");
            writeNodes(w, b.nodes, run);
            w.key("results").beginArray();
            for (const Argument& r : b.results)
                writeArgument(w, r);
            w.endArray().endObject();
        }
        w.endArray();
    }
    if (run && run->recordOf)
        if (const NodeRecord* r = run->recordOf(n.name))
            writeMeta(w, *r);
    w.endObject();
}

void writeNodes(JsonWriter& w, const std::vector<Node>& nodes, const JsonRunInfo* run) {
    w.beginArray();
    for (const Node& n : nodes)
        writeNode(w, n, run);
    w.endArray();
}

void writeOutputCheck(JsonWriter& w, const OutputCheck& check) {
    using Verdict = OutputCheck::Verdict;
    std::string reason = check.message;
    if (check.verdict == Verdict::NotChecked && reason.empty())
        reason = "the run has not reached its end";
    w.key("output_check").beginObject();
    w.key("verdict").value(check.verdict == Verdict::Equal     ? "equal"
                           : check.verdict == Verdict::Differs ? "differs"
                                                               : "not checked");
    w.key("reason").value(reason);
    w.endObject();
}

} // namespace

std::string graphToJson(const Graph& graph, const JsonModelInfo& model, const JsonRunInfo* run) {
    JsonWriter w;
    w.beginObject();
    w.key("format").value("fxview.graph");
    w.key("version").value(1);
    w.key("model").beginObject();
    w.key("source").value(model.source);
    w.key("class").value(model.className);
    w.endObject();
    if (run) {
        w.key("input").beginArray();
        for (std::size_t i = 0; i < run->inputs.size(); ++i) {
            w.beginObject();
            if (!run->inputs[i].file.empty())
                w.key("file").value(run->inputs[i].file);
            if (i < run->inputValues.size()) {
                w.key("shape");
                writeNumbers(w, run->inputValues[i].shape);
                w.key("dtype").value(run->inputValues[i].dtype);
            }
            w.key("seed").value(static_cast<std::int64_t>(run->seed));
            w.endObject();
        }
        w.endArray();
        writeOutputCheck(w, run->outputCheck);
        w.key("peak_live").beginObject();
        w.key("node").value(run->peak.node);
        w.key("bytes").value(run->peak.bytes);
        w.key("values").beginArray();
        for (const LiveValue& v : run->peak.values) {
            w.beginObject();
            w.key("node").value(v.node);
            w.key("bytes").value(v.bytes);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }
    w.key("nodes");
    writeNodes(w, graph.nodes, run);
    w.endObject();
    return w.text() + "\n";
}

std::string withScopeTree(const std::string& json, const ScopeTree& tree,
                          const std::set<std::string>& open) {
    std::size_t end = json.rfind('}');
    if (end == std::string::npos)
        return json;
    JsonWriter w;
    w.beginArray();
    for (const Scope* s : tree.preorder()) {
        const bool drawn = ScopeTree::closedAround(s->parent, open).empty();
        w.beginObject();
        w.key("path").value(s->path);
        w.key("class").value(s->type);
        w.key("parent").value(s->parent);
        w.key("depth").value(s->depth);
        w.key("nodes").value(s->nodeCount);
        w.key("first").value(s->firstNode);
        w.key("last").value(s->lastNode);
        w.key("open").value(drawn && open.count(s->path) > 0);
        w.key("box").value(drawn && !open.count(s->path));
        w.endObject();
    }
    w.endArray();
    return json.substr(0, end) + ",\"scopes\":" + w.text() + json.substr(end);
}

} // namespace fxview
