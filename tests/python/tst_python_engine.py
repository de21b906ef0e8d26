"""The Python engine (python3 -m fxview.engine) as the window meets it: a process of this root's
PyTorch speaking the protocol on its stdin/stdout.

1. Every .pt2 fixture this root's PyTorch wrote (FIXTURE DIRS: NAME.pt2 beside NAME.pt2.txt or
   NAME.graph.txt, that PyTorch's print(ep.graph)) opens: the engine's graphText is that print,
   the window's walk of the program (fxview-reader --schemas with the schemas the engine sent,
   printed by wire_peer print-reading) prints it too, and Continue ends with "outputs equal to
   ep.module()".
2. A program calling an operator registered in Python with torch.library, or returning a pytree
   class (modules written here), is refused naming the module to --import (read from the
   archive), until the engine imports it; then it runs equal. So does transformers' own GPT-2
   output class, where the root has transformers (sid's).
3. Files it cannot open get one sentence each: a TorchScript archive, a file that is no zip, a
   missing file, an --import that fails.
4. Step, a breakpoint, Reset and Interrupt; the engine ends when its stdin closes.
5. Headless, the same code: `python3 -m fxview graph` prints fixtures as their PyTorch did, and
   `python3 -m fxview run --input file:IN.pt --save-outputs OUT.pt` on the inputs the fixture was
   written with saves outputs torch.equal to that PyTorch's ep.module() on them.

Environment: FXVIEW_READER, WIRE_PEER, FXVIEW_TEST_OPS (tests/fixtures/ops' library, which
some fixtures call). Exits 1 with one FAIL line per failed check."""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from fxview import wire

sys.path.insert(0, str(Path(__file__).parent.parent))  # checks.py
from checks import check, run_groups  # noqa: E402
from engine_pipe import Engine  # noqa: E402
from two_checkpoints import write_two  # noqa: E402

READER = os.environ["FXVIEW_READER"]
PEER = os.environ["WIRE_PEER"]
PACKAGE = str(Path(__file__).resolve().parents[2] / "python")


def walked_text(path, schemas):
    """The window's graph of the program: fxview-reader walks it with the engine's schemas."""
    read = subprocess.run([READER, "--unconfined", "--schemas", str(path)],
                          input=schemas.encode(), capture_output=True, timeout=60)
    printed = subprocess.run([PEER, "print-reading"], input=read.stdout, capture_output=True,
                             timeout=60)
    if printed.returncode != 0:
        return "<not drawn: " + printed.stderr.decode().strip() + ">"
    return printed.stdout.decode()


def fixtures(dirs):
    for folder in dirs:
        for pt2 in sorted(Path(folder).glob("*.pt2")):
            for text in (pt2.with_name(pt2.name + ".txt"), pt2.with_suffix(".graph.txt")):
                if text.is_file():
                    yield pt2, text.read_text().rstrip("\n") + "\n"


def runs_every_fixture(dirs):
    engine = Engine()
    count = 0
    # The fixtures calling fxview's test ops (tests/fixtures/ops) load their library (--ops).
    libraries = [os.environ["FXVIEW_TEST_OPS"]] if os.environ.get("FXVIEW_TEST_OPS") else []
    for pt2, printed in fixtures(dirs):
        count += 1
        got = engine.open(pt2, opLibraries=libraries)
        if wire.OPEN_FAILED in got:
            check(False, f"{pt2.name}: {got[wire.OPEN_FAILED][0]}")
            continue
        opened = got[wire.OPENED][0]
        check(opened.graphText == printed, f"{pt2.name}: the engine's graphText is not "
                                           "print(ep.graph) of the PyTorch that wrote it")
        check(opened.graph.nodes == [], f"{pt2.name}: the engine made a graph of its own")
        walked = walked_text(pt2, opened.schemas)
        check(walked == printed, f"{pt2.name}: the walk with the engine's schemas prints "
                                 f"otherwise:\n{walked}\n---\n{printed}")
        ran = engine.command(wire.RUN_TO_END)
        if wire.STATE not in ran:
            check(False, f"{pt2.name}: Continue answered {ran}")
            continue
        state = ran[wire.STATE][-1]
        check(state.finished and not state.failed, f"{pt2.name}: the run failed: {state.failure}")
        check(state.outputCheck.verdict == wire.EQUAL
              and state.outputCheck.message == "outputs equal to ep.module()",
              f"{pt2.name}: {state.outputCheck}")
    check(count >= 10, f"only {count} fixtures were found in {dirs}")
    check(engine.close() == 0, "the engine did not end cleanly when its stdin closed")
    print(f"{count} fixtures opened, walked and run")


OPS_MODULE = '''
import torch

@torch.library.custom_op("fxview_test::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale

@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


class UsesOp(torch.nn.Module):  # registers and calls it, as transformers' MoE does
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.ops.fxview_test.scaled_tanh(self.fc(x), 0.5) + 1
'''

OUTPUTS_MODULE = '''
import torch
import torch.utils._pytree as pytree


class Pair:
    def __init__(self, first, second):
        self.first, self.second = first, second


pytree.register_pytree_node(Pair, lambda p: ([p.first, p.second], None),
                            lambda children, _: Pair(*children),
                            serialized_type_name="my_outputs.Pair")


class ReturnsPair(torch.nn.Module):
    def forward(self, x):
        return Pair(x + 1, x * 2)
'''


def python_registered_op(folder):
    """A program calling torch.ops.fxview_test.scaled_tanh, registered by a module of the
    person's own: refused naming --import without it, equal to ep.module() with it."""
    (folder / "my_ops.py").write_text(OPS_MODULE)
    sys.path.insert(0, str(folder))
    import my_ops

    torch.manual_seed(0)
    path = folder / "uses_op.pt2"
    torch.export.save(torch.export.export(my_ops.UsesOp(), (torch.randn(2, 4),)), str(path))
    engine = Engine(env={"PYTHONPATH": PACKAGE + os.pathsep + str(folder)})
    refused = engine.open(path)
    failed = refused.get(wire.OPEN_FAILED, [""])[0]
    # The program's stack trace names the module that called the op; the engine offers it.
    check("it calls torch.ops.fxview_test.scaled_tanh.default" in failed and
          "--import my_ops" in failed, f"an unknown Python op: {failed!r}")
    offered = refused.get(wire.IMPORTS_OFFERED, [wire.ImportOffer()])
    check(len(offered) == 1 and offered[0].modules == ["my_ops"], f"offered: {offered}")
    got = engine.open(path, imports=["my_ops"])
    check(wire.OPENED in got, f"with --import my_ops: {got}")
    if wire.OPENED in got:
        schemas = got[wire.OPENED][0].schemas
        check("fxview_test::scaled_tanh x scale ->1" in schemas, f"its schema: {schemas!r}")
        state = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
        check(state.outputCheck.message == "outputs equal to ep.module()", str(state.outputCheck))
        walked = walked_text(path, schemas)
        check("torch.ops.fxview_test.scaled_tanh.default" in walked, f"walked:\n{walked}")
    engine.close()


def python_pytree_class(folder):
    """A program returning a pytree class of the person's own module: refused naming the class
    and --import its module, then equal to ep.module() with it."""
    (folder / "my_outputs.py").write_text(OUTPUTS_MODULE)
    sys.path.insert(0, str(folder))
    import my_outputs

    path = folder / "returns_pair.pt2"
    torch.export.save(torch.export.export(my_outputs.ReturnsPair(), (torch.randn(3),)), str(path))
    engine = Engine(env={"PYTHONPATH": PACKAGE + os.pathsep + str(folder)})
    refused = engine.open(path)
    failed = refused.get(wire.OPEN_FAILED, [""])[0]
    check("my_outputs.Pair" in failed and "--import my_outputs" in failed,
          f"an unregistered pytree class: {failed!r}")
    offered = refused.get(wire.IMPORTS_OFFERED, [wire.ImportOffer()])
    check(len(offered) == 1 and offered[0].modules == ["my_outputs"], f"offered: {offered}")
    got = engine.open(path, imports=["my_outputs"])
    check(wire.OPENED in got, f"with --import my_outputs: {got}")
    if wire.OPENED in got:
        state = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
        check(state.outputCheck.message == "outputs equal to ep.module()", str(state.outputCheck))
    engine.close()


def hugging_face_output(folder):
    """transformers' own output class (sid's root has transformers 5): a GPT-2 of a small config
    returns CausalLMOutputWithCrossAttentions, which torch.export.load refuses until
    transformers.modeling_outputs is imported; the engine says so, then runs it equal."""
    import importlib.util

    if importlib.util.find_spec("transformers") is None:
        print("this root has no transformers: its Hugging Face check runs in sid's")
        return
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=50, n_positions=32,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    path = folder / "gpt2.pt2"
    ids = torch.randint(0, 50, (1, 8))
    torch.export.save(torch.export.export(model, (ids,), kwargs={"use_cache": False}), str(path))
    engine = Engine()
    failed = engine.open(path).get(wire.OPEN_FAILED, [""])[0]
    check("transformers.modeling_outputs.CausalLMOutputWithCrossAttentions" in failed and
          failed.endswith("--import transformers.modeling_outputs."), f"GPT-2: {failed!r}")
    got = engine.open(path, imports=["transformers.modeling_outputs"])
    check(wire.OPENED in got, f"GPT-2 with --import: {got}")
    if wire.OPENED in got:
        state = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
        check(state.outputCheck.message == "outputs equal to ep.module()", str(state.outputCheck))
    engine.close()


def refusals(folder):
    engine = Engine()
    script = folder / "scripted.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), str(script))
    junk = folder / "junk.pt2"
    junk.write_bytes(b"not a zip at all")
    sentences = {
        script: "is a TorchScript archive",
        junk: "is not a zip archive",
        folder / "missing.pt2": "There is no file",
    }
    for path, expected in sentences.items():
        said = engine.open(path).get(wire.OPEN_FAILED, [""])[0]
        check(expected in said, f"{path.name}: {said!r}")
    program = folder / "uses_op.pt2"  # written by python_registered_op
    said = engine.open(program, imports=["no_such_module_anywhere"]).get(wire.OPEN_FAILED, [""])[0]
    check(said.startswith("--import no_such_module_anywhere failed"), f"a bad --import: {said!r}")
    said = engine.request(wire.EXECUTED_PATH).get(wire.FAILED, [""])[0]
    check(said == "No file is open in the Python engine.", f"a request before Open: {said!r}")
    engine.close()
    # A Python in which torch does not import: the engine says hello, then why it opens nothing.
    without = Engine(start=("-c", "import runpy, sys; sys.modules['torch'] = None; "
                                  "runpy.run_module('fxview.engine', run_name='__main__')"))
    said = without.open(program).get(wire.OPEN_FAILED, [""])[0]
    check(said.startswith("This Python (") and "has no PyTorch" in said and
          "--python PATH" in said, f"a Python without torch: {said!r}")
    check(without.close() == 0, "an engine without torch did not end with its stdin")


def stepping(pt2):
    """Step, a breakpoint that stops Continue, Reset, and Interrupt of a long run."""
    engine = Engine()
    engine.open(pt2)
    first = engine.command(wire.STEP)[wire.STATE][-1]
    check(first.last and not first.finished, f"Step: {first.last!r}")
    order = engine.command(wire.RUN_TO_END)[wire.STATE][-1].order
    engine.command(wire.RESET)
    target = order[len(order) // 2]
    engine.request(wire.SET_BREAKPOINT, wire.BreakpointRequest(node=target, on=True))
    stopped = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
    check(stopped.next == target and not stopped.finished,
          f"a breakpoint at {target}: stopped before {stopped.next!r}")
    engine.request(wire.SET_BREAKPOINT, wire.BreakpointRequest(node=target, on=False))
    engine.command(wire.RESET)
    # An Interrupt sent while Continue runs stops it before a node: the engine answers.
    engine.send(wire.COMMAND, wire.CommandRequest(command=wire.RUN_TO_END))
    engine.send(wire.INTERRUPT)
    state = engine.answers()[wire.STATE][-1]
    check(not state.failed, f"after Interrupt: {state.failure}")
    check(engine.close() == 0, "the engine did not end when its stdin closed")


OPENED_HOPS = ("cond", "invoke_subgraph", "while_loop", "scan", "map_impl",
               "wrap_with_set_grad_enabled", "wrap_with_autocast")


def step_into_hops(dirs):
    """Step Into every higher-order op the engine opens (python/fxview/hops.py), then Step to
    its end block by block: each block is a frame of its own (the frame's graph the subgraph's,
    while_loop's cond and body by turns), the op's record counts the blocks (while_loop's body
    runs, one for each time its cond said true; scan's and map's one per slice) and says the
    iteration it is in, and the frame names the block; once back in the program, Continue ends with outputs equal to
    ep.module(), so the op's value made block by block is PyTorch's. torch.cond and
    invoke_subgraph are also left by Step Out."""
    seen = set()
    for pt2, printed in fixtures(dirs):
        hops = re.findall(r"%(\w+) : .*call_function\[target=torch\.ops\.higher_order\.(\w+)\]",
                          printed)
        hops = [(name, op) for name, op in hops if op in OPENED_HOPS]
        if not hops:
            continue
        name, op = hops[0]
        seen.add(op)
        engine = Engine()
        engine.open(pt2, opLibraries=libraries_for(pt2)[1:])
        order = engine.command(wire.RUN_TO_END)[wire.STATE][-1].order
        engine.command(wire.RESET)
        engine.command(wire.RUN_TO, order[order.index(name) - 1])
        state = engine.command(wire.STEP_INTO)[wire.STATE][-1]
        frame = state.steppedInto
        check(frame is not None and frame.node == name and state.depth == 1 and
              state.last.startswith(name + "."),
              f"{pt2.name}: Step Into {name} gave depth {state.depth}, last {state.last!r}")
        if frame is None:
            engine.close()
            continue
        if op in ("cond", "invoke_subgraph"):
            out = engine.command(wire.STEP_OUT)[wire.STATE][-1]
            check(out.depth == 0 and out.last == name and out.steppedInto is None,
                  f"{pt2.name}: Step Out left depth {out.depth}, last {out.last!r}")
        else:
            graphs, runs, said, steps = [], [], [], 0
            while state.depth > 0 and not state.failed and steps < 10000:
                names = tuple(n.name for n in state.steppedInto.graph.nodes)
                if state.steppedInto.last == names[0]:  # a block's first node: a new block
                    graphs.append(names)
                    said.append(state.steppedInto.moduleType)
                record = state.records.get(name)
                if record is not None and record.blockRuns:
                    runs.append(record.blockRuns[0])
                state = engine.command(wire.STEP)[wire.STATE][-1]
                steps += 1
            check(not state.failed and state.last == name,
                  f"{pt2.name}: stepping {name} to its end: {state.failure or state.last}")
            record = state.records.get(name)
            ran = record.blockRuns[0] if record is not None and record.blockRuns else None
            kinds = sorted(set(graphs))
            # The frame names each block ("while_loop: body_fn, iteration 2"): no two alike.
            check(len(set(said)) == len(said) and all(t.startswith(op) for t in said),
                  f"{pt2.name}: the blocks are named {said}")
            if op == "while_loop":
                bodies = sum(1 for g in graphs if g == graphs[1]) if len(graphs) > 1 else 0
                check(len(kinds) == (2 if ran else 1) and len(graphs) == 2 * ran + 1 and
                      bodies == ran, f"{pt2.name}: {len(graphs)} blocks for {ran} iterations")
            elif op in ("scan", "map_impl"):
                check(len(kinds) == 1 and ran == len(graphs) and ran > 1 and
                      runs == sorted(runs) and runs[-1] == ran,
                      f"{pt2.name}: {len(graphs)} blocks, block runs {ran}, seen {runs}")
            else:
                check(len(graphs) == 1 and ran is None,
                      f"{pt2.name}: {len(graphs)} blocks, block runs {ran}")
        end = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
        check(end.finished and end.outputCheck.verdict == wire.EQUAL,
              f"{pt2.name}: after Step Into {name}: {end.failure or end.outputCheck.message}")
        engine.close()
    check("cond" in seen, f"no fixture with a cond: {sorted(seen)}")
    print(f"stepped into {', '.join(sorted(seen))}")


def compare_two_files(folder):
    """Compare Runs with another .pt2 as run B (two checkpoints of one model): every node is
    paired by name, the input agrees, the first weight is where they part, and the output's max |a-b| is the one this PyTorch's own
    ep.module() of each file gives on the same input; a run B that cannot load is a sentence."""
    written, x, expected = write_two(str(folder))
    paths = [Path(p) for p in written]
    engine = Engine()
    engine.open(paths[0])
    got = engine.request(wire.COMPARE, wire.CompareRequest(modelB=str(paths[1])))
    answer = got.get(wire.COMPARISON, [wire.ComparisonAnswer(error="no answer")])[0]
    check(not answer.error, f"Compare with {paths[1].name}: {answer.error}")
    if not answer.error:
        doc = json.loads(answer.json)
        rows = {r["node"]: r for r in doc["nodes"]}
        check(not doc["only_a"] and not doc["only_b"] and
              all(r["match"] == "name" for r in doc["nodes"]), f"unpaired: {doc}")
        out = rows.get("linear_1", {})
        check(rows.get("x", {}).get("max_abs") == 0.0 and out.get("max_abs") == expected,
              f"max |a-b|: x {rows.get('x')}, linear_1 {out.get('max_abs')} for {expected}")
        # The weights are the program's first placeholders: the first of them differs.
        first = torch.export.load(str(paths[0])).graph_signature.input_specs[0].arg.name
        check(doc["first_divergence"] == first,
              f"first divergence {doc['first_divergence']}, not {first}")
    got = engine.request(wire.COMPARE, wire.CompareRequest(modelB=str(folder / "none.pt2")))
    answer = got.get(wire.COMPARISON, [wire.ComparisonAnswer(error="no answer")])[0]
    check(answer.error.startswith("Run B: There is no file"), f"a missing run B: {answer.error}")
    engine.close()


def references(pt2):
    """(arguments, outputs) pairs of ep.module() calls the fixture's writer made: NAME.inputs.pt
    and NAME.outputs.pt (lists, tests/fixtures/pt2_archive_models.py), or NAME_pt2_input[_K].pt
    and NAME_pt2_reference[_K].pt (tests/fixtures/export_models.py)."""
    stem = pt2.with_suffix("")
    if Path(f"{stem}.inputs.pt").is_file() and Path(f"{stem}.outputs.pt").is_file():
        return list(zip(torch.load(f"{stem}.inputs.pt"), torch.load(f"{stem}.outputs.pt")))
    pairs = []
    for suffix in ("", "_1", "_2"):
        given = Path(f"{stem}_pt2_input{suffix}.pt")
        expected = Path(f"{stem}_pt2_reference{suffix}.pt")
        if given.is_file() and expected.is_file():
            pairs.append((torch.load(given), torch.load(expected)))
    return pairs


def headless(dirs, folder):
    from fxview.summary import exactly_equal

    environment = dict(os.environ, PYTHONPATH=PACKAGE)
    ran = 0
    for index, (pt2, printed) in enumerate(fixtures(dirs)):
        # graph prints what the engine sent as graphText (one function), checked on every
        # fixture above: a few here, as each run costs an import of torch.
        if index % 8 == 0:
            shown = subprocess.run([sys.executable, "-m", "fxview", "graph", str(pt2)] +
                                   libraries_for(pt2),
                                   capture_output=True, text=True, env=environment, timeout=300)
            check(shown.stdout == printed, f"python3 -m fxview graph {pt2.name}: {shown.stderr}")
        for k, (arguments, outputs) in enumerate(references(pt2)):
            given, saved = folder / "in.pt", folder / "out.pt"
            torch.save(tuple(arguments), given)
            result = subprocess.run(
                [sys.executable, "-m", "fxview", "run", str(pt2), "--input", f"file:{given}",
                 "--save-outputs", str(saved)] + libraries_for(pt2),
                capture_output=True, text=True, env=environment, timeout=300)
            ran += 1
            check(result.returncode == 0 and
                  "Outputs equal to ep.module(): True" in result.stdout,
                  f"python3 -m fxview run {pt2.name} ({k}): {result.returncode}\n"
                  f"{result.stdout[-400:]}{result.stderr[-600:]}")
            if result.returncode == 0:
                check(exactly_equal(torch.load(saved), outputs),
                      f"{pt2.name} ({k}): the outputs saved differ from its writer's ep.module()")
    check(ran >= 10, f"only {ran} headless runs had references")
    print(f"{ran} headless runs checked")


def libraries_for(pt2):
    ops = os.environ.get("FXVIEW_TEST_OPS")
    return ["--ops", ops] if ops else []


def new_inputs(dirs):
    """Input bar's Apply: transformer_block (exported for a batch of 2) on random inputs of a
    seed of their own runs to outputs equal to ep.module() on those inputs."""
    pt2 = Path(dirs[0]) / "transformer_block.pt2"
    engine = Engine()
    engine.open(pt2)
    got = engine.request(wire.SET_INPUTS, wire.InputsRequest(
        inputs=[wire.InputSpec(shape=[2, 8, 32], dtype="float32")], seed=7))
    check(wire.INPUTS_APPLIED in got, f"Apply 2x8x32: {got}")
    state = engine.command(wire.RUN_TO_END)[wire.STATE][-1]
    check(state.inputValues and state.inputValues[0].shape == [2, 8, 32],
          f"the run's input: {state.inputValues} {state.finished} {state.failure}")
    check(state.outputCheck.message == "outputs equal to ep.module()",
          f"{state.outputCheck} {state.finished} {state.failure} {state.stopNote}")
    engine.close()


def main(dirs):
    with tempfile.TemporaryDirectory() as folder:
        return run_groups([
            ("every fixture", runs_every_fixture, (dirs,)),
            ("a Python-registered op", python_registered_op, (Path(folder),)),
            ("a pytree class of the person's", python_pytree_class, (Path(folder),)),
            ("a Hugging Face output", hugging_face_output, (Path(folder),)),
            ("refusals", refusals, (Path(folder),)),
            ("Compare Runs of two files", compare_two_files, (Path(folder),)),
            ("headless", headless, (dirs, Path(folder))),
            ("new inputs", new_inputs, (dirs,)),
            ("stepping", stepping, (next(iter(fixtures(dirs)))[0],)),
            ("step into a higher-order op", step_into_hops, (dirs,)),
        ])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
