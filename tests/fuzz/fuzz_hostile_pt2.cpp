// Hostile .pt2 archives made from a recipe (issue 47): where fuzz_pt2_json and fuzz_archive mutate
// genuine files, this harness's input says what to build, so that the fuzzer reaches what
// mutation never does: JSON nested 100,000 deep in any field the reader touches, counts in the
// hundred thousands, a 1 MB stack trace on a node with 1,500 outputs, zip directories that lie.
// Each archive goes through the path fxview-reader takes for the window (and the engine takes
// before LibTorch): ZipArchive, readExportedArchive, the walk. A refusal is an exception with a
// sentence; a crash, a hang or a gigabyte (libFuzzer's -rss_limit_mb) is a bug.
//
// A recipe: byte 0 the case (below), bytes 1-4 its size (little-endian, clamped per case).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "ExportedArchive.h"
#include "FewSchemas.h"
#include "ZipArchive.h"

namespace {

// A Linear, a ReLU and a split into three, as PyTorch 2.6 exports it (torch.export.save's
// serialized_exported_program.json), with a mark where each case puts its value.
const std::string kProgram =
    R"({"graph_module":{"graph":{"inputs":[{"as_tensor":{"name":"p_fc_weight"}},{"as_tensor":{"name":"p_fc_bias"}},{"as_tensor":{"name":"x"}}],"outputs":[{"as_tensor":{"name":"getitem"}},{"as_tensor":{"name":"getitem_1"}},{"as_tensor":{"name":"getitem_2"}}],"nodes":[@NODES@{"target":"torch.ops.aten.linear.default","inputs":[{"name":"input","arg":{"as_tensor":{"name":"x"}}},{"name":"weight","arg":{"as_tensor":{"name":"p_fc_weight"}}},{"name":"bias","arg":{"as_tensor":{"name":"p_fc_bias"}}}],"outputs":[{"as_tensor":{"name":"linear"}}],"metadata":{"stack_trace":"  File \"m.py\", line 6, in forward\n    return x\n","nn_module_stack":"L__self__,,__main__.M;L__self___fc,fc,torch.nn.modules.linear.Linear"}},{"target":"torch.ops.aten.relu.default","name":@NAME@,"inputs":[{"name":"self","arg":{"as_tensor":{"name":"linear"}},"kind":@KIND@}],"outputs":[{"as_tensor":{"name":"relu"}}],"metadata":@META@},{"target":"torch.ops.aten.split.Tensor","inputs":[{"name":"self","arg":{"as_tensor":{"name":"relu"}}},{"name":"split_size","arg":{"as_int":1}},{"name":"dim","arg":{"as_int":1}}@INTS@],"outputs":@SPLITOUT@,"metadata":{"stack_trace":"@TRACE@","nn_module_stack":"L__self__,,__main__.M"}}],"tensor_values":{"p_fc_weight":{"dtype":7,"sizes":[{"as_int":3},{"as_int":4}],"requires_grad":true,"device":{"type":"cpu"},"strides":[{"as_int":4},{"as_int":1}],"storage_offset":{"as_int":0},"layout":7},"p_fc_bias":{"dtype":7,"sizes":[{"as_int":3}],"requires_grad":true,"device":{"type":"cpu"},"strides":[{"as_int":1}],"storage_offset":{"as_int":0},"layout":7},"x":{"dtype":@DTYPE@,"sizes":[{"as_int":2},{"as_int":4}],"requires_grad":false,"device":{"type":"cpu"},"strides":[{"as_int":4},{"as_int":1}],"storage_offset":{"as_int":0},"layout":7}},"sym_int_values":{},"sym_bool_values":{},"is_single_tensor_return":false,"custom_obj_values":{},"sym_float_values":{}},"signature":{"input_specs":[{"parameter":{"arg":{"name":"p_fc_weight"},"parameter_name":"fc.weight"}},{"parameter":{"arg":{"name":"p_fc_bias"},"parameter_name":"fc.bias"}},{"user_input":{"arg":@SPEC@}}],"output_specs":[{"user_output":{"arg":{"as_tensor":{"name":"getitem"}}}},{"user_output":{"arg":{"as_tensor":{"name":"getitem_1"}}}},{"user_output":{"arg":{"as_tensor":{"name":"getitem_2"}}}}]},"module_call_graph":[{"fqn":"","signature":{"inputs":[],"outputs":[],"in_spec":"null","out_spec":"@OUTSPEC@","forward_arg_names":["x"]}},{"fqn":"fc"}],"metadata":{}},"opset_version":{"aten":10},"range_constraints":@RANGES@,"schema_version":{"major":@MAJOR@,"minor":2},"verifiers":["TRAINING"],"torch_version":"2.6.0+debian"})";

const std::vector<std::pair<std::string, std::string>> kBenign = {
    {"@NODES@", ""},
    {"@NAME@", R"("relu")"},
    {"@KIND@", "1"},
    {"@META@",
     R"({"stack_trace":"  File \"m.py\", line 6, in forward\n    return x\n","nn_module_stack":"L__self__,,__main__.M"})"},
    {"@INTS@", ""},
    {"@SPLITOUT@",
     R"([{"as_tensors":[{"name":"getitem"},{"name":"getitem_1"},{"name":"getitem_2"}]}])"},
    {"@TRACE@", R"(  File \"m.py\", line 6, in forward\n    return x\n)"},
    {"@DTYPE@", "7"},
    {"@SPEC@", R"({"as_tensor":{"name":"x"}})"},
    {"@OUTSPEC@",
     R"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": null, \"context\": null, \"children_spec\": []}, {\"type\": null, \"context\": null, \"children_spec\": []}, {\"type\": null, \"context\": null, \"children_spec\": []}]}])"},
    {"@RANGES@", "{}"},
    {"@MAJOR@", "8"},
};

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

template <typename F> std::string repeated(std::size_t n, F item, const char* comma = ",") {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += (i ? comma : "") + item(i);
    return out;
}

// The program with `mark` set to `value` and every other mark benign.
std::string program(const std::string& mark = {}, const std::string& value = {}) {
    std::string text = kProgram;
    for (const auto& [m, benign] : kBenign) {
        const std::size_t at = text.find(m);
        text.replace(at, m.size(), m == mark ? value : benign);
    }
    return text;
}

void le(std::string& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// A stored zip, written as torch.export.save writes its legacy layout; entry() adds directory
// entries of its own, which may name any bytes.
struct Zip {
    std::string body, directory;
    std::size_t count = 0;
    // A stored member; its directory entry may claim other sizes than its bytes'.
    std::size_t add(const std::string& name, const std::string& data,
                    std::size_t compressed = SIZE_MAX, std::size_t uncompressed = SIZE_MAX) {
        const std::size_t at = body.size();
        body += "PK\x03\x04";
        le(body, 20, 2), le(body, 0, 2), le(body, 0, 2), le(body, 0, 4), le(body, 0, 4);
        le(body, data.size(), 4), le(body, data.size(), 4), le(body, name.size(), 2);
        le(body, 0, 2);
        body += name + data;
        entry(name, at, compressed == SIZE_MAX ? data.size() : compressed,
              uncompressed == SIZE_MAX ? data.size() : uncompressed);
        return at;
    }
    void entry(const std::string& name, std::size_t at, std::size_t compressed,
               std::size_t uncompressed) {
        directory += "PK\x01\x02";
        le(directory, 20, 2), le(directory, 20, 2), le(directory, 0, 2), le(directory, 0, 2);
        le(directory, 0, 4), le(directory, 0, 4), le(directory, compressed, 4);
        le(directory, uncompressed, 4), le(directory, name.size(), 2), le(directory, 0, 2);
        le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 4);
        le(directory, at, 4);
        directory += name;
        ++count;
    }
    std::string bytes() const {
        std::string out = body + directory + "PK\x05\x06";
        le(out, 0, 4), le(out, count, 2), le(out, count, 2), le(out, directory.size(), 4);
        le(out, body.size(), 4), le(out, 0, 2);
        return out;
    }
};

constexpr const char* kProgramMember = "serialized_exported_program.json";

Zip legacy(const std::string& json) {
    Zip zip;
    zip.add(kProgramMember, json);
    zip.add("serialized_state_dict.pt", "weights");
    zip.add("serialized_constants.pt", "constants");
    zip.add("version", "1");
    return zip;
}

// The archive a recipe asks for.
std::string archive(std::uint8_t kind, std::uint32_t size) {
    const std::size_t depth = std::clamp<std::size_t>(size, 1, 200000);
    const std::size_t count = std::clamp<std::size_t>(size, 1, 100000);
    switch (kind % 18) {
    case 0:
        return legacy(program("@MAJOR@", nested(depth))).bytes();
    case 1:
        return legacy(program("@SPEC@", nested(depth))).bytes();
    case 2:
        return legacy(program("@NAME@", nested(depth))).bytes();
    case 3:
        return legacy(program("@META@", "{\"stack_trace\":" + nested(depth) + "}")).bytes();
    case 4:
        return legacy(program("@KIND@", nested(depth))).bytes();
    case 5:
        return legacy(program("@RANGES@", "{\"s0\":{\"min_val\":" + nested(depth) + "}}")).bytes();
    case 6:
        return legacy(program("@DTYPE@", nested(depth))).bytes();
    case 7: // inside the out_spec string, which a reader of its own parses
        return legacy(program("@OUTSPEC@", "[1, " + nested(depth) + "]")).bytes();
    case 8: // one node with `count` outputs of None: a fresh getitem name each
        return legacy(program("@SPLITOUT@", "[" +
                                                repeated(count,
                                                         [](std::size_t) {
                                                             return std::string(
                                                                 R"({"as_none":true})");
                                                         }) +
                                                "]"))
            .bytes();
    case 9: // `count` unnamed nodes of one target: a fresh name each
        return legacy(
                   program(
                       "@NODES@",
                       repeated(
                           count,
                           [](std::size_t) {
                               return std::string(
                                   R"({"target":"torch.ops.aten.relu.default","inputs":[],"outputs":[]})");
                           }) +
                           ","))
            .bytes();
    case 10: { // a trace of `count` * 40 bytes on a node with 1,500 outputs: a copy per getitem
        std::string json = program("@TRACE@", std::string(count * 40, 'x'));
        const std::string outputs =
            "[" +
            repeated(1500,
                     [](std::size_t i) {
                         return R"({"as_tensor":{"name":"o)" + std::to_string(i) + "\"}}";
                     }) +
            "]";
        const std::string benign = kBenign[5].second;
        json.replace(json.find(benign), benign.size(), outputs);
        return legacy(json).bytes();
    }
    case 11: // `count` * 30 ints in a view's size, which its schema places
        return legacy(
                   program(
                       "@NODES@",
                       R"({"target":"torch.ops.aten.view.default","inputs":[{"name":"self","arg":{"as_tensor":{"name":"x"}}},{"name":"size","arg":{"as_ints":[)" +
                           repeated(count * 30, [](std::size_t) { return std::string("1"); }) +
                           R"(]}}],"outputs":[{"as_tensor":{"name":"viewed"}}]},)"))
            .bytes();
    case 12: { // `count` directory entries naming one 1 MB member under other names
        Zip zip = legacy(program());
        const std::size_t at = zip.add("shared", "pt2" + std::string(1 << 20, ' '));
        for (std::size_t i = 0; i < count; ++i)
            zip.entry("a" + std::to_string(i) + "/archive_format", at, (1 << 20) + 3,
                      (1 << 20) + 3);
        return zip.bytes();
    }
    case 13: { // the program padded to `count` KB, its directory claiming 100 bytes
        Zip zip;
        zip.add("serialized_state_dict.pt", "weights");
        zip.add("serialized_constants.pt", "constants");
        const std::string json = program() + std::string(count << 10, ' ');
        zip.add(kProgramMember, json, size % 2 ? 100 : json.size(), 100);
        return zip.bytes();
    }
    case 14: { // the program's entry pointing into the weights' bytes
        Zip zip;
        const std::size_t weights = zip.add("serialized_state_dict.pt", program());
        zip.add("serialized_constants.pt", "constants");
        zip.entry(kProgramMember, weights, program().size(), program().size());
        return zip.bytes();
    }
    case 15: { // `count` members beside the program: each found by name
        Zip zip = legacy(program());
        for (std::size_t i = 0; i < count; ++i)
            zip.add("extra/m" + std::to_string(i), "x");
        return zip.bytes();
    }
    case 16: // a name whose suffix is past any machine integer (std::stoll threw)
        return legacy(program("@NAME@", "\"relu_" + std::string(count % 60 + 20, '9') + "\""))
            .bytes();
    default: // a long node name, `count` * 100 bytes, on every getitem's scope
        return legacy(program("@NAME@", "\"" + std::string(count * 100, 'n') + "\"")).bytes();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 5)
        return 0;
    const std::uint32_t amount =
        data[1] | (data[2] << 8) | (data[3] << 16) | (static_cast<std::uint32_t>(data[4]) << 24);
    static const std::string path = "/tmp/fxview-fuzz-hostile-" + std::to_string(getpid());
    const std::string bytes = archive(data[0], amount);
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
        try {
            fxview::ZipArchive zip;
            std::string why;
            if (zip.open(path, why)) {
                const fxview::ExportedArchive pieces =
                    fxview::readExportedArchive(zip, {}, std::uint64_t(64) << 20);
                FewSchemas listener;
                fxview::ExportGraphWalk(pieces.program, listener).run();
            }
        } catch (const std::runtime_error&) { // a sentence: what a hostile file gets
        }
        std::remove(path.c_str());
    }
    return 0;
}
