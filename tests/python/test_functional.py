"""tilegrad's ATen-signature functions against the ATen ops they stand in for (torch.ops.aten.*), called with the
same arguments on the same random inputs: the argument mapping (defaults, masks, None weights, unbatched
inputs, mixed-precision statistics) must give ATen's results. On the CPU in fp32, where ATen runs every op;
on CUDA in every dtype."""
import pytest
import torch

import tilegrad
from conftest import DEVICES
from support import rand

aten = torch.ops.aten


def dtypes_for(device):
    return [torch.float32] if device == "cpu" else [torch.float32, torch.float16, torch.bfloat16]


def close(got, want, dtype, gemm=False):
    tol = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}[dtype]
    if gemm and dtype == torch.float32 and got.is_cuda:
        tol = 4e-3  # TF32
    scale = want.detach().abs().max().item() + 1e-12
    err = (got.double() - want.double()).abs().max().item()
    assert err <= tol * scale, f"max error {err:.3g} against ATen, scale {scale:.3g}, tolerance {tol}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("unbatched", [False, True], ids=["batched", "unbatched"])
def test_max_pool2d_with_indices_backward(device, last, unbatched, gen):
    for dtype in dtypes_for(device):
        x, _ = rand([2, 5, 11, 9], gen, dtype, device, last)
        if unbatched:
            x = x[0]
        args = ([3, 2], [2, 2], [1, 1], [1, 2], False)
        y, idx = aten.max_pool2d_with_indices(x, *args)
        dy, _ = rand(list(y.shape), gen, dtype, device, last and not unbatched)
        want = aten.max_pool2d_with_indices_backward(dy, x, *args, idx)
        close(tilegrad.max_pool2d_with_indices_backward(dy, x, *args, idx), want, dtype)
        close(tilegrad.max_pool2d_with_indices_backward(dy, x, *args, None), want, dtype)  # argmax recomputed


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool3d_backward(device, last, count_include_pad, gen):
    for dtype in dtypes_for(device):
        x, _ = rand([2, 3, 5, 7, 6], gen, dtype, device, last)
        args = ([2, 3, 2], [1, 2, 2], [1, 1, 0], False, count_include_pad, None)
        y = aten.avg_pool3d(x, *args)
        dy, _ = rand(list(y.shape), gen, dtype, device, last)
        close(tilegrad.avg_pool3d_backward(dy, x, *args), aten.avg_pool3d_backward(dy, x, *args), dtype)
    # The stride may be left empty: the window's (ATen's default).
    y = aten.avg_pool3d(x, [2, 2, 2], [], [0, 0, 0])
    dy = torch.ones_like(y)
    close(tilegrad.avg_pool3d_backward(dy, x, [2, 2, 2], [], [0, 0, 0], False, True),
          aten.avg_pool3d_backward(dy, x, [2, 2, 2], [], [0, 0, 0], False, True, None), x.dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
@pytest.mark.parametrize("weight", ["weight", "none", "fp32-weight"])
def test_native_group_norm_backward(device, last, weight, gen):
    for dtype in dtypes_for(device):
        if weight == "fp32-weight" and dtype == torch.float32:
            continue
        N, C, G = 3, 6, 3
        x, _ = rand([N, C, 5, 4], gen, dtype, device, last)
        wdtype = torch.float32 if weight == "fp32-weight" else dtype
        w = None if weight == "none" else rand([C], gen, wdtype, device)[0]
        b = None if weight == "none" else rand([C], gen, wdtype, device)[0]
        # The statistics do not depend on the affine parameters: CUDA's kernels take no fp32 weight with a
        # 16-bit input, so they are left out there (CUDA's also takes contiguous x only).
        affine = w is None or w.dtype == dtype
        _, mean, rstd = aten.native_group_norm(x.contiguous(), w if affine else None, b if affine else None, N, C, 20, G, 1e-5)
        dy, _ = rand([N, C, 5, 4], gen, dtype, device, last)
        mask = [True, weight != "none", weight != "none"]
        # ATen on contiguous copies: torch 1.13's CPU kernel gets channels-last inputs wrong (all three gradients).
        # An fp32 weight with a 16-bit input: ATen in float64 on the CPU, its gradients then in each output's dtype.
        if affine:
            want = aten.native_group_norm_backward(dy.contiguous(), x.contiguous(), mean, rstd, w, N, C, 20, G, mask)
        else:
            ref = aten.native_group_norm_backward(*(t.double().cpu() for t in (dy, x, mean, rstd, w)), N, C, 20, G, mask)
            want = [r.to(device=device, dtype=t) for r, t in zip(ref, (dtype, w.dtype, w.dtype))]
        got = tilegrad.native_group_norm_backward(dy, x, mean, rstd, w, N, C, 20, G, mask)
        for g, r, on in zip(got, want, mask):
            assert (g is None) == (not on)
            if on:
                assert g.dtype == r.dtype and g.shape == r.shape
                close(g, r, dtype)
        assert tilegrad.native_group_norm_backward(dy, x, mean, rstd, w, N, C, 20, G, [False, True, False])[0] is None


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("nd", [1, 2, 3], ids=["1d", "2d", "3d"])
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
def test_convolution_backward(device, nd, last, gen):
    if last and nd == 1:
        pytest.skip("PyTorch has no channels-last format for 3-d tensors (test_ops covers tilegrad's)")
    for dtype in dtypes_for(device):
        G, N, C, K = 2, 2, 4, 6
        size = {1: [17], 2: [9, 8], 3: [5, 6, 4]}[nd]
        x, _ = rand([N, C] + size, gen, dtype, device, last)
        w, _ = rand([K, C // G] + [3] * nd, gen, dtype, device, last)
        stride, padding, dilation = [2] + [1] * (nd - 1), [1] * nd, [1] * (nd - 1) + [2]
        y = aten.convolution(x, w, None, stride, padding, dilation, False, [0] * nd, G)
        dy, _ = rand(list(y.shape), gen, dtype, device, last)
        args = ([K], stride, padding, dilation, False, [0] * nd, G, [True, True, True])
        want = aten.convolution_backward(dy, x, w, *args)
        got = tilegrad.convolution_backward(dy, x, w, *args)
        for g, r in zip(got, want):
            assert g.shape == r.shape and g.dtype == r.dtype
            close(g, r, dtype, gemm=True)
        dx, dw, db = tilegrad.convolution_backward(dy, x, w, [K], stride, padding, dilation, False, [0] * nd, G, [False, True, False])
        assert dx is None and db is None and dw is not None
        # Unbatched input, as ATen's convolution takes it.
        want = aten.convolution_backward(dy[0:1], x[0:1], w, *args)
        got = tilegrad.convolution_backward(dy[0], x[0], w, *args)
        close(got[0], want[0][0], dtype, gemm=True)
        close(got[1], want[1], dtype, gemm=True)
