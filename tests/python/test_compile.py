"""torch.compile of a model built from tilegrad.nn modules: traced as one graph (fullgraph=True: the autograd
functions, the custom operators through their fake implementations), it must give the eager model's loss and
gradients. Needs torch >= 2.0 (skipped, saying so, on older ones such as Debian's 1.13); runs on the GPU
machine's PyTorch."""
import copy

import pytest
import torch
from torch import nn

import tilegrad
from conftest import DEVICES


def model():
    return nn.Sequential(tilegrad.nn.Conv2d(3, 8, 3, padding=1), tilegrad.nn.GroupNorm(2, 8), nn.ReLU(), tilegrad.nn.MaxPool2d(2),
                         tilegrad.nn.Conv2d(8, 8, 3, padding=1, groups=2), nn.Unflatten(1, (8, 1)), tilegrad.nn.AvgPool3d((1, 2, 2)),
                         nn.Flatten(), nn.Linear(8 * 4 * 4, 5))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
def test_compile(device, backend, last, gen):
    if not hasattr(torch, "compile"):
        pytest.skip(f"torch.compile needs torch >= 2.0 (this is {torch.__version__}); the GPU run has it")
    if backend == "inductor" and device == "cpu":
        pytest.skip("inductor on the CPU compiles C++ against Python's headers; the CUDA case runs inductor (Triton)")
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen)))
    fmt = torch.channels_last if last else torch.contiguous_format
    eager = model().to(device).to(memory_format=fmt)
    compiled_model = copy.deepcopy(eager)
    torch._dynamo.reset()
    compiled = torch.compile(compiled_model, backend=backend, fullgraph=True)
    x = torch.randn(4, 3, 16, 16, generator=gen).to(device).contiguous(memory_format=fmt)
    target = torch.randint(0, 5, (4,), generator=gen).to(device)
    results = []
    for m, params in ((eager, eager.parameters()), (compiled, compiled_model.parameters())):
        xi = x.clone().requires_grad_()
        loss = nn.functional.cross_entropy(m(xi), target)
        loss.backward()
        results.append([loss.detach(), xi.grad] + [p.grad for p in params])
    tol = 2e-3 if device == "cuda" else 1e-4  # TF32 convolutions on the GPU, fused kernels around them
    for i, (a, b) in enumerate(zip(*results)):
        scale = a.abs().max().item() + 1e-12
        assert (a - b).abs().max().item() <= tol * scale, f"result {i} (0: loss, 1: input gradient, then parameters)"
