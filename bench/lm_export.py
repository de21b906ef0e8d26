#!/usr/bin/python3
"""Writes the 25,000-node benchmark program: tests/fixtures/lm_models.py's decoder-only LM with
enough layers to pass 25,000 nodes, exported by the root's torch.export (sid's PyTorch 2.14) and
saved by torch.export.save. Prints its node count.

Usage (in the sid root): python3 bench/lm_export.py OUT.pt2 [LAYERS]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures"))
import lm_models  # noqa: E402

if __name__ == "__main__":
    out = sys.argv[1]
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 560
    if not os.path.exists(out):
        torch.manual_seed(0)
        program = torch.export.export(lm_models.DecoderLM(layers).eval(), (lm_models.tokens(),))
        partial = out.removesuffix(".pt2") + ".partial.pt2"  # torch.export.save wants .pt2
        torch.export.save(program, partial)
        os.replace(partial, out)
    print(len(torch.export.load(out).graph.nodes), "nodes")
