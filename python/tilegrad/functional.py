"""tilegrad's backward ops with the signatures of their ATen counterparts, so that a call of
``torch.ops.aten.<name>`` can be swapped for ``tilegrad.<name>`` in one line.

Like ATen, each brings its tensors to one memory format first: the input's (``self``/``input``) when it is
packed contiguous or channels-last (otherwise contiguous), copying the tensors that are not in it (such as a
grad_output with other strides); the gradients come back in that format. The custom operators underneath
(``torch.ops.tilegrad.*``) take tensors only as they are and raise on anything else. Wrong dtypes, devices,
shapes and geometry raise an exception naming the parameter (see tilegrad.__init__). Differences from
ATen are named where they arise:
``avg_pool3d_backward`` has no ``divisor_override``; ``convolution_backward`` has no transposed
convolution; ``native_group_norm_backward`` works on fp32 statistics (it converts ``mean``/``rstd``)
and a weight of the input's dtype (it converts, and converts the weight's gradient back).
"""
import torch

from . import _layout

_ops = torch.ops.tilegrad


def _formatted(reference, *tensors):
    """reference and tensors (None passes) in reference's memory format (contiguous if it has none)."""
    fmt = _layout.memory_format_of(reference)
    return [None if t is None or not isinstance(t, torch.Tensor) else _layout.to_format(t, fmt) for t in (reference,) + tensors]


def _unbatched(x, dims):
    return x is not None and x.dim() == dims - 1


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """aten::max_pool2d_with_indices_backward. ``indices=None`` recomputes the argmax from ``self`` instead."""
    if _unbatched(self, 4):
        return max_pool2d_with_indices_backward(grad_output.unsqueeze(0), self.unsqueeze(0), kernel_size, stride, padding, dilation,
                                                ceil_mode, None if indices is None else indices.unsqueeze(0)).squeeze(0)
    self, grad_output, indices = _formatted(self, grad_output, indices)
    return _ops.maxpool2d_bwd(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)


def avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None):
    """aten::avg_pool3d_backward (``divisor_override`` must be None)."""
    if divisor_override is not None:
        raise NotImplementedError("tilegrad.avg_pool3d_backward: divisor_override: not supported (must be None)")
    if _unbatched(self, 5):
        return avg_pool3d_backward(grad_output.unsqueeze(0), self.unsqueeze(0), kernel_size, stride, padding, ceil_mode,
                                   count_include_pad).squeeze(0)
    self, grad_output = _formatted(self, grad_output)
    return _ops.avgpool3d_bwd(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad)


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """aten::native_group_norm_backward: (grad_input, grad_weight, grad_bias), None where output_mask is False."""
    if not isinstance(input, torch.Tensor):
        raise TypeError("tilegrad.native_group_norm_backward: input: must be a tensor")
    if input.dim() < 2:
        raise ValueError(f"tilegrad.native_group_norm_backward: input: must have at least 2 dimensions, got shape {list(input.shape)}")
    hw = 1
    for s in input.shape[2:]:
        hw *= s
    for name, value, want in (("N", N, input.shape[0]), ("C", C, input.shape[1]), ("HxW", HxW, hw)):
        if value != want:
            raise ValueError(f"tilegrad.native_group_norm_backward: {name}: is {value}, but input of shape {list(input.shape)} has {want}")
    for name, t in (("mean", mean), ("rstd", rstd)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"tilegrad.native_group_norm_backward: {name}: must be a tensor")
        if t.numel() != N * group:
            raise ValueError(f"tilegrad.native_group_norm_backward: {name}: expected {N * group} values (N x group), got shape {list(t.shape)}")
    stats = [t.to(torch.float32).reshape(N, group).contiguous() for t in (mean, rstd)]
    w = torch.ones(C, dtype=input.dtype, device=input.device) if weight is None else weight.to(input.dtype).contiguous()
    input, grad_out = _formatted(input, grad_out)
    dx, dgamma, dbeta = _ops.groupnorm_bwd(grad_out, input, stats[0], stats[1], w, group)
    if weight is not None and weight.dtype != input.dtype:
        dgamma, dbeta = dgamma.to(weight.dtype), dbeta.to(weight.dtype)
    mask = list(output_mask)
    return (dx if mask[0] else None, dgamma if mask[1] else None, dbeta if mask[2] else None)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
                         output_mask):
    """aten::convolution_backward for (grouped) 1-3d convolutions: (grad_input, grad_weight, grad_bias), None where
    output_mask is False. The bias gradient is PyTorch's sum of grad_output. ``padding`` may also give the left then the
    right padding of every dimension (2 x ndim values)."""
    if transposed:
        raise NotImplementedError("tilegrad.convolution_backward: transposed: transposed convolutions are not supported")
    if any(p != 0 for p in output_padding):
        raise NotImplementedError("tilegrad.convolution_backward: output_padding: must be 0 (no transposed convolutions)")
    mask = list(output_mask)
    if isinstance(input, torch.Tensor) and isinstance(weight, torch.Tensor) and input.dim() == weight.dim() - 1:  # unbatched
        dx, dw, db = convolution_backward(grad_output.unsqueeze(0), input.unsqueeze(0), weight, bias_sizes, stride, padding, dilation,
                                          transposed, output_padding, groups, output_mask)
        return (None if dx is None else dx.squeeze(0), dw, db)
    if isinstance(input, torch.Tensor) and isinstance(weight, torch.Tensor) and _layout.memory_format_of(input) == torch.contiguous_format:
        weight, input, grad_output = _formatted(weight, input, grad_output)  # the weight's format where the input has none
    else:
        input, grad_output, weight = _formatted(input, grad_output, weight)
    dx = _ops.conv_bwd_data(grad_output, weight, list(input.shape), stride, padding, dilation, groups) if mask[0] else None
    dw = _ops.conv_bwd_weight(grad_output, input, list(weight.shape), stride, padding, dilation, groups) if mask[1] else None
    db = grad_output.sum(dim=[0] + list(range(2, grad_output.dim()))) if mask[2] else None
    return dx, dw, db
