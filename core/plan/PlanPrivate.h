#pragma once
// Core-internal: the executable side of a traced graph. For every fx Node the tracer emits, it
// also emits a Step saying how to compute that node's value with LibTorch, so the interpreter
// runs exactly the operations the module's own forward runs, in the same order, on the same
// inputs. Include only from core's .cpp files.

#include <torch/csrc/jit/ir/ir.h>
#include <torch/script.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "TraceResult.h"

namespace fxview {

// Where an operand comes from: a constant, the value of an earlier node (its slot), or a list,
// tuple or dict put together from such operands at run time (a folded prim::ListConstruct, a
// dict literal filled by `d["out"] = x`).
struct ValueSource {
    enum class Kind { Constant, Slot, List, Tuple, Dict };
    Kind kind = Kind::Constant;
    c10::IValue constant;
    int slot = -1;
    c10::TypePtr listElement;      // List: the element type; Dict: the value type
    c10::TypePtr dictKey;          // Dict: the key type
    std::vector<c10::IValue> keys; // Dict: its keys in insertion order, items holding the values
    std::vector<ValueSource> items;

    static ValueSource ofConstant(c10::IValue v) {
        ValueSource s;
        s.constant = std::move(v);
        return s;
    }
    static ValueSource ofSlot(int slot) {
        ValueSource s;
        s.kind = Kind::Slot;
        s.slot = slot;
        return s;
    }
    void forEachSlot(const std::function<void(int)>& visit) const {
        if (kind == Kind::Slot)
            visit(slot);
        for (const ValueSource& item : items)
            item.forEachSlot(visit);
    }
};

struct StepBlock {
    std::vector<int> params; // slots bound on entry (loop counter, carried values)
    std::vector<int> steps;  // step ids, in order
    std::vector<ValueSource> results;
};

// How a higher-order op runs its subgraphs (blocks), as PyTorch's dense implementations in
// torch/_higher_order_ops/ do. Its flat inputs are the lists it takes, one after another.
struct HopSpec {
    enum class Kind {
        WhileLoop, // blocks: cond, body; inputs: carried, then additional
        Scan,      // blocks: combine; inputs: init, xs, additional
        Map,       // blocks: body; inputs: xs, then the arguments every slice gets
        SetGrad,   // wrap_with_set_grad_enabled: the block under torch.set_grad_enabled(grad)
        Autocast,  // wrap_with_autocast: the block under torch.autocast(...)
        Call       // invoke_subgraph: the block once on the operands, its results the op's
    };
    Kind kind = Kind::WhileLoop;
    std::size_t carried = 0;                       // WhileLoop: carried inputs; Scan: init's
    std::size_t mapped = 0;                        // Scan, Map: the xs, sliced along dim 0
    bool grad = true;                              // SetGrad
    c10::DeviceType device = c10::DeviceType::CPU; // Autocast
    std::optional<c10::ScalarType> dtype;          // Autocast: unset is the device's default
    bool enabled = true, cacheEnabled = true;      // Autocast
};

struct Step {
    enum class Kind {
        Placeholder,
        Attribute,
        CallModule,
        Operator,
        Function,
        GetItem,
        PassThrough, // a traced call whose module returned its input unchanged (see Tracer)
        If,
        Loop,
        Hop, // a higher-order op of torch.export other than cond (while_loop, scan...): `hop`
        Raise,
        Assert, // torch._assert(condition, message): raises AssertionError when it is false
        Warn,   // aten::warn, which TorchScript's interpreter implements itself: noted, run goes on
        Output
    };
    Kind kind = Kind::Operator;
    std::string name; // the fx node's name
    int slot = -1;    // where its value goes
    int outputs = 1;  // how many values the TorchScript node yields; more than one are a tuple
    std::vector<ValueSource> inputs;
    mutable std::optional<torch::jit::Operation> operation; // Operator (its call is non-const)
    std::string unsupported; // Operator that LibTorch cannot run on its own
    // A vararg operator (aten::format, prim::Print) pops its input count first: TorchScript's
    // interpreter pushes it after the inputs (its OPN instruction). -1 for every other operator.
    int varargCount = -1;
    torch::jit::Module module;                // CallModule
    torch::jit::Function* function = nullptr; // CallModule (the method) and Function
    c10::IValue attribute;                    // Attribute: the parameter, buffer or tensor constant
    // Attribute read when it first runs, not when the graph is made: a .pt2's weights.
    std::function<c10::IValue()> loadAttribute;
    // Attribute of a higher-order op's subgraph (true_graph_0): what the inspector shows for it,
    // "true_graph_0 (2 inputs, 1 output)", as torch's get_attr yields the GraphModule drawn inside
    // the op.
    std::string subgraph;
    // Output of a .pt2: what ep.module() returns made from the graph's flat outputs (the user
    // outputs in their out_spec structure); unset: the flat tuple is the value.
    std::function<c10::IValue(const c10::IValue&)> shapeOutput;
    int index = 0;                 // Placeholder: which input; GetItem: which item
    int unpacked = -1;             // GetItem of `a, b = items`: how many items there must be
    std::vector<StepBlock> blocks; // If: the branches; Loop: the body; Hop: its subgraphs
    std::optional<HopSpec> hop;    // Hop
    bool yieldsList = false;       // If of torch.cond: its value is the list of the results
};

// One of forward's arguments: what it accepts and, when it may be left out, its default.
struct PlaceholderSpec {
    std::string name;
    c10::TypePtr type;
    std::optional<c10::IValue> defaultValue;
    // Where a complete tensor type came from, for the input note.
    std::string typeOrigin = "the shape it was traced with";
    // A .pt2's example input, the default value (none for other archives).
    std::optional<c10::IValue> example;
    // A .pt2's dynamic dimensions (torch.export.Dim): an input outside the range is refused.
    struct DynamicDim {
        int dim;
        std::string symbol;
        std::int64_t min;
        std::optional<std::int64_t> max;
    };
    std::vector<DynamicDim> dynamicDims;
    // A .pt2 input's exported sizes, -1 at a dynamic dimension: other sizes are refused.
    std::optional<std::vector<std::int64_t>> exportedSizes;
};

struct ExecutionPlan {
    std::vector<PlaceholderSpec> inputs;         // forward's arguments after self, in order
    std::vector<Step> steps;                     // one per fx node, in pre-order
    std::vector<int> top;                        // the top-level steps, in order
    std::unordered_map<std::string, int> stepOf; // node name -> step id
    int slotCount = 0;
    int placeholders = 0;
    // Operators run as a plain call of torch.export's ep.module() runs them: grad mode on (bar
    // wrap_with_set_grad_enabled blocks), their outputs keeping requires_grad (EagerGrad.h).
    // TorchScript's run without grad, as its tests' forward() does.
    bool eagerGrad = false;
    // A torch.export program whose inputs nest (ExportedInputs.h): flattens the one value a file
    // holds, as ep.module() takes it, into the user inputs; "" or a sentence. Empty otherwise.
    using Flatten = std::function<std::string(const c10::IValue&, std::vector<c10::IValue>&)>;
    Flatten flattenInputs;
    // How Step Into opens a CallModule or Function step: the module's (the function's) own graph
    // and plan, made by the importer that made this one (the TorchScript tracer). Unset: such
    // steps run whole.
    std::function<TraceResult(const Step&)> traceCallee;
};

} // namespace fxview
