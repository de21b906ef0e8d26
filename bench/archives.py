"""The benchmark archives, made once into WORKDIR with the Debian python3: torchvision models with
random weights after torch.manual_seed(0), scripted or traced (on a 1x3x64x64 input)."""
import os


def make_archives(workdir, names):
    """names like "resnet50_scripted"; only the missing archives are written."""
    missing = [n for n in names if not os.path.exists(os.path.join(workdir, n + ".pt"))]
    if not missing:
        return
    import torch
    import torchvision
    os.makedirs(workdir, exist_ok=True)
    for name in missing:
        arch, variant = name.rsplit("_", 1)
        torch.manual_seed(0)
        model = getattr(torchvision.models, arch)().eval()
        if variant == "scripted":
            module = torch.jit.script(model)
        else:
            with torch.no_grad():
                module = torch.jit.trace(model, torch.randn(1, 3, 64, 64))
        module.save(os.path.join(workdir, name + ".pt"))
