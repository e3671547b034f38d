"""Helpers of the front end's tests: inputs in a dtype, device and memory format; tolerances; checks."""
import torch

# Relative size of one rounding of the dtype the op computes in or stores (fp32 with fp32 accumulation
# over up to a few thousand terms; TF32 for fp32 GEMMs on the GPU, as PyTorch's default for cuDNN).
EPS = {torch.float32: 2.0**-23, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
TF32_EPS = 2.0**-11
# Spacing of the dtype's subnormals: the absolute rounding of results near zero.
TINY = {torch.float32: 2.0**-149, torch.float16: 2.0**-24, torch.bfloat16: 2.0**-133}


def rand(shape, gen, dtype, device="cpu", last=False, scale=1.0):
    """Uniform(-scale, scale) values rounded to dtype, as a tensor on device in the given format: contiguous, or
    channels-last (for any rank >= 3: the dimension 1 fastest). Returns (tensor, the same values in float64 on the CPU)."""
    x = ((torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1) * scale).to(dtype)
    ref = x.double()
    if last:
        perm = [0] + list(range(2, len(shape))) + [1]
        inv = [perm.index(i) for i in range(len(shape))]
        x = x.permute(perm).contiguous().permute(inv)
    return x.to(device), ref


def channels_last(t):
    """Whether t is packed channels-last (dimension 1 fastest) and not plainly contiguous."""
    perm = [0] + list(range(2, t.dim())) + [1]
    return not t.is_contiguous() and t.permute(perm).is_contiguous()


def packed_strides(shape, last):
    order = [0] + list(range(2, len(shape))) + [1] if last else list(range(len(shape)))
    strides, s = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = s
        s *= max(shape[d], 1)
    return strides


def check_format(got, inputs):
    """The output is packed in the inputs' format (strides of size-1 dimensions aside): channels-last when one of
    them is channels-last only, contiguous otherwise (all of them fit both, as when channels or sizes are 1)."""
    last = any(channels_last(t) for t in inputs)
    want = packed_strides(list(got.shape), last)
    for d, (s, w) in enumerate(zip(got.stride(), want)):
        assert got.shape[d] == 1 or s == w, f"output strides {got.stride()} are not the {'channels-last' if last else 'contiguous'} {want}"


def assert_close(name, got, ref, bound_scale, dtype, device, gemm=False, factor=8.0):
    """|got - ref| <= factor * eps * bound_scale, elementwise; bound_scale is a float64 tensor of the sizes the error
    scales with (such as the sum of the absolute values of the terms: the op on |inputs|), or a number."""
    eps = EPS[dtype]
    if gemm and dtype == torch.float32 and device == "cuda":
        eps = TF32_EPS
    got64 = got.detach().to("cpu", torch.float64)
    assert got64.shape == ref.shape, f"{name}: shape {tuple(got64.shape)}, expected {tuple(ref.shape)}"
    assert torch.isfinite(got64).all(), f"{name}: non-finite values (an element the op did not write?)"
    bound = factor * eps * (bound_scale if isinstance(bound_scale, torch.Tensor) else torch.full_like(ref, float(bound_scale))) + factor * TINY[dtype]
    err = (got64 - ref).abs()
    bad = err > bound
    if bad.any():
        i = int(torch.argmax((err / bound).flatten()))
        raise AssertionError(f"{name}: {int(bad.sum())} of {ref.numel()} elements off; worst at flat index {i}: got "
                             f"{got64.flatten()[i].item():.8g}, expected {ref.flatten()[i].item():.8g}, bound "
                             f"{bound.flatten()[i].item():.3g} ({dtype}, {device})")
