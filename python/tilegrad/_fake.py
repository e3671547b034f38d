"""Fake (meta) implementations of the custom operators: output shapes, dtypes and strides without running
anything, so that torch.compile can trace through the ops and meta tensors work. They follow the same
format rules as the C++ kernels (_layout.py), which tests/python/test_meta.py checks against real outputs.
Registered with torch.library.register_fake (torch >= 2.4), impl_abstract (2.2, 2.3), or as the Meta
kernel (older)."""
import torch

from . import _layout


def _register(name):
    qualname = "tilegrad::" + name

    def wrap(fn):
        if hasattr(torch.library, "register_fake"):
            torch.library.register_fake(qualname)(fn)
        elif hasattr(torch.library, "impl_abstract"):
            torch.library.impl_abstract(qualname)(fn)
        else:
            _meta_lib.impl(name, fn, "Meta")
        return fn
    return wrap


_meta_lib = None
if not hasattr(torch.library, "register_fake") and not hasattr(torch.library, "impl_abstract"):
    _meta_lib = torch.library.Library("tilegrad", "IMPL")


@_register("maxpool2d_bwd")
def maxpool2d_bwd(grad_output, self, kernel_size, stride, padding, dilation=(1, 1), ceil_mode=False, indices=None):
    tensors = (self, grad_output) if indices is None else (self, grad_output, indices)
    return _layout.empty(self.shape, _layout.common_format(*tensors), self)


@_register("avgpool3d_bwd")
def avgpool3d_bwd(grad_output, self, kernel_size, stride, padding, ceil_mode=False, count_include_pad=True, dilation=(1, 1, 1)):
    return _layout.empty(self.shape, _layout.common_format(self, grad_output), self)


@_register("groupnorm_bwd")
def groupnorm_bwd(grad_output, input, mean, rstd, weight, groups):
    fmt = _layout.common_format(input, grad_output) if input.dim() >= 3 else _layout.FIRST
    C = input.shape[1]
    return (_layout.empty(input.shape, fmt, input), input.new_empty((C,)), input.new_empty((C,)))


@_register("conv_bwd_data")
def conv_bwd_data(grad_output, weight, input_size, stride, padding, dilation, groups):
    return _layout.empty(input_size, _layout.common_format(grad_output, weight), grad_output)


@_register("conv_bwd_weight")
def conv_bwd_weight(grad_output, input, weight_size, stride, padding, dilation, groups):
    return _layout.empty(weight_size, _layout.common_format(grad_output, input), input)
