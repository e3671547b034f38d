"""Every kind of bad input to the custom operators raises a Python exception whose message starts with
"tilegrad.<op>: <parameter>:" (TypeError for dtypes, ValueError for shapes, devices, formats and geometry,
NotImplementedError for what tilegrad lacks), and leaves the arguments untouched."""
import re

import pytest
import torch

import tilegrad
from conftest import CUDA_SKIP

ops = torch.ops.tilegrad


def raises(exc, op, param, fn, *args):
    before = [a.clone() for a in args if isinstance(a, torch.Tensor) and a.layout == torch.strided]
    with pytest.raises(exc) as info:
        fn(*args)
    message = str(info.value)
    assert re.search(rf"tilegrad\.{op}: {re.escape(param)}", message), f"the message does not name {op}'s {param}: {message}"
    after = [a for a in args if isinstance(a, torch.Tensor) and a.layout == torch.strided]
    assert all(torch.equal(a, b) for a, b in zip(before, after)), "an argument was modified"
    return message


def maxpool(dy, x, k=(3, 3), s=(2, 2), p=(1, 1), d=(1, 1), ceil=False, idx=None):
    return ops.maxpool2d_bwd(dy, x, list(k), list(s), list(p), list(d), ceil, idx)


X = torch.randn(2, 4, 9, 9)
DY = torch.randn(2, 4, 5, 5)


def test_maxpool2d_bwd():
    raises(TypeError, "maxpool2d_bwd", "self", maxpool, DY.double(), X.double())
    raises(TypeError, "maxpool2d_bwd", "self", maxpool, DY.int(), X.int())
    raises(TypeError, "maxpool2d_bwd", "grad_output", maxpool, DY.half(), X)
    raises(ValueError, "maxpool2d_bwd", "self", maxpool, DY, X[0])
    raises(ValueError, "maxpool2d_bwd", "grad_output", maxpool, DY[:, :, :4], X)
    raises(ValueError, "maxpool2d_bwd", "self", maxpool, DY, torch.randn(2, 4, 9, 18)[..., ::2])  # not packed
    raises(ValueError, "maxpool2d_bwd", "grad_output", maxpool, DY.contiguous(memory_format=torch.channels_last), X)
    raises(ValueError, "maxpool2d_bwd", "self", maxpool, DY, X.to_sparse())
    raises(ValueError, "maxpool2d_bwd", "stride", maxpool, DY, X, (3, 3), (0, 2))
    raises(ValueError, "maxpool2d_bwd", "padding", maxpool, DY, X, (3, 3), (2, 2), (2, 1))  # more than half the window
    raises(ValueError, "maxpool2d_bwd", "padding", maxpool, DY, X, (3, 3), (2, 2), (-1, 1))
    raises(ValueError, "maxpool2d_bwd", "dilation", maxpool, DY, X, (3, 3), (2, 2), (1, 1), (0, 1))
    raises(ValueError, "maxpool2d_bwd", "kernel_size", maxpool, DY, X, (3, 3, 3))
    raises(ValueError, "maxpool2d_bwd", "kernel_size", maxpool, torch.randn(2, 4, 1, 1), X, (12, 3), (1, 1), (0, 0))
    idx = torch.zeros(2, 4, 5, 5, dtype=torch.int64)
    raises(TypeError, "maxpool2d_bwd", "indices", maxpool, DY, X, (3, 3), (2, 2), (1, 1), (1, 1), False, idx.float())
    raises(ValueError, "maxpool2d_bwd", "indices", maxpool, DY, X, (3, 3), (2, 2), (1, 1), (1, 1), False, idx[:, :, :4])
    raises(ValueError, "maxpool2d_bwd", "indices", maxpool, DY, X, (3, 3), (2, 2), (1, 1), (1, 1), False,
           idx.contiguous(memory_format=torch.channels_last))
    raises(NotImplementedError, "maxpool2d_bwd", "ceil_mode", maxpool, torch.randn(1, 1, 2, 2), torch.randn(1, 1, 4, 4), (3, 3), (3, 3),
           (0, 0), (1, 1), True)


def avgpool(dy, x, k=(2, 2, 2), s=(2, 2, 2), p=(0, 0, 0), ceil=False, include=True):
    return ops.avgpool3d_bwd(dy, x, list(k), list(s), list(p), ceil, include)


def test_avgpool3d_bwd():
    x, dy = torch.randn(1, 2, 4, 6, 6), torch.randn(1, 2, 2, 3, 3)
    avgpool(dy, x)  # valid
    raises(TypeError, "avgpool3d_bwd", "grad_output", avgpool, dy.bfloat16(), x)
    raises(ValueError, "avgpool3d_bwd", "self", avgpool, dy, x[0])
    raises(ValueError, "avgpool3d_bwd", "grad_output", avgpool, dy[..., :2], x)
    raises(ValueError, "avgpool3d_bwd", "grad_output", avgpool, dy.transpose(3, 4), x)
    raises(ValueError, "avgpool3d_bwd", "stride", avgpool, dy, x, (2, 2, 2), (2, 2))
    raises(ValueError, "avgpool3d_bwd", "kernel_size", avgpool, dy, x, (0, 2, 2))
    raises(NotImplementedError, "avgpool3d_bwd", "ceil_mode", avgpool, torch.randn(1, 2, 2, 3, 3), torch.randn(1, 2, 3, 6, 6), (2, 2, 2),
           (2, 2, 2), (0, 0, 0), True)


def test_groupnorm_bwd():
    x, dy, w = torch.randn(2, 6, 5), torch.randn(2, 6, 5), torch.randn(6)
    mean, rstd = torch.zeros(2, 3), torch.ones(2, 3)
    ops.groupnorm_bwd(dy, x, mean, rstd, w, 3)  # valid
    raises(TypeError, "groupnorm_bwd", "mean", ops.groupnorm_bwd, dy, x, mean.half(), rstd, w, 3)
    raises(TypeError, "groupnorm_bwd", "weight", ops.groupnorm_bwd, dy, x, mean, rstd, w.double(), 3)
    raises(ValueError, "groupnorm_bwd", "rstd", ops.groupnorm_bwd, dy, x, mean, rstd[:, :2], w, 3)
    raises(ValueError, "groupnorm_bwd", "rstd", ops.groupnorm_bwd, dy, x, mean, torch.ones(3, 2).t(), w, 3)
    raises(ValueError, "groupnorm_bwd", "weight", ops.groupnorm_bwd, dy, x, mean, rstd, torch.randn(5), 3)
    raises(ValueError, "groupnorm_bwd", "groups", ops.groupnorm_bwd, dy, x, torch.zeros(2, 4), torch.ones(2, 4), w, 4)
    raises(ValueError, "groupnorm_bwd", "groups", ops.groupnorm_bwd, dy, x, torch.zeros(2, 0), torch.ones(2, 0), w, 0)
    raises(ValueError, "groupnorm_bwd", "grad_output", ops.groupnorm_bwd, dy[:, :, :4], x, mean, rstd, w, 3)
    raises(ValueError, "groupnorm_bwd", "input", ops.groupnorm_bwd, dy[0, 0], x[0, 0], mean, rstd, w, 3)
    raises(ValueError, "groupnorm_bwd", "grad_output", ops.groupnorm_bwd, torch.randn(2, 5, 6).transpose(1, 2), x, mean, rstd, w, 3)


def test_conv_bwd():
    x, w, dy = torch.randn(2, 4, 8, 8), torch.randn(6, 2, 3, 3), torch.randn(2, 6, 6, 6)
    ops.conv_bwd_data(dy, w, [2, 4, 8, 8], [1], [0], [1], 2)  # valid
    data = ops.conv_bwd_data
    raises(TypeError, "conv_bwd_data", "weight", data, dy, w.half(), [2, 4, 8, 8], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "input_size", data, dy, w, [2, 4], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "weight", data, dy, w[0], [2, 4, 8, 8], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "groups", data, dy, w, [2, 4, 8, 8], [1], [0], [1], 3)  # 4 input channels in 3 groups
    raises(ValueError, "conv_bwd_data", "weight", data, dy, torch.randn(6, 1, 3, 3), [2, 4, 8, 8], [1], [0], [1], 2)  # 1 x 2 != 4
    raises(ValueError, "conv_bwd_data", "groups", data, dy, w, [2, 4, 8, 8], [1], [0], [1], 0)
    raises(ValueError, "conv_bwd_data", "stride", data, dy, w, [2, 4, 8, 8], [0], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "stride", data, dy, w, [2, 4, 8, 8], [1, 1, 1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "padding", data, dy, w, [2, 4, 8, 8], [1], [-1], [1], 2)
    raises(ValueError, "conv_bwd_data", "dilation", data, dy, w, [2, 4, 8, 8], [1], [0], [0], 2)
    raises(ValueError, "conv_bwd_data", "kernel size", data, torch.randn(2, 6, 1, 1), torch.randn(6, 2, 9, 3), [2, 4, 8, 8], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "grad_output", data, dy[:, :, :5], w, [2, 4, 8, 8], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_data", "weight", data, dy, w.contiguous(memory_format=torch.channels_last), [2, 4, 8, 8], [1], [0], [1], 2)
    weight = ops.conv_bwd_weight
    raises(TypeError, "conv_bwd_weight", "input", weight, dy, x.bfloat16(), [6, 2, 3, 3], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_weight", "input", weight, dy, torch.randn(2, 4, 8, 16)[..., ::2], [6, 2, 3, 3], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_weight", "grad_output", weight, dy[:1], x, [6, 2, 3, 3], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_weight", "weight_size", weight, dy, x, [6, 2], [1], [0], [1], 2)
    raises(ValueError, "conv_bwd_weight", "groups", weight, dy, x, [6, 2, 3, 3], [1], [0], [1], 4)  # K = 6 not divisible


def test_functional_and_unsupported():
    raises(NotImplementedError, "avg_pool3d_backward", "divisor_override", tilegrad.avg_pool3d_backward, torch.randn(1, 1, 1, 1, 1),
           torch.randn(1, 1, 2, 2, 2), [2], [2], [0], False, True, 3)
    raises(NotImplementedError, "convolution_backward", "transposed", tilegrad.convolution_backward, DY, X, torch.randn(4, 4, 3, 3), None,
           [1], [0], [1], True, [0], 1, [True, True, False])
    raises(ValueError, "native_group_norm_backward", "HxW", tilegrad.native_group_norm_backward, X, X, torch.zeros(2, 2), torch.ones(2, 2),
           None, 2, 4, 80, 2, [True, True, True])


@pytest.mark.cuda
@pytest.mark.skipif(CUDA_SKIP is not None, reason=str(CUDA_SKIP))
def test_devices():
    """Tensors of one call on different devices; a GPU call leaves the CPU arguments alone."""
    x, dy = X.cuda(), DY.cuda()
    raises(ValueError, "maxpool2d_bwd", "grad_output", maxpool, DY, x)
    raises(ValueError, "maxpool2d_bwd", "indices", maxpool, dy, x, (3, 3), (2, 2), (1, 1), (1, 1), False, torch.zeros(2, 4, 5, 5, dtype=torch.int64))
    raises(ValueError, "groupnorm_bwd", "mean", ops.groupnorm_bwd, x.clone(), x, torch.zeros(2, 2), torch.ones(2, 2, device="cuda"),
           torch.ones(4, device="cuda"), 2)
    raises(ValueError, "conv_bwd_weight", "input", ops.conv_bwd_weight, dy, X, [4, 4, 3, 3], [1], [0], [1], 1)
