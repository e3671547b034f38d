"""Memory formats as the extension sees them (python/csrc/torch_ops.cpp has the same rules).

An activation [N, C, spatial...] is "first" when packed contiguous and "last" when packed channels-last
(N, spatial..., C); a convolution weight [K, C/G, taps...] likewise. Size-1 dimensions may have any stride.
All tensors of one op call must share a format; outputs are allocated in it ("first" when both fit).
"""
import torch

FIRST, LAST = 1, 2


def _order(dims, fmt):
    return list(range(dims)) if fmt == FIRST else [0] + list(range(2, dims)) + [1]


def _packed(t, order):
    expect = 1
    for d in reversed(order):
        size = t.shape[d]
        if size == 0:
            return True
        if size != 1 and t.stride(d) != expect:
            return False
        expect *= size
    return True


def formats_of(t):
    f = FIRST if _packed(t, _order(t.dim(), FIRST)) else 0
    if t.dim() >= 3 and _packed(t, _order(t.dim(), LAST)):
        f |= LAST
    return f


def common_format(*tensors):
    f = FIRST | LAST
    for t in tensors:
        f &= formats_of(t)
    return FIRST if f & FIRST else LAST  # the C++ side rejects calls with none in common


def strides_for(sizes, fmt):
    strides = [0] * len(sizes)
    s = 1
    for d in reversed(_order(len(sizes), fmt)):
        strides[d] = s
        s *= max(int(sizes[d]), 1)
    return strides


def empty(sizes, fmt, like):
    sizes = [int(s) for s in sizes]
    return torch.empty_strided(sizes, strides_for(sizes, fmt), dtype=like.dtype, device=like.device)


def memory_format_of(t):
    """The torch.memory_format to normalise t's companions to: channels-last when t is packed that way only."""
    if t.dim() == 4 and not t.is_contiguous() and t.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    if t.dim() == 5 and not t.is_contiguous() and t.is_contiguous(memory_format=torch.channels_last_3d):
        return torch.channels_last_3d
    return torch.contiguous_format


def to_format(t, memory_format):
    # t itself where it is in the format: t.contiguous() would return t too, but under torch.compile (2.11) an
    # autograd.Function whose forward returned that call's result got zero gradients (tests/python/test_compile.py).
    return t if t.is_contiguous(memory_format=memory_format) else t.contiguous(memory_format=memory_format)
