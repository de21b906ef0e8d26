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
    }
}

void writeNodes(JsonWriter& w, const std::vector<Node>& nodes);

void writeNode(JsonWriter& w, const Node& n) {
    w.beginObject();
    w.key("name").value(n.name);
    w.key("op").value(opName(n.op));
    w.key("target").value(n.target);
    if (!n.moduleType.empty())
        w.key("module_type").value(n.moduleType);
    if (!n.schema.empty())
        w.key("schema").value(n.schema);
    w.key("scope").value(n.scope);
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
    if (!n.blocks.empty()) {
        w.key("blocks").beginArray();
        for (const Block& b : n.blocks) {
            w.beginObject().key("label").value(b.label);
            w.key("params").beginArray();
            for (const std::string& p : b.params)
                w.value(p);
            w.endArray();
            w.key("nodes");
            writeNodes(w, b.nodes);
            w.key("results").beginArray();
            for (const Argument& r : b.results)
                writeArgument(w, r);
            w.endArray().endObject();
        }
        w.endArray();
    }
    w.endObject();
}

void writeNodes(JsonWriter& w, const std::vector<Node>& nodes) {
    w.beginArray();
    for (const Node& n : nodes)
        writeNode(w, n);
    w.endArray();
}

} // namespace

std::string graphToJson(const Graph& graph, const JsonModelInfo& model) {
    JsonWriter w;
    w.beginObject();
    w.key("format").value("fxview.graph");
    w.key("version").value(1);
    w.key("model").beginObject();
    w.key("source").value(model.source);
    w.key("class").value(model.className);
    w.endObject();
    w.key("nodes");
    writeNodes(w, graph.nodes);
    w.endObject();
    return w.text() + "\n";
}

} // namespace fxview
