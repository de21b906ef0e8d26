#!/usr/bin/python3
"""Writes bench/remote.py's models, once, with the root's PyTorch (sid's 2.14, transformers 5):
OUT/resnet18.pt2 (torchvision's, random weights, 1x3x224x224) and OUT/qwen2_0.5b.pt2, a language
model of Qwen2.5-0.5B's shape (24 layers, hidden 896, vocabulary 151,936: 494 million parameters,
2 GB of float32 weights) made from its configuration with random weights (nothing downloaded),
exported on 32 tokens. Prints each file's size and node count.

Usage: scripts/in-root python3 bench/remote_models.py OUT"""

import os
import sys

import torch


def resnet18():
    import torchvision

    model = torchvision.models.resnet18(weights=None).eval()
    return model, (torch.randn(1, 3, 224, 224),)


def qwen2():
    import transformers

    config = transformers.Qwen2Config(
        vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
        rope_theta=1000000.0, tie_word_embeddings=True, use_cache=False)
    model = transformers.Qwen2ForCausalLM(config).eval()
    return model, (torch.randint(0, 151936, (1, 32)),)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, make in (("resnet18", resnet18), ("qwen2_0.5b", qwen2)):
        path = os.path.join(out, f"{name}.pt2")
        if not os.path.exists(path):
            model, args = make()
            with torch.no_grad():
                program = torch.export.export(model, args)
            torch.export.save(program, path + ".partial.pt2")
            os.replace(path + ".partial.pt2", path)
        print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB, "
              f"{len(torch.export.load(path).graph.nodes)} nodes", flush=True)
