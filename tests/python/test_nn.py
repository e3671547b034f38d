"""tilegrad.nn's modules against PyTorch's: the same parameters and inputs, forward outputs identical (the forward is
PyTorch's), gradients of the input and parameters within the dtype's tolerance of PyTorch's autograd in float64
(the same module and values on the CPU). Contiguous and channels-last inputs, batched and unbatched, the
constructor options that change the backward (padding modes, 'same', groups, ceil_mode, count_include_pad, affine),
and swap_modules on a model."""
import copy

import pytest
import torch
from torch import nn

import tilegrad
from conftest import DEVICES, DTYPES
from support import rand

TOL = {torch.float32: 1e-5, torch.float16: 1e-2, torch.bfloat16: 6e-2}


def tolerance(dtype, device):
    return 4e-3 if dtype == torch.float32 and device == "cuda" else TOL[dtype]  # TF32 convolutions on the GPU


def run(module, x, r):
    """Forward, then backward of sum(y * r): returns y and the gradients of x and of each parameter."""
    x = x.detach().clone().requires_grad_()
    module.zero_grad()
    y = module(x)
    y = y[0] if isinstance(y, tuple) else y
    (y * r).sum().backward()
    return y, [x.grad] + [p.grad for p in module.parameters()]


def compare(torch_module, tg_module, shape, gen, dtype, device, last=False):
    """tg_module (a tilegrad.nn module with torch_module's parameters) against torch_module in float64 on the CPU: each
    gradient within the dtype's tolerance (relative to its largest element), or within twice the error of PyTorch's own
    backward in the same dtype where that is larger (ill-conditioned cases)."""
    ref = copy.deepcopy(torch_module).to(torch.float64)
    tg_module = tg_module.to(device=device, dtype=dtype)
    torch_module = torch_module.to(device=device, dtype=dtype)
    fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    if last:
        tg_module, torch_module = tg_module.to(memory_format=fmt), torch_module.to(memory_format=fmt)
    x, x64 = rand(shape, gen, dtype, device, last)
    try:
        y_torch = torch_module(x)
    except RuntimeError as e:
        if device == "cpu" and dtype != torch.float32:
            pytest.skip(f"PyTorch's own forward does not run on the CPU in {dtype}: {str(e)[:80]}")
        raise
    y_torch = y_torch[0] if isinstance(y_torch, tuple) else y_torch
    r, r64 = rand(list(y_torch.shape), gen, dtype, device)
    y, grads = run(tg_module, x, r)
    assert torch.equal(y, y_torch), "the forward must be PyTorch's"
    _, want = run(ref, x64, r64)
    _, theirs = run(torch_module, x, r)
    assert len(grads) == len(want)
    for i, (g, w, t) in enumerate(zip(grads, want, theirs)):
        name = "input" if i == 0 else f"parameter {i - 1}"
        assert g is not None and g.shape == w.shape, name
        assert g.dtype == dtype and g.device.type == device, name
        scale = w.abs().max().item() + 1e-30
        err = (g.detach().to("cpu", torch.float64) - w).abs().max().item()
        torch_err = (t.detach().to("cpu", torch.float64) - w).abs().max().item()
        assert err <= max(tolerance(dtype, device) * scale, 2 * torch_err), \
            f"{name}: max error {err:.3g} against float64 (PyTorch's backward: {torch_err:.3g}), scale {scale:.3g}"
    return grads


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("config", [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(1, 2), dilation=2),
                                    dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, return_indices=True)],
                         ids=["k3s2p1", "dilated", "ceil", "indices"])
def test_max_pool2d(device, dtype, last, config, gen):
    compare(nn.MaxPool2d(**config), tilegrad.nn.MaxPool2d(**config), [2, 4, 9, 10], gen, dtype, device, last)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("config", [dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0)),
                                    dict(kernel_size=3, stride=1, padding=1, count_include_pad=False),
                                    dict(kernel_size=2, ceil_mode=True)], ids=["strided", "exclude_pad", "ceil"])
def test_avg_pool3d(device, dtype, last, config, gen):
    compare(nn.AvgPool3d(**config), tilegrad.nn.AvgPool3d(**config), [2, 3, 4, 6, 6], gen, dtype, device, last)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,last", [([3, 12], False), ([2, 12, 7], False), ([2, 12, 5, 4], False), ([2, 12, 5, 4], True),
                                        ([2, 12, 3, 4, 2], True)], ids=["NC", "NCL", "NCHW", "NHWC", "NDHWC"])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(device, dtype, shape, last, affine, gen):
    # Six channels per group at least: groups of two or three values give gradients so ill-conditioned that 16-bit
    # statistics (the forward's, which both backwards use) decide them.
    torch_module = nn.GroupNorm(2, 12, affine=affine)
    if affine:
        with torch.no_grad():
            torch_module.weight.uniform_(-2, 2, generator=gen)
            torch_module.bias.uniform_(-1, 1, generator=gen)
    tg_module = tilegrad.nn.GroupNorm(2, 12, affine=affine)
    tg_module.load_state_dict(torch_module.state_dict())
    compare(torch_module, tg_module, shape, gen, dtype, device, last)


CONV_CONFIGS = [dict(in_channels=4, out_channels=6, kernel_size=3, padding=1),
                dict(in_channels=4, out_channels=6, kernel_size=3, stride=2, groups=2, bias=False),
                dict(in_channels=6, out_channels=6, kernel_size=3, groups=6, dilation=2, padding="same"),
                dict(in_channels=4, out_channels=4, kernel_size=2, padding="same"),
                dict(in_channels=4, out_channels=2, kernel_size=3, padding=1, padding_mode="reflect"),
                dict(in_channels=4, out_channels=2, kernel_size=3, padding=2, padding_mode="circular", stride=2)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("nd", [1, 2, 3], ids=["1d", "2d", "3d"])
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("config", CONV_CONFIGS, ids=["plain", "grouped_strided", "depthwise_same", "even_same", "reflect", "circular"])
def test_conv(device, dtype, nd, last, config, gen):
    if last and nd == 1:
        pytest.skip("PyTorch has no channels-last format for 3-d tensors")
    torch_cls, tg_cls = {1: (nn.Conv1d, tilegrad.nn.Conv1d), 2: (nn.Conv2d, tilegrad.nn.Conv2d), 3: (nn.Conv3d, tilegrad.nn.Conv3d)}[nd]
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen)))
    torch_module = torch_cls(**config)
    tg_module = tg_cls(**config)
    tg_module.load_state_dict(torch_module.state_dict())
    size = {1: [13], 2: [7, 8], 3: [5, 4, 6]}[nd]
    compare(torch_module, tg_module, [2, config["in_channels"]] + size, gen, dtype, device, last)


@pytest.mark.parametrize("device", DEVICES)
def test_unbatched(device, gen):
    """Unbatched inputs, as the PyTorch modules take them."""
    for torch_module, tg_cls, shape in [(nn.Conv2d(3, 4, 3, padding=1), tilegrad.nn.Conv2d, [3, 6, 5]),
                                        (nn.Conv1d(3, 4, 3), tilegrad.nn.Conv1d, [3, 9]),
                                        (nn.MaxPool2d(2), tilegrad.nn.MaxPool2d, [3, 6, 6]),
                                        (nn.AvgPool3d(2), tilegrad.nn.AvgPool3d, [3, 4, 4, 4])]:
        tg_module = tg_cls.__new__(tg_cls)
        tg_module.__dict__ = copy.deepcopy(torch_module).__dict__
        compare(torch_module, tg_module, shape, gen, torch.float32, device)


@pytest.mark.parametrize("device", DEVICES)
def test_swap_modules_and_strided_gradients(device, gen):
    """swap_modules switches every supported module of a model; the loss y.sum() gives a gradient of stride 0,
    which the modules bring to their input's format."""
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen)))
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 8, 3, groups=4), nn.Unflatten(1, (8, 1)), nn.AvgPool3d((1, 2, 2)), nn.Flatten())
    swapped = tilegrad.nn.swap_modules(copy.deepcopy(model))
    kinds = [type(m) for m in swapped]
    assert kinds[:2] == [tilegrad.nn.Conv2d, tilegrad.nn.GroupNorm] and kinds[3] == tilegrad.nn.MaxPool2d
    assert kinds[4] == tilegrad.nn.Conv2d and kinds[6] == tilegrad.nn.AvgPool3d
    model, swapped = model.to(device), swapped.to(device)
    x, _ = rand([4, 3, 10, 10], gen, torch.float32, device)
    grads = []
    for m in (model, swapped):
        xi = x.clone().requires_grad_()
        m(xi).sum().backward()
        grads.append([xi.grad] + [p.grad for p in m.parameters()])
    for g, w in zip(*grads):
        scale = w.abs().max().item() + 1e-30
        assert (g - w).abs().max().item() <= tolerance(torch.float32, device) * 4 * scale


def test_rejected_options():
    with pytest.raises(NotImplementedError, match="divisor_override"):
        tilegrad.nn.AvgPool3d(2, divisor_override=3)
    with pytest.raises(NotImplementedError, match="ceil_mode"):
        tilegrad.nn.AvgPool3d(2, ceil_mode=True)(torch.randn(1, 1, 3, 4, 4))
    with pytest.raises(ValueError, match="input"):
        tilegrad.nn.GroupNorm(2, 4)(torch.randn(2, 6, 3))
