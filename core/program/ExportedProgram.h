#pragma once
// A torch.export program (.pt2) as its serialized_exported_program.json says, in plain C++: no
// LibTorch types, so the graph can be read and drawn before (or without) loading the weights.
// The format is PyTorch 2.6's torch/_export/serde/schema.py (schema 8.x).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Graph.h"

namespace fxview {

struct ExportedGraph;

// One serialized `Argument` (schema.py): a tensor by name, a literal, or a list of them.
struct ExportedValue {
    enum class Kind {
        None,
        Tensor,
        Tensors, // names; "" for a None inside as_optional_tensors
        Int,     // as_int, a concrete as_sym_int
        Ints,    // as_ints, concrete as_sym_ints
        SymInt,  // a symbolic int, float or bool: `name` is the node that computes it
        Float,
        Complex, // as_complex: `real` and `imag`
        Floats,
        Bool,
        Bools,
        String,
        Strings,
        ScalarType,   // `integer` is schema.py's ScalarType
        MemoryFormat, // schema.py's MemoryFormat
        Layout,       // schema.py's Layout
        Device,       // `text` "cpu", `integer` the index or -1
        Graph,        // a higher-order op's subgraph (torch.cond's branches): `name`, `graph`
        Operator,     // as_operator (with_effects' op): `text` "torch.ops.aten._print.default"
        Unsupported   // `text` names the JSON key (as_custom_obj...)
    };
    Kind kind = Kind::None;
    std::string name; // Tensor, SymInt
    std::vector<std::string> names;
    std::int64_t integer = 0;
    double real = 0.0, imag = 0.0;
    bool boolean = false;
    std::string text;
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
    std::vector<bool> bools;
    std::vector<std::string> strings;
    std::vector<ExportedValue> items;           // Ints with symbolic members: each one
    std::shared_ptr<const ExportedGraph> graph; // Graph
};

struct ExportedNode {
    std::string target; // "torch.ops.aten.linear.default"
    std::string name;   // schema 8.x's Node.name (2.14 writes it): the fx node's name when set
    // is_hop_single_tensor_return: a higher-order op's one tensor output is the op's value
    // itself (true, and the default of files without it) or the only item of a tuple (false).
    bool hopSingleTensorReturn = true;
    std::vector<std::pair<std::string, ExportedValue>> inputs; // schema argument name -> value
    // Per input, how the call spelled it (schema 8.x's NamedArgument.kind, written from about
    // PyTorch 2.8): 1 positional, 2 keyword, 0 not said (the schema's defaults decide).
    std::vector<int> inputKinds;
    std::vector<ExportedValue> outputs;
    std::string stackTrace;    // metadata: `  File "m.py", line 7, in forward\n    code\n`
    std::string nnModuleStack; // metadata: "key,path,type;key,path,type"
};

// A graph: the program's own, or a subgraph a higher-order op runs (its inputs are its
// placeholders, named in its own namespace).
struct ExportedGraph {
    std::vector<ExportedValue> inputs;
    std::vector<ExportedNode> nodes;
    std::vector<ExportedValue> outputs;
    bool singleTensorReturn = false;
};

struct ExportedInput {
    enum class Kind { UserInput, Parameter, Buffer, TensorConstant, CustomObject, Token, Constant };
    Kind kind = Kind::UserInput;
    std::string name;   // the placeholder's name
    std::string target; // the parameter's, buffer's or constant's name: "fc1.weight"
    bool persistent = true;
    ExportedValue value; // Constant: the value export specialised (ep.module() checks it)
};

struct ExportedOutput {
    enum class Kind { UserOutput, LossOutput, BufferMutation, UserInputMutation, Token, Other };
    Kind kind = Kind::UserOutput;
    ExportedValue value;
    std::string target; // the buffer or input it mutates
};

struct ExportedTensorMeta {
    int dtype = 0;                    // schema.py's ScalarType
    std::vector<std::int64_t> sizes;  // -1 where symbolic
    std::vector<std::string> symbols; // per dimension: the symbol ("s0") where it is one, else ""
    std::vector<std::string> printed; // per dimension as PyTorch prints it: "4", "s77", "2*s77"
    bool symbolic() const {
        for (std::int64_t s : sizes)
            if (s < 0)
                return true;
        return false;
    }
};

// A dynamic dimension's declared range (torch.export.Dim("batch", min=2, max=64)).
struct ExportedRange {
    std::int64_t min = 0;
    std::optional<std::int64_t> max; // none: unbounded
};

// How ep.module() puts the flat user outputs back together: torch.utils._pytree's spec
// (graph_module.module_call_graph[0].signature.out_spec). A leaf is one output.
struct OutputTree {
    enum class Kind { Leaf, Tuple, List, Dict };
    Kind kind = Kind::Leaf;
    std::vector<std::string> keys; // Dict: its keys, in order (ints in decimal)
    bool intKeys = false;          // Dict: the keys are ints (else strings)
    std::vector<OutputTree> children;
    std::size_t leaves() const;
};

struct ExportedProgram {
    int schemaMajor = 0, schemaMinor = 0;
    std::string torchVersion;
    std::vector<ExportedInput> inputs; // the graph's placeholders, in order, with their roles
    std::vector<ExportedOutput> outputs;
    ExportedGraph graph;
    std::map<std::string, ExportedTensorMeta> tensors; // of the top graph
    std::map<std::string, ExportedRange> ranges;       // symbol -> range_constraints' range
    // The user outputs' structure, when the program keeps one fxview can rebuild (tuples,
    // lists, dicts, OrderedDicts and namedtuples, as a tuple); none: the flat tuple.
    std::optional<OutputTree> outputTree;
    // How ep.module() flattens (args, kwargs) to the user inputs and constants, in order: the
    // signature's in_spec, the same kind of spec (its root a tuple of the args' tuple and the
    // kwargs' dict).
    std::optional<OutputTree> inputTree;
    // The JSON's size: what the graph made of it may take is bounded by it (ExportGraphWalk).
    std::size_t jsonBytes = 0;
};

// The schema major version this reader follows (PyTorch 2.6 writes 8.2).
constexpr int kExportSchemaMajor = 8;

// Parses the JSON text; throws std::runtime_error with a sentence when it is not an exported
// program this reader understands.
// `member` names the JSON's member in the sentences of a damaged file.
ExportedProgram
parseExportedProgram(const std::string& json,
                     const std::string& member = "serialized_exported_program.json");

// How torch.fx prints a literal argument (None, 3, [1, 1], torch.float32, ...); a Tensor's
// reference is `%name`.
Argument exportedArgument(const ExportedValue& value);

// "torch.float32" for schema.py's ScalarType code.
std::string exportedDtypeName(int scalarType);

} // namespace fxview
