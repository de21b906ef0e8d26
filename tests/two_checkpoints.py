"""Two checkpoints of one model, for Compare Runs of two files (tst_python_engine on the Python
engine, tst_window_remote on a server through SSH): TwoLayers exported on one input with the
weights of seeds 0 and 1, and what the PyTorch that wrote them says they compute."""

import torch


class TwoLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(6, 5), torch.nn.Linear(5, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def write_two(folder: str) -> tuple[list[str], torch.Tensor, float]:
    """FOLDER/two_layers_0.pt2 and _1.pt2, the input they were exported on, and the output's
    max |a-b| between the two files' ep.module() on it, in float64."""
    x = torch.randn(4, 6)
    paths = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        paths.append(f"{folder}/two_layers_{seed}.pt2")
        torch.export.save(torch.export.export(TwoLayers().eval(), (x,)), paths[-1])
    a, b = (torch.export.load(p).module()(x) for p in paths)
    return paths, x, (a.double() - b.double()).abs().max().item()
