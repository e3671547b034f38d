"""Drop-in ``torch.nn`` modules whose forward is PyTorch's and whose backward is tilegrad's.

Each is a subclass of the PyTorch module of the same name, with the same constructor, parameters and
state dict; only the autograd function differs. ``swap_modules(model)`` switches the PyTorch modules of
a model to these in place. Gradients come back in the memory format of the input (channels-last inputs
give channels-last gradients); the incoming gradient is brought to that format first.
"""
import torch
import torch.nn.functional as F
from torch import nn

from . import _layout

_ops = torch.ops.tilegrad


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


# ------------------------------------------------------------------------------------------ max pooling
class _MaxPool2dFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, dilation, ceil_mode):
        fmt = _layout.memory_format_of(x)
        x = _layout.to_format(x, fmt)
        y, idx = F.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)
        idx32 = _layout.to_format(idx, fmt).to(torch.int32)  # tilegrad's index type (a plane's flat position)
        ctx.save_for_backward(x, idx32)
        ctx.geometry = (kernel_size, stride, padding, dilation, ceil_mode)
        ctx.fmt = fmt
        ctx.mark_non_differentiable(idx)
        return y, idx

    @staticmethod
    def backward(ctx, grad_y, grad_idx):
        x, idx32 = ctx.saved_tensors
        k, s, p, d, ceil_mode = ctx.geometry
        dx = _ops.maxpool2d_bwd(_layout.to_format(grad_y, ctx.fmt), x, k, s, p, d, ceil_mode, idx32)
        return dx, None, None, None, None, None


class MaxPool2d(nn.MaxPool2d):
    """torch.nn.MaxPool2d with tilegrad's backward (through PyTorch's indices of the forward)."""

    def forward(self, input):
        k = _tuple(self.kernel_size, 2)
        s = _tuple(self.stride if self.stride is not None else self.kernel_size, 2)
        p, d = _tuple(self.padding, 2), _tuple(self.dilation, 2)
        unbatched = input.dim() == 3
        x = input.unsqueeze(0) if unbatched else input
        y, idx = _MaxPool2dFn.apply(x, k, s, p, d, self.ceil_mode)
        if unbatched:
            y, idx = y.squeeze(0), idx.squeeze(0)
        return (y, idx) if self.return_indices else y


# -------------------------------------------------------------------------------------- average pooling
class _AvgPool3dFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, ceil_mode, count_include_pad):
        fmt = _layout.memory_format_of(x)
        x = _layout.to_format(x, fmt)
        y = F.avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)
        ctx.save_for_backward(x)
        ctx.geometry = (kernel_size, stride, padding, ceil_mode, count_include_pad)
        ctx.fmt = fmt
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        k, s, p, ceil_mode, count_include_pad = ctx.geometry
        dx = _ops.avgpool3d_bwd(_layout.to_format(grad_y, ctx.fmt), x, k, s, p, ceil_mode, count_include_pad)
        return dx, None, None, None, None, None


class AvgPool3d(nn.AvgPool3d):
    """torch.nn.AvgPool3d with tilegrad's backward. No ``divisor_override``; ``ceil_mode`` only where its windows
    do not overhang the padding (otherwise NotImplementedError at the forward)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.divisor_override is not None:
            raise NotImplementedError("tilegrad.nn.AvgPool3d: divisor_override: not supported (must be None)")

    def forward(self, input):
        k = _tuple(self.kernel_size, 3)
        s = _tuple(self.stride if self.stride is not None else self.kernel_size, 3)
        p = _tuple(self.padding, 3)
        if self.ceil_mode:
            for i in range(3):
                size = input.shape[input.dim() - 3 + i]
                if _pool_out(size, k[i], s[i], p[i], 1, True) != _pool_out(size, k[i], s[i], p[i], 1, False):
                    raise NotImplementedError("tilegrad.nn.AvgPool3d: ceil_mode: windows that overhang the padding are not supported")
        unbatched = input.dim() == 4
        x = input.unsqueeze(0) if unbatched else input
        y = _AvgPool3dFn.apply(x, k, s, p, self.ceil_mode, self.count_include_pad)
        return y.squeeze(0) if unbatched else y


# ------------------------------------------------------------------------------------------ group norm
class _GroupNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        fmt = _layout.memory_format_of(x)
        x = _layout.to_format(x, fmt)
        N, C = x.shape[0], x.shape[1]
        hw = x.numel() // (N * C) if N * C > 0 else 0
        # PyTorch's CUDA kernel takes contiguous inputs only ("Expected X.is_contiguous(memory_format)", seen
        # on the H100 with PyTorch 2.11): there it runs on a contiguous copy and y goes back to x's format.
        # The CPU kernel takes channels-last as it is (and its y must stay bit-identical to nn.GroupNorm's).
        xin = x.contiguous() if x.is_cuda else x
        y, mean, rstd = torch.native_group_norm(xin, weight, bias, N, C, hw, groups, eps)
        y = _layout.to_format(y, fmt)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.groups, ctx.fmt = groups, fmt
        return y

    @staticmethod
    def backward(ctx, grad_y):
        x, weight, mean, rstd = ctx.saved_tensors
        N, C, G = x.shape[0], x.shape[1], ctx.groups
        gamma = torch.ones(C, dtype=x.dtype, device=x.device) if weight is None else weight.to(x.dtype).contiguous()
        dx, dgamma, dbeta = _ops.groupnorm_bwd(_layout.to_format(grad_y, ctx.fmt), x, mean.to(torch.float32).reshape(N, G).contiguous(),
                                               rstd.to(torch.float32).reshape(N, G).contiguous(), gamma, G)
        if weight is None:
            return dx, None, None, None, None
        return dx, dgamma.to(weight.dtype), dbeta.to(weight.dtype), None, None


class GroupNorm(nn.GroupNorm):
    """torch.nn.GroupNorm with tilegrad's backward (the forward is torch.native_group_norm's)."""

    def forward(self, input):
        if input.dim() < 2:
            raise ValueError(f"tilegrad.nn.GroupNorm: input: must have at least 2 dimensions [N, C, ...], got shape {list(input.shape)}")
        if input.shape[1] != self.num_channels:
            raise ValueError(f"tilegrad.nn.GroupNorm: input: expected {self.num_channels} channels, got shape {list(input.shape)}")
        return _GroupNormFn.apply(input, self.weight, self.bias, self.num_groups, self.eps)


# ---------------------------------------------------------------------------------------- convolutions
class _ConvFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, pads):
        # One memory format for x, weight and the gradients: channels-last when x (or else the weight) is.
        fmt = _layout.memory_format_of(x)
        if fmt == torch.contiguous_format:
            fmt = _layout.memory_format_of(weight)
        x, weight = _layout.to_format(x, fmt), _layout.to_format(weight, fmt)
        nd = x.dim() - 2
        conv = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
        y = conv(x, weight, bias, stride, padding, dilation, groups)
        ctx.save_for_backward(x, weight)
        ctx.geometry = (stride, pads, dilation, groups)
        ctx.fmt, ctx.has_bias = fmt, bias is not None
        return y

    @staticmethod
    def backward(ctx, grad_y):
        x, weight = ctx.saved_tensors
        stride, pads, dilation, groups = ctx.geometry
        grad_y = _layout.to_format(grad_y, ctx.fmt)
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dx = _ops.conv_bwd_data(grad_y, weight, list(x.shape), stride, pads, dilation, groups)
        if ctx.needs_input_grad[1]:
            dw = _ops.conv_bwd_weight(grad_y, x, list(weight.shape), stride, pads, dilation, groups)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = grad_y.sum(dim=[0] + list(range(2, grad_y.dim())))
        return dx, dw, db, None, None, None, None, None


class _ConvMixin:
    """_conv_forward of torch's _ConvNd, with tilegrad's backward. Padding modes other than zeros pad with
    F.pad first (as torch does), whose backward stays PyTorch's."""

    def _conv_forward(self, input, weight, bias):
        nd = len(self.kernel_size)
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = (0,) * nd
        else:
            padding = self.padding
        if isinstance(padding, str):
            if padding == "valid":
                left = right = [0] * nd
            else:  # "same": as torch, the odd remainder of the total padding goes right
                total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
                left = [t // 2 for t in total]
                right = [t - l for t, l in zip(total, left)]
        else:
            left = right = list(padding)
        pads = left + right
        unbatched = input.dim() == nd + 1
        x = input.unsqueeze(0) if unbatched else input
        y = _ConvFn.apply(x, weight, bias, tuple(self.stride), padding, tuple(self.dilation), self.groups, pads)
        return y.squeeze(0) if unbatched else y


class Conv1d(_ConvMixin, nn.Conv1d):
    """torch.nn.Conv1d with tilegrad's backward for the input and weight gradients."""


class Conv2d(_ConvMixin, nn.Conv2d):
    """torch.nn.Conv2d with tilegrad's backward for the input and weight gradients."""


class Conv3d(_ConvMixin, nn.Conv3d):
    """torch.nn.Conv3d with tilegrad's backward for the input and weight gradients."""


_SWAPS = {nn.MaxPool2d: MaxPool2d, nn.AvgPool3d: AvgPool3d, nn.GroupNorm: GroupNorm, nn.Conv1d: Conv1d, nn.Conv2d: Conv2d,
          nn.Conv3d: Conv3d}


def swap_modules(model):
    """Switches every torch.nn.MaxPool2d, AvgPool3d, GroupNorm and Conv1d/2d/3d of ``model`` (exactly those
    classes, not subclasses) to tilegrad's, in place: same parameters, tilegrad's backward. Returns model."""
    for m in model.modules():
        cls = _SWAPS.get(type(m))
        if cls is not None:
            if cls is AvgPool3d and m.divisor_override is not None:
                raise NotImplementedError("tilegrad.nn.swap_modules: divisor_override: AvgPool3d with a divisor_override cannot be swapped")
            m.__class__ = cls
    return model
