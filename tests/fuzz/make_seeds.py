"""Seed corpora for the fuzz harnesses, made from the fixtures PyTorch 2.6 wrote (never
committed): `make_seeds.py FIXTURES WIRE_PEER OUT` writes OUT/<harness>/ for each harness:

  fuzz_archive    every fixture archive (.pt, .pt2) of at most 4 MB, and the PT2 archives PyTorch
                  2.14 wrote into the fixtures-pt2 folder beside FIXTURES (scripts/run-tests)
  fuzz_pickle     their data.pkl and constants.pkl members
  fuzz_pt2_json   the .pt2 files' serialized_exported_program.json or models/<name>.json (at most
                  4 MB)
  fuzz_traceback  the stack traces those programs' nodes keep
  fuzz_wire       wire_peer's samples of every message, one frame per file and all together
  fuzz_comparison_json  comparisons as an engine answers Compare: matched nodes with finite
                  and non-finite metrics, a mismatch, nodes one side has, a failure
  fuzz_profiler_trace  torch.profiler's Chrome traces of the harness graph's operators, called
                  plainly and inside fxview::NODE ranges, as this Python's PyTorch writes them
"""

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

LIMIT = 4 << 20


def comparisons() -> dict:
    """fxview.comparison documents as core/records/Comparison.cpp writes them."""
    def node(name, rel, **more):
        row = {"node": name, "node_b": name, "op": "call_module", "target": name,
               "match": "name", "compared": True, "mismatch": False, "note": "",
               "shape_a": "1x8", "shape_b": "1x8", "dtype_a": "float32", "dtype_b": "bfloat16",
               "elements": 8, "max_abs": rel * 2, "mean_abs": rel, "rel_l2": rel,
               "cosine": 1 - rel * rel / 2, "sqnr": "inf" if rel == 0 else 40.5}
        row.update(more)
        return row

    def doc(nodes, **more):
        d = {"format": "fxview.comparison", "version": 1,
             "a": {"model": "a.pt", "run": "weights as saved, input 1x8 (seed 0)"},
             "b": {"model": "b.pt", "run": "bfloat16 weights, input 1x8 (seed 0)"},
             "local": False, "metric": "rel_l2", "threshold": 0.001,
             "first_divergence": None, "failure": "", "nodes": nodes,
             "only_a": [], "only_b": []}
        d.update(more)
        return d

    return {
        "equal.json": doc([node("x", 0), node("fc", 0)]),
        "diverges.json": doc([node("x", 0), node("fc", 0.01), node("log", 0, rel_l2="nan",
                                                                 cosine="nan", sqnr="-inf")],
                             first_divergence="fc", local=True),
        "mismatch.json": doc([node("cat", 0, compared=False, mismatch=True,
                                   note="shapes differ: [1, 8] against [1, 9]", node_b="cat_1",
                                   match="scope order")],
                             only_a=["add"], only_b=["quantize_per_tensor"],
                             metric="sqnr", threshold=60, failure="Run B failed: x"),
    }


def profiler_traces() -> dict:
    """Chrome traces torch.profiler writes of the calls fuzz_profiler_trace.cpp's graph makes
    (linear, relu, add, view, add), run twice, and the same inside fxview::NODE ranges as the
    Python engine's Profile… writes them."""
    import tempfile

    import torch
    import torch.nn.functional as F

    x, weight, bias = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3)

    def calls(annotate):
        def node(name, run):
            if not annotate:
                return run()
            with torch.profiler.record_function(f"fxview::{name}"):
                return run()
        y = node("linear", lambda: F.linear(x, weight, bias))
        y = node("relu", lambda: torch.relu(y))
        y = node("add", lambda: y + y)
        y = node("view", lambda: y.view(-1))
        return node("add_1", lambda: y + 1)

    traces = {}
    for name, annotate, runs in (("plain.json", False, 2), ("ranges.json", True, 1)):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for _ in range(runs):
                calls(annotate)
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            prof.export_chrome_trace(f.name)
            traces[name] = Path(f.name).read_bytes()
    return traces


def main(fixtures: Path, wire_peer: str, out: Path) -> None:
    def put(harness, name, data):
        folder = out / harness
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)

    pt2_archives = fixtures.parent / "fixtures-pt2"
    archives = sorted(fixtures.iterdir()) + (sorted(pt2_archives.iterdir())
                                             if pt2_archives.is_dir() else [])
    for path in archives:
        if path.suffix not in (".pt", ".pt2") or path.stat().st_size > LIMIT:
            continue
        data = path.read_bytes()
        put("fuzz_archive", path.name, data)
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            continue
        for member in archive.namelist():
            base = member.rsplit("/", 1)[-1]
            if base in ("data.pkl", "constants.pkl"):
                put("fuzz_pickle", f"{path.stem}-{base}", archive.read(member))
            elif member == "serialized_exported_program.json" or (
                    member.count("/") == 2 and member.split("/")[1] == "models"
                    and member.endswith(".json")):
                text = archive.read(member)
                put("fuzz_pt2_json", f"{path.stem}.json", text)
                try:
                    nodes = json.loads(text)["graph_module"]["graph"]["nodes"]
                except (ValueError, KeyError, TypeError, RecursionError):  # a hostile one
                    continue
                for i, node in enumerate(nodes):
                    trace = (node.get("metadata") or {}).get("stack_trace")
                    if trace:
                        put("fuzz_traceback", f"{path.stem}-{i}.txt", trace.encode())
    samples = subprocess.run([wire_peer, "samples"], capture_output=True, check=True).stdout
    put("fuzz_wire", "all_samples.bin", samples)
    at = 0
    while at + 12 <= len(samples):
        length = int.from_bytes(samples[at + 8:at + 12], sys.byteorder)
        put("fuzz_wire", f"sample-{at}.bin", samples[at:at + 12 + length])
        at += 12 + length
    for name, doc in comparisons().items():
        put("fuzz_comparison_json", name, json.dumps(doc, indent=1).encode())
    for name, data in profiler_traces().items():
        put("fuzz_profiler_trace", name, data)
    for harness in sorted(p.name for p in out.iterdir()):
        print(f"{harness}: {len(list((out / harness).iterdir()))} seeds")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
