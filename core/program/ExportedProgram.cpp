#include "ExportedProgram.h"

#include "BoundedJson.h"
#include "NonFiniteJson.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "FxText.h"
#include "SizeExpression.h"

namespace fxview {

namespace {

using Json = nlohmann::json;

// How deep torch.cond's subgraphs may nest (a hostile file nested them 10,000 deep: the
// recursion overflowed the stack).
constexpr int kMaxGraphNesting = 32;

// A whole number that must fit in T: get<T>() of a float or of a number past T's range is
// undefined behaviour (`"major": 1e300`).
template <typename T> T intOf(const Json& j) {
    bool fits = false;
    if (j.is_number_unsigned())
        fits = j.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    else if (j.is_number_integer())
        fits = j.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
               j.get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
    if (!fits)
        throw std::runtime_error("its serialized_exported_program.json has " + jsonPreview(j) +
                                 " where a whole number belongs");
    return static_cast<T>(j.get<std::int64_t>());
}

// The one key of a schema.py union ({"user_input": {...}}); refuses anything else.
const std::string& unionKey(const Json& j) {
    if (!j.is_object() || j.size() != 1)
        throw std::runtime_error("its serialized_exported_program.json has " + jsonPreview(j) +
                                 " where one of schema.py's kinds belongs");
    return j.begin().key();
}

// JSON has no inf or nan: torch.export writes them as strings.
double realOf(const Json& j) {
    if (j.is_number())
        return j.get<double>();
    std::string s = j.get<std::string>();
    if (s == "Infinity" || s == "inf")
        return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf")
        return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
}

ExportedGraph graphOf(const Json& graph, int depth);

// The member `key` of an object, or nullptr.
const Json* member(const Json& object, const char* key) {
    if (!object.is_object())
        return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

// A string member, "" when absent; anything else there is refused with a sentence.
std::string stringMember(const Json& object, const char* key) {
    const Json* v = member(object, key);
    if (!v || v->is_null())
        return {};
    if (!v->is_string())
        throw std::runtime_error("its serialized_exported_program.json has " + jsonPreview(*v) +
                                 " where the string " + key + " belongs");
    return v->get<std::string>();
}

// A SymIntArgument (SymFloat-, SymBoolArgument): a concrete value, or the name of the node
// computing a symbolic one.
ExportedValue symInt(const Json& j) {
    ExportedValue v;
    if (j.contains("as_int")) {
        v.kind = ExportedValue::Kind::Int;
        v.integer = intOf<std::int64_t>(j["as_int"]);
    } else if (j.contains("as_float")) {
        v.kind = ExportedValue::Kind::Float;
        v.real = realOf(j["as_float"]);
    } else if (j.contains("as_bool")) {
        v.kind = ExportedValue::Kind::Bool;
        v.boolean = j["as_bool"].get<bool>();
    } else {
        v.kind = ExportedValue::Kind::SymInt;
        v.name = j.at("as_name").get<std::string>();
    }
    return v;
}

ExportedValue valueOf(const Json& j, int depth) {
    using K = ExportedValue::Kind;
    ExportedValue v;
    const std::string key = unionKey(j);
    const Json& x = j.begin().value();
    if (key == "as_none") {
        v.kind = K::None;
    } else if (key == "as_tensor") {
        v.kind = K::Tensor;
        v.name = x.at("name").get<std::string>();
    } else if (key == "as_tensors" || key == "as_optional_tensors") {
        v.kind = K::Tensors;
        for (const Json& t : x)
            v.names.push_back(t.contains("name") ? t["name"].get<std::string>()
                              : t.contains("as_tensor")
                                  ? t["as_tensor"].at("name").get<std::string>()
                                  : std::string());
    } else if (key == "as_int") {
        v.kind = K::Int;
        v.integer = intOf<std::int64_t>(x);
    } else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
        v = symInt(x);
    } else if (key == "as_graph") {
        v.kind = K::Graph;
        v.name = x.at("name").get<std::string>();
        v.graph = std::make_shared<const ExportedGraph>(graphOf(x.at("graph"), depth + 1));
    } else if (key == "as_ints" || key == "as_sym_ints") {
        v.kind = K::Ints;
        // Whole numbers only in `ints` (an ExportedValue each took ~270 bytes: 6 MB of as_ints
        // grew to 1.25 GB); `items` holds every member only where one is symbolic.
        if (!x.is_array())
            throw std::runtime_error("its serialized_exported_program.json has " + jsonPreview(x) +
                                     " where a list of ints belongs");
        std::vector<ExportedValue> items;
        bool symbolic = false;
        for (const Json& i : x) {
            ExportedValue item;
            if (key == "as_ints") {
                item.kind = K::Int;
                item.integer = intOf<std::int64_t>(i);
            } else {
                item = symInt(i);
            }
            if (item.kind == K::Int)
                v.ints.push_back(item.integer);
            else
                symbolic = true;
            if (key == "as_sym_ints")
                items.push_back(std::move(item));
        }
        if (symbolic)
            v.items = std::move(items);
    } else if (key == "as_float") {
        v.kind = K::Float;
        v.real = realOf(x);
    } else if (key == "as_complex") {
        v.kind = K::Complex;
        v.real = realOf(x.at("real"));
        v.imag = realOf(x.at("imag"));
    } else if (key == "as_floats") {
        v.kind = K::Floats;
        for (const Json& f : x)
            v.floats.push_back(realOf(f));
    } else if (key == "as_bool") {
        v.kind = K::Bool;
        v.boolean = x.get<bool>();
    } else if (key == "as_bools") {
        v.kind = K::Bools;
        for (const Json& b : x)
            v.bools.push_back(b.get<bool>());
    } else if (key == "as_string") {
        v.kind = K::String;
        v.text = x.get<std::string>();
    } else if (key == "as_strings") {
        v.kind = K::Strings;
        v.strings = x.get<std::vector<std::string>>();
    } else if (key == "as_scalar_type" || key == "as_memory_format" || key == "as_layout") {
        v.kind = key == "as_scalar_type"     ? K::ScalarType
                 : key == "as_memory_format" ? K::MemoryFormat
                                             : K::Layout;
        v.integer = intOf<std::int64_t>(x);
    } else if (key == "as_operator") {
        v.kind = K::Operator;
        v.text = x.get<std::string>();
    } else if (key == "as_device") {
        v.kind = K::Device;
        v.text = x.at("type").get<std::string>();
        v.integer = x.contains("index") && !x["index"].is_null() ? intOf<int>(x["index"]) : -1;
    } else {
        v.kind = K::Unsupported;
        v.text = key;
    }
    return v;
}

ExportedGraph graphOf(const Json& graph, int depth) {
    if (depth > kMaxGraphNesting)
        throw std::runtime_error("its serialized_exported_program.json nests subgraphs more than " +
                                 std::to_string(kMaxGraphNesting) +
                                 " deep (a damaged or hostile file)");
    ExportedGraph g;
    for (const Json& input : graph.at("inputs"))
        g.inputs.push_back(valueOf(input, depth));
    for (const Json& n : graph.at("nodes")) {
        ExportedNode node;
        node.target = n.at("target").get<std::string>();
        // Looked up, never copied: n.value() copies the whole value it finds.
        if (const Json* name = member(n, "name"); name && name->is_string())
            node.name = name->get<std::string>();
        if (const Json* single = member(n, "is_hop_single_tensor_return");
            single && single->is_boolean())
            node.hopSingleTensorReturn = single->get<bool>();
        for (const Json& input : n.at("inputs")) {
            node.inputs.emplace_back(input.at("name").get<std::string>(),
                                     valueOf(input.at("arg"), depth));
            const Json* kind = member(input, "kind");
            node.inputKinds.push_back(kind && kind->is_number_integer() ? intOf<int>(*kind) : 0);
        }
        for (const Json& output : n.at("outputs"))
            node.outputs.push_back(valueOf(output, depth));
        if (const Json* meta = member(n, "metadata"); meta && meta->is_object()) {
            node.stackTrace = stringMember(*meta, "stack_trace");
            node.nnModuleStack = stringMember(*meta, "nn_module_stack");
        }
        g.nodes.push_back(std::move(node));
    }
    for (const Json& output : graph.at("outputs"))
        g.outputs.push_back(valueOf(output, depth));
    g.singleTensorReturn = graph.value("is_single_tensor_return", false);
    return g;
}

// "Symbol('s0', positive=True, integer=True)" -> "s0"; "" for any other expression.
std::string symbolOf(const Json& size) {
    if (!size.contains("as_expr"))
        return {};
    std::string expr = size["as_expr"].value("expr_str", std::string());
    const std::string head = "Symbol('";
    if (expr.rfind(head, 0) != 0)
        return {};
    std::size_t end = expr.find('\'', head.size());
    return end == std::string::npos ? std::string() : expr.substr(head.size(), end - head.size());
}

ExportedInput inputOf(const Json& spec) {
    using K = ExportedInput::Kind;
    ExportedInput in;
    const std::string key = unionKey(spec);
    const Json& x = spec.begin().value();
    auto tensorName = [](const Json& arg) {
        return arg.contains("as_tensor") ? arg["as_tensor"].at("name").get<std::string>()
               : arg.contains("name")    ? arg["name"].get<std::string>()
                                         : std::string();
    };
    if (key == "user_input") {
        in.kind = K::UserInput;
        in.name = tensorName(x.at("arg"));
    } else if (key == "parameter") {
        in.kind = K::Parameter;
        in.name = tensorName(x.at("arg"));
        in.target = x.at("parameter_name").get<std::string>();
    } else if (key == "buffer") {
        in.kind = K::Buffer;
        in.name = tensorName(x.at("arg"));
        in.target = x.at("buffer_name").get<std::string>();
        in.persistent = x.value("persistent", true);
    } else if (key == "tensor_constant") {
        in.kind = K::TensorConstant;
        in.name = tensorName(x.at("arg"));
        in.target = x.at("tensor_constant_name").get<std::string>();
    } else if (key == "token") {
        in.kind = K::Token;
        in.name = tensorName(x.at("arg"));
    } else if (key == "constant_input") {
        in.kind = K::Constant;
        in.name = x.at("name").get<std::string>();
        if (const Json* value = member(x, "value"))
            in.value = valueOf(*value, 0);
    } else {
        in.kind = K::CustomObject;
        in.name = x.at("arg").value("name", std::string());
    }
    return in;
}

// One node of a serialized pytree spec ({"type", "context", "children_spec"}); nullopt for a
// container fxview cannot rebuild (a person's registered class): the outputs then stay flat.
std::optional<OutputTree> treeOf(const Json& spec, int depth) {
    if (depth > kMaxGraphNesting || !spec.is_object())
        return std::nullopt;
    OutputTree tree;
    const Json& type = spec.at("type");
    const Json& children = spec.at("children_spec");
    if (type.is_null())
        return children.empty() ? std::optional<OutputTree>(tree) : std::nullopt;
    const std::string name = type.get<std::string>();
    using K = OutputTree::Kind;
    if (name == "builtins.tuple" || name == "collections.namedtuple" ||
        name.rfind("torch.return_types.", 0) == 0) {
        tree.kind = K::Tuple;
    } else if (name == "builtins.list") {
        tree.kind = K::List;
    } else if (name == "builtins.dict" || name == "collections.OrderedDict") {
        tree.kind = K::Dict;
        Json keys = parseBoundedJson(spec.at("context").get<std::string>(), "output spec");
        // A c10::Dict has one key type: all strings, or all ints, else the outputs stay flat.
        tree.intKeys = !keys.empty() && keys[0].is_number_integer();
        for (const Json& key : keys) {
            if (tree.intKeys != key.is_number_integer() || (!tree.intKeys && !key.is_string()))
                return std::nullopt;
            tree.keys.push_back(tree.intKeys ? std::to_string(key.get<std::int64_t>())
                                             : key.get<std::string>());
        }
    } else {
        return std::nullopt;
    }
    for (const Json& child : children) {
        std::optional<OutputTree> c = treeOf(child, depth + 1);
        if (!c)
            return std::nullopt;
        tree.children.push_back(std::move(*c));
    }
    if (tree.kind == K::Dict && tree.keys.size() != tree.children.size())
        return std::nullopt;
    return tree;
}

// [protocol, spec], as torch.utils._pytree.treespec_dumps writes it, of the signature's `key`
// (in_spec, out_spec). A spec fxview cannot read leaves the inputs or outputs flat rather than
// refusing a program whose graph is fine; a hostile one (nested past kMaxJsonDepth) is refused
// with the rest of the file.
std::optional<OutputTree> specTreeOf(const Json& module, const char* key) try {
    if (!module.contains("module_call_graph") || !module["module_call_graph"].is_array() ||
        module["module_call_graph"].empty())
        return std::nullopt;
    const Json* signature = member(module["module_call_graph"][0], "signature");
    const Json* spec = signature ? member(*signature, key) : nullptr;
    if (!spec || !spec->is_string())
        return std::nullopt;
    Json dumped = parseBoundedJson(spec->get<std::string>(), key);
    if (!dumped.is_array() || dumped.size() != 2 || dumped[0] != 1)
        return std::nullopt;
    return treeOf(dumped[1], 0);
} catch (const nlohmann::json::exception&) {
    return std::nullopt; // a spec fxview cannot read; one nested past the bound is refused
}

ExportedOutput outputOf(const Json& spec) {
    using K = ExportedOutput::Kind;
    ExportedOutput out;
    const std::string key = unionKey(spec);
    const Json& x = spec.begin().value();
    out.kind = key == "user_output"           ? K::UserOutput
               : key == "loss_output"         ? K::LossOutput
               : key == "buffer_mutation"     ? K::BufferMutation
               : key == "user_input_mutation" ? K::UserInputMutation
               : key == "token"               ? K::Token
                                              : K::Other;
    const Json& arg = x.at("arg");
    // user outputs hold an Argument; the others a TensorArgument ({"name": ...}).
    if (arg.contains("name") && arg.size() == 1) {
        out.value.kind = ExportedValue::Kind::Tensor;
        out.value.name = arg["name"].get<std::string>();
    } else {
        out.value = valueOf(arg, 0);
    }
    out.target = x.value("buffer_name", x.value("user_input_name", std::string()));
    return out;
}

} // namespace

namespace {

ExportedProgram parseProgram(const std::string& written) {
    Json doc = parseBoundedJson(withNonFiniteQuoted(written), "serialized_exported_program.json");
    if (doc.is_discarded() || !doc.is_object())
        throw std::runtime_error("its serialized_exported_program.json is not valid JSON");
    ExportedProgram p;
    try {
        p.schemaMajor = intOf<int>(doc.at("schema_version").at("major"));
        p.schemaMinor = intOf<int>(doc.at("schema_version").at("minor"));
        p.torchVersion = doc.value("torch_version", std::string());
        if (p.schemaMajor != kExportSchemaMajor)
            throw std::runtime_error(
                "it was written by PyTorch " + p.torchVersion + "'s exporter, schema " +
                std::to_string(p.schemaMajor) + "." + std::to_string(p.schemaMinor) +
                ", and this fxview reads "
                "schema " +
                std::to_string(kExportSchemaMajor) +
                ".x (PyTorch 2.6 to 2.14, which writes 8.20): open it with "
                "an fxview that reads schema " +
                std::to_string(p.schemaMajor) + " or export it again with PyTorch 2.14");
        const Json& module = doc.at("graph_module");
        const Json& graph = module.at("graph");
        for (const Json& spec : module.at("signature").at("input_specs"))
            p.inputs.push_back(inputOf(spec));
        for (const Json& spec : module.at("signature").at("output_specs"))
            p.outputs.push_back(outputOf(spec));
        p.graph = graphOf(graph, 0);
        p.outputTree = specTreeOf(module, "out_spec");
        p.inputTree = specTreeOf(module, "in_spec");
        for (const auto& [name, meta] : graph.at("tensor_values").items()) {
            ExportedTensorMeta m;
            m.dtype = intOf<int>(meta.at("dtype"));
            for (const Json& size : meta.at("sizes")) {
                m.sizes.push_back(size.contains("as_int") ? intOf<std::int64_t>(size["as_int"])
                                                          : -1);
                m.symbols.push_back(symbolOf(size));
                m.printed.push_back(
                    size.contains("as_int")
                        ? std::to_string(m.sizes.back())
                        : sizeExpression(size.contains("as_expr")
                                             ? size["as_expr"].value("expr_str", std::string("?"))
                                             : std::string("?")));
            }
            p.tensors[name] = m;
        }
        static const Json none = Json::object();
        const Json* ranges = member(doc, "range_constraints");
        for (const auto& [symbol, range] : (ranges ? *ranges : none).items()) {
            ExportedRange r;
            const Json& lo = range.at("min_val");
            const Json& hi = range.at("max_val");
            r.min = lo.is_number_integer() ? intOf<std::int64_t>(lo) : 0;
            if (hi.is_number_integer())
                r.max = intOf<std::int64_t>(hi);
            p.ranges[symbol] = r;
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("its serialized_exported_program.json lacks what schema " +
                                 std::to_string(kExportSchemaMajor) + " has (" + e.what() + ")");
    }
    return p;
}

} // namespace

ExportedProgram parseExportedProgram(const std::string& written, const std::string& member) {
    // The readers above speak of the legacy layout's member; a PT2 archive's is another.
    const std::string legacy = "its serialized_exported_program.json";
    try {
        ExportedProgram p = parseProgram(written);
        p.jsonBytes = written.size();
        return p;
    } catch (const std::runtime_error& e) {
        std::string why = e.what();
        if (why.rfind(legacy, 0) == 0)
            why = "its " + member + why.substr(legacy.size());
        throw std::runtime_error(why);
    }
}

std::string exportedDtypeName(int scalarType) {
    switch (scalarType) {
    case 1:
        return "torch.uint8";
    case 2:
        return "torch.int8";
    case 3:
        return "torch.int16";
    case 4:
        return "torch.int32";
    case 5:
        return "torch.int64";
    case 6:
        return "torch.float16";
    case 7:
        return "torch.float32";
    case 8:
        return "torch.float64";
    case 9:
        return "torch.complex32";
    case 10:
        return "torch.complex64";
    case 11:
        return "torch.complex128";
    case 12:
        return "torch.bool";
    case 13:
        return "torch.bfloat16";
    case 28:
        return "torch.uint16";
    case 29:
        return "torch.float8_e4m3fn";
    case 30:
        return "torch.float8_e5m2";
    case 31:
        return "torch.float8_e4m3fnuz";
    case 32:
        return "torch.float8_e5m2fnuz";
    case 33:
        return "torch.float8_e8m0fnu";
    case 34:
        return "torch.uint32";
    case 35:
        return "torch.uint64";
    default:
        return "torch.unknown";
    }
}

namespace {

// A list argument, each item made by `make`.
template <class Items, class Make> Argument listOf(const Items& items, Make make) {
    std::vector<Argument> made;
    for (const auto& item : items)
        made.push_back(make(item));
    return Argument::ofList(std::move(made));
}

} // namespace

Argument exportedArgument(const ExportedValue& v) {
    using K = ExportedValue::Kind;
    switch (v.kind) {
    case K::None:
        return Argument::none();
    case K::Tensor:
    case K::SymInt:
        return Argument::ofNode(v.name);
    case K::Tensors:
        return listOf(v.names, [](const std::string& n) {
            return n.empty() ? Argument::none() : Argument::ofNode(n);
        });
    case K::Int:
        return Argument::ofInt(v.integer);
    case K::Ints: // items only where a member is symbolic
        return v.items.empty() ? listOf(v.ints, Argument::ofInt)
                               : listOf(v.items, exportedArgument);
    case K::Float:
        return Argument::ofFloat(v.real);
    case K::Complex: // torch.fx prints a complex as Python's repr does: (0.5-0.25j), 2j
        return Argument::ofRepr(pythonComplexRepr(v.real, v.imag));
    case K::Floats:
        return listOf(v.floats, Argument::ofFloat);
    case K::Bool:
        return Argument::ofBool(v.boolean);
    case K::Bools:
        return listOf(v.bools, Argument::ofBool);
    case K::String:
        return Argument::ofString(v.text);
    case K::Strings:
        return listOf(v.strings, Argument::ofString);
    case K::ScalarType:
        return Argument::ofRepr(exportedDtypeName(static_cast<int>(v.integer)));
    case K::MemoryFormat: {
        const char* names[] = {"None", "torch.contiguous_format", "torch.channels_last",
                               "torch.channels_last_3d", "torch.preserve_format"};
        return Argument::ofRepr(v.integer >= 0 && v.integer <= 4 ? names[v.integer] : "None");
    }
    case K::Layout:
        return Argument::ofRepr(v.integer == 7 ? "torch.strided" : "torch.sparse_coo");
    case K::Device:
        return Argument::ofRepr(v.integer >= 0 ? v.text + ":" + std::to_string(v.integer) : v.text);
    case K::Graph:
        return Argument::ofNode(v.name);
    case K::Operator: // torch.fx prints an OpOverload as aten._print.default
        return Argument::ofRepr(v.text.rfind("torch.ops.", 0) == 0 ? v.text.substr(10) : v.text);
    case K::Unsupported:
        return Argument::ofRepr("<" + v.text + ">");
    }
    return Argument::none();
}

std::size_t OutputTree::leaves() const {
    if (kind == Kind::Leaf)
        return 1;
    std::size_t n = 0;
    for (const OutputTree& c : children)
        n += c.leaves();
    return n;
}

} // namespace fxview
