#!/usr/bin/python3
"""Writes the 10,000-node benchmark model: tests/fixtures/lm_models.py's decoder-only LM with
enough layers (58 nodes each) to pass 10,000 nodes, traced.

Usage: /usr/bin/python3 bench/lm_deep.py OUT.pt [LAYERS]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures"))
import lm_models  # noqa: E402

if __name__ == "__main__":
    out = sys.argv[1]
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 173
    if not os.path.exists(out):
        with open(out, "wb") as f:
            f.write(lm_models.traced_lm(layers))
