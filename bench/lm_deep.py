#!/usr/bin/python3
"""Writes the big benchmark models: tests/fixtures/lm_models.py's decoder-only LM with enough
layers to pass 10,000 nodes, traced (OUT.pt; 58 nodes a layer), or 25,000 nodes, exported by the
root's torch.export and saved by torch.export.save (OUT.pt2: sid's PyTorch 2.14 for issue 38;
48 nodes a layer). Made once; prints the node count.

Usage: /usr/bin/python3 bench/lm_deep.py OUT.pt|OUT.pt2 [LAYERS]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures"))
import lm_models  # noqa: E402

if __name__ == "__main__":
    out = sys.argv[1]
    exported = out.endswith(".pt2")
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 560 if exported else 173
    if not os.path.exists(out):
        partial = out.removesuffix(".pt2") + ".partial" + os.path.splitext(out)[1]
        if exported:  # torch.export.save wants a name ending in .pt2
            torch.manual_seed(0)
            program = torch.export.export(lm_models.DecoderLM(layers).eval(),
                                          (lm_models.tokens(),))
            torch.export.save(program, partial)
        else:
            with open(partial, "wb") as f:
                f.write(lm_models.traced_lm(layers))
        os.replace(partial, out)
    if exported:
        print(len(torch.export.load(out).graph.nodes), "nodes")
