"""The five custom operators (torch.ops.tilegrad.*) against PyTorch's autograd in float64 on random problems:
every op, memory format (contiguous, channels-last), dtype (fp32, fp16, bf16) and device (CPU: the host
backend; CUDA: the GPU kernels, skipped without a GPU). Each output is also checked to come back in the
inputs' memory format. The elementwise tolerance scales with the sum of the absolute values of the terms
(the op applied to |inputs|), so a wrong index or a missed term fails, while rounding does not."""
import pytest
import torch
import torch.nn.functional as F

from conftest import CUDA_SKIP, DEVICES, DTYPES
from support import assert_close, channels_last, check_format, rand

ops = torch.ops.tilegrad
CASES = range(3)
LAYOUTS = [False, True]  # channels-last?
LAYOUT_IDS = ["contiguous", "channels_last"]


# ------------------------------------------------------------------------------------------ maxpool2d_bwd
def maxpool_problem(rng):
    while True:
        N, C = rng.randint(1, 3), rng.randint(1, 5)
        k = [rng.randint(1, 3) for _ in range(2)]
        d = [rng.randint(1, 2) for _ in range(2)]
        s = [rng.randint(1, 3) for _ in range(2)]
        p = [rng.randint(0, k[i] // 2) for i in range(2)]  # PyTorch: pad <= kernel_size / 2
        span = [d[i] * (k[i] - 1) + 1 for i in range(2)]
        size = [rng.randint(max(1, span[i] - 2 * p[i]), span[i] + 7) for i in range(2)]
        ceil = rng.random() < 0.4
        outs = [[0, 0], [0, 0]]
        for c in (False, True):
            for i in range(2):
                num = size[i] + 2 * p[i] - span[i]
                out = (-(-num // s[i]) if c else num // s[i]) + 1
                if c and (out - 1) * s[i] >= size[i] + p[i]:
                    out -= 1
                outs[c][i] = out
                # ceil_mode where tilegrad takes it: the extra right padding within half the window (else NotImplementedError).
                if c and 2 * max(p[i], (out - 1) * s[i] + span[i] - size[i] - p[i]) > span[i]:
                    ceil = False
        # Every window must hold an input position: PyTorch gives a window of padding only (possible with dilation)
        # the value -inf and an index outside it, which its backward follows and tilegrad's does not.
        if all(any(0 <= o * s[i] + t * d[i] - p[i] < size[i] for t in range(k[i])) for i in range(2) for o in range(outs[ceil][i])):
            return N, C, size, k, s, p, d, ceil


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("last", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("route", ["recompute", "indices"])
@pytest.mark.parametrize("case", CASES)
def test_maxpool2d_bwd(device, dtype, last, route, case, gen, rng):
    N, C, size, k, s, p, d, ceil = maxpool_problem(rng)
    x, x64 = rand([N, C] + size, gen, dtype, device, last)
    x64.requires_grad_()
    y64, idx = F.max_pool2d(x64, k, s, p, d, ceil, return_indices=True)
    dy, dy64 = rand(list(y64.shape), gen, dtype, device, last)
    y64.backward(dy64)
    indices = None
    if route == "indices":
        indices = idx.to(device)
        if last:
            indices = indices.contiguous(memory_format=torch.channels_last)
        if case == 1:
            indices = indices.to(torch.int32)  # tilegrad's own index type, taken as it is
    dx = ops.maxpool2d_bwd(dy, x, k, s, p, d, ceil, indices)
    # Each dx element is a sum of dy values; its rounding scales with the sum of their sizes.
    scale = torch.zeros(N, C, size[0] * size[1], dtype=torch.float64).scatter_add_(2, idx.view(N, C, -1), dy64.abs().view(N, C, -1))
    assert dx.dtype == dtype and dx.device.type == device
    check_format(dx, [dy, x] + ([] if indices is None else [indices]))
    assert_close("dx", dx, x64.grad, scale.view(x64.shape), dtype, device)


# ------------------------------------------------------------------------------------------ avgpool3d_bwd
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("last", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_avgpool3d_bwd(device, dtype, last, count_include_pad, case, gen, rng):
    N, C = rng.randint(1, 2), rng.randint(1, 5)
    k = [rng.randint(1, 3) for _ in range(3)]
    s = [rng.randint(1, 3) for _ in range(3)]
    p = [rng.randint(0, k[i] // 2) for i in range(3)]
    size = [rng.randint(k[i], k[i] + 5) for i in range(3)]  # PyTorch: the input at least the window (padding aside)
    x, x64 = rand([N, C] + size, gen, dtype, device, last)
    x64.requires_grad_()
    y64 = F.avg_pool3d(x64, k, s, p, False, count_include_pad)
    dy, dy64 = rand(list(y64.shape), gen, dtype, device, last)
    y64.backward(dy64)
    # The op is linear with positive weights: run on |dy| for the scale of each element's rounding.
    xa = x64.detach().clone().requires_grad_()
    F.avg_pool3d(xa, k, s, p, False, count_include_pad).backward(dy64.abs())
    dx = ops.avgpool3d_bwd(dy, x, k, s, p, False, count_include_pad)
    assert dx.dtype == dtype and dx.device.type == device
    check_format(dx, [dy, x])
    assert_close("dx", dx, x64.grad, xa.grad, dtype, device)


# ------------------------------------------------------------------------------------------ groupnorm_bwd
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("rank,last", [(2, False), (3, False), (3, True), (4, False), (4, True), (5, False), (5, True)],
                         ids=["NC", "NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"])
@pytest.mark.parametrize("case", CASES)
def test_groupnorm_bwd(device, dtype, rank, last, case, gen, rng):
    N, G = rng.randint(1, 3), rng.randint(1, 4)
    C = G * rng.randint(1, 4)
    spatial = [rng.randint(1, 6 if rank < 5 else 4) for _ in range(rank - 2)]
    if C // G == 1 and all(v == 1 for v in spatial):
        C *= 2  # PyTorch's reference wants more than one value per group
    eps = 1e-5
    x, x64 = rand([N, C] + spatial, gen, dtype, device, last)
    x = x + torch.tensor(0.5, dtype=dtype, device=device)  # a mean away from zero
    x64 = x.detach().to("cpu", torch.float64).contiguous()
    gamma, gamma64 = rand([C], gen, dtype, device, scale=2.0)
    beta64 = torch.zeros(C, dtype=torch.float64)
    dy, dy64 = rand([N, C] + spatial, gen, dtype, device, last)
    hw = 1
    for v in spatial:
        hw *= v
    _, mean64, rstd64 = torch.native_group_norm(x64, gamma64, beta64, N, C, hw, G, eps)
    xr, gr, br = (t.detach().clone().requires_grad_() for t in (x64, gamma64, beta64))
    F.group_norm(xr, G, gr, br, eps).backward(dy64)
    mean, rstd = mean64.float().to(device), rstd64.float().to(device)
    dx, dgamma, dbeta = ops.groupnorm_bwd(dy, x, mean, rstd, gamma, G)
    for t in (dx, dgamma, dbeta):
        assert t.dtype == dtype and t.device.type == device
    check_format(dx, [dy, x])
    # Scales of the rounding: the terms of dx = rstd*gamma*dy + c2*x + c3 and of the row sums, in absolute value.
    D = (C // G) * hw
    xg, dyg = x64.reshape(N, G, C // G, hw), dy64.reshape(N, G, C // G, hw)
    m, r = mean64.view(N, G, 1, 1), rstd64.view(N, G, 1, 1)
    g = gamma64.abs().view(1, G, C // G, 1)
    ds_abs, db_abs = (dyg * xg).abs().sum(3, keepdim=True), dyg.abs().sum(3, keepdim=True)
    c2 = ((g * db_abs).sum(2, keepdim=True) * m.abs() + (g * ds_abs).sum(2, keepdim=True)) * r**3 / D
    c3 = c2 * m.abs() + (g * db_abs).sum(2, keepdim=True) * r / D
    dx_scale = (r * g * dyg.abs() + c2 * xg.abs() + c3).reshape(x64.shape)
    dgamma_scale = ((ds_abs + db_abs * m.abs()) * r).sum(0).reshape(C)
    # fp32: room for sums over up to a few hundred terms in any order (the GPU's partial sums); 16-bit types: the
    # output's rounding dominates.
    factor = 64 if dtype == torch.float32 else 16
    assert_close("dx", dx, xr.grad, dx_scale, dtype, device, factor=factor)
    assert_close("dgamma", dgamma, gr.grad, dgamma_scale, dtype, device, factor=factor)
    assert_close("dbeta", dbeta, br.grad, db_abs.sum(0).reshape(C), dtype, device, factor=factor)


# ------------------------------------------------------------------------------------------- convolutions
def conv_problem(rng, nd):
    if rng.random() < 0.25:  # depthwise (channel multiplier 1 or 2)
        G = rng.randint(2, 6)
        Cg, Kg = 1, rng.randint(1, 2)
    else:
        G = rng.choice([1, 1, 2, 3])
        Cg, Kg = rng.randint(1, 3), rng.randint(1, 3)
    N = rng.randint(1, 3)
    k = [rng.randint(1, 3) for _ in range(nd)]
    s = [rng.randint(1, 3) for _ in range(nd)]
    d = [rng.randint(1, 2) for _ in range(nd)]
    asym = rng.random() < 0.3
    pl = [rng.randint(0, 2) for _ in range(nd)]
    pr = [rng.randint(0, 2) for _ in range(nd)] if asym else pl
    top = {1: 9, 2: 6, 3: 3}[nd]
    size = [rng.randint(max(1, d[i] * (k[i] - 1) + 1 - pl[i] - pr[i]), d[i] * (k[i] - 1) + 1 + top) for i in range(nd)]
    return N, G, Cg, Kg, size, k, s, d, pl, pr, asym


def conv_reference(x64, w64, dy64, s, d, pl, pr, G):
    """dx, dw by PyTorch's autograd in float64 (asymmetric padding through F.pad)."""
    nd = x64.dim() - 2
    conv = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    pads = []
    for i in reversed(range(nd)):
        pads += [pl[i], pr[i]]
    x64, w64 = x64.detach().clone().requires_grad_(), w64.detach().clone().requires_grad_()
    y = conv(F.pad(x64, pads), w64, None, s, 0, d, G)
    assert list(y.shape) == list(dy64.shape)
    y.backward(dy64)
    return x64.grad, w64.grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("last", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("nd", [1, 2, 3], ids=["1d", "2d", "3d"])
@pytest.mark.parametrize("case", CASES)
def test_conv_bwd(device, dtype, last, nd, case, gen, rng):
    N, G, Cg, Kg, size, k, s, d, pl, pr, asym = conv_problem(rng, nd)
    C, K = G * Cg, G * Kg
    out = [(size[i] + pl[i] + pr[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    x, x64 = rand([N, C] + size, gen, dtype, device, last)
    w, w64 = rand([K, Cg] + k, gen, dtype, device, last)
    dy, dy64 = rand([N, K] + out, gen, dtype, device, last)
    dx_ref, dw_ref = conv_reference(x64, w64, dy64, s, d, pl, pr, G)
    dx_scale, dw_scale = conv_reference(x64.abs(), w64.abs(), dy64.abs(), s, d, pl, pr, G)
    padding = pl + pr if asym else pl
    dx = ops.conv_bwd_data(dy, w, list(x.shape), s, padding, d, G)
    dw = ops.conv_bwd_weight(dy, x, list(w.shape), s, padding, d, G)
    for t in (dx, dw):
        assert t.dtype == dtype and t.device.type == device
    check_format(dx, [dy, w])
    check_format(dw, [dy, x])
    assert not last or max(size) == 1 or C == 1 or channels_last(x)  # the inputs really are channels-last
    assert_close("dx", dx, dx_ref, dx_scale, dtype, device, gemm=True)
    assert_close("dw", dw, dw_ref, dw_scale, dtype, device, gemm=True)


@pytest.mark.parametrize("device", DEVICES)
def test_empty_batch(device):
    """N = 0: empty gradients (zero weight gradients), as PyTorch."""
    x = torch.randn(0, 4, 6, 6, device=device)
    dx = ops.conv_bwd_data(torch.randn(0, 2, 4, 4, device=device), torch.randn(2, 4, 3, 3, device=device), [0, 4, 6, 6], [1], [0], [1], 1)
    assert dx.shape == (0, 4, 6, 6)
    dw = ops.conv_bwd_weight(torch.randn(0, 2, 4, 4, device=device), x, [2, 4, 3, 3], [1], [0], [1], 1)
    assert dw.shape == (2, 4, 3, 3) and bool((dw == 0).all())
    assert ops.maxpool2d_bwd(torch.randn(0, 4, 3, 3, device=device), x, [2, 2], [2, 2], [0, 0]).shape == (0, 4, 6, 6)
    dx, dgamma, dbeta = ops.groupnorm_bwd(x, x, torch.zeros(0, 2, device=device), torch.zeros(0, 2, device=device),
                                          torch.ones(4, device=device), 2)
    assert dx.shape == x.shape and bool((dgamma == 0).all()) and bool((dbeta == 0).all())


@pytest.mark.cuda
@pytest.mark.skipif(CUDA_SKIP is not None, reason=str(CUDA_SKIP))
def test_current_stream(gen):
    """The ops run on PyTorch's current stream: on a side stream held up by a sleeping kernel, the op must see the
    inputs written after the sleep on that stream (run anywhere else, it would read the zeros before them)."""
    x, x64 = rand([4, 8, 33, 31], gen, torch.float32, "cuda")
    dy, dy64 = rand([4, 8, 17, 16], gen, torch.float32, "cuda")
    w, w64 = rand([8, 8, 3, 3], gen, torch.float32, "cuda")
    xs, dys, ws = torch.zeros_like(x), torch.zeros_like(dy), torch.zeros_like(w)

    def run():
        return (ops.maxpool2d_bwd(dys, xs, [3, 3], [2, 2], [1, 1], [1, 1], False, None),
                ops.conv_bwd_weight(dys, xs, [8, 8, 3, 3], [2, 2], [1, 1], [1, 1], 1),
                ops.conv_bwd_data(dys, ws, list(xs.shape), [2, 2], [1, 1], [1, 1], 1))

    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        run()  # first use of this stream (tilegrad's backend for it is made here)
    side.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time before the inputs are written
        xs.copy_(x), dys.copy_(dy), ws.copy_(w)
        dx_pool, dw, dx_conv = run()
    side.synchronize()
    x64.requires_grad_()
    y64 = F.max_pool2d(x64, 3, 2, 1)
    y64.backward(dy64)
    assert torch.allclose(dx_pool.cpu().double(), x64.grad, rtol=1e-5, atol=1e-6)
    dx_ref, dw_ref = conv_reference(x64, w64, dy64, [2, 2], [1, 1], [1, 1], [1, 1], 1)
    scale_x, scale_w = conv_reference(x64.abs(), w64.abs(), dy64.abs(), [2, 2], [1, 1], [1, 1], [1, 1], 1)
    assert_close("dw", dw, dw_ref, scale_w, torch.float32, "cuda", gemm=True)
    assert_close("dx", dx_conv, dx_ref, scale_x, torch.float32, "cuda", gemm=True)


@pytest.mark.cuda
@pytest.mark.skipif(CUDA_SKIP is not None, reason=str(CUDA_SKIP))
def test_scratch_from_caching_allocator(gen):
    """The GPU backend's scratch is lent by PyTorch's caching allocator and returned when the call ends: a
    channels-first fp16 convolution runs on channels-last copies of dy, w and dx (scratch), so the peak that
    PyTorch counts during the call holds them, and afterwards only the output is still allocated."""
    dy, _ = rand([4, 64, 30, 30], gen, torch.float16, "cuda")
    w, _ = rand([64, 32, 3, 3], gen, torch.float16, "cuda")
    x_shape = [4, 32, 59, 59]  # 30 = (59 + 2 - 3) / 2 + 1
    ops.conv_bwd_data(dy, w, x_shape, [2, 2], [1, 1], [1, 1], 1)  # warm-up: plans and the allocator's pools
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    dx = ops.conv_bwd_data(dy, w, x_shape, [2, 2], [1, 1], [1, 1], 1)
    torch.cuda.synchronize()
    copies = (dy.numel() + w.numel() + dx.numel()) * dy.element_size()
    assert torch.cuda.max_memory_allocated() - before >= dx.numel() * dx.element_size() + copies, \
        "the channels-last copies were not taken from PyTorch's allocator"
    held, dx_bytes = torch.cuda.memory_allocated() - before, dx.numel() * dx.element_size()
    assert dx_bytes <= held < dx_bytes + 4096, f"{held} bytes held after the call: scratch not returned"  # blocks round up
