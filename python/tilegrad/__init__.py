"""tilegrad's backward kernels for PyTorch.

The five ops are PyTorch custom operators (``torch.ops.tilegrad.*``: maxpool2d_bwd, avgpool3d_bwd,
groupnorm_bwd, conv_bwd_data, conv_bwd_weight) that run CPU tensors on tilegrad's host backend and CUDA
tensors on its GPU kernels, on PyTorch's current stream. On top of them:

* ``tilegrad.functional``: functions with the signatures of their ATen counterparts
  (``max_pool2d_with_indices_backward``, ``avg_pool3d_backward``, ``native_group_norm_backward``,
  ``convolution_backward``), re-exported here;
* ``tilegrad.nn``: ``MaxPool2d``, ``AvgPool3d``, ``GroupNorm``, ``Conv1d``, ``Conv2d``, ``Conv3d``, drop-in
  modules whose forward is PyTorch's and whose backward is tilegrad's.

Bad inputs raise ``TypeError`` (dtype), ``ValueError`` (shape, device, memory format, geometry) or
``NotImplementedError`` (a feature tilegrad lacks), each message starting ``tilegrad.<op>: <parameter>:``.
"""
import os

import torch

try:
    from . import _build
except ImportError as e:  # the source folder python/tilegrad, not a build
    raise ImportError("tilegrad: this is the package's source folder; build it with CMake (python/CMakeLists.txt) and put "
                      "<build>/python on PYTHONPATH") from e

_library = os.path.join(os.path.dirname(os.path.abspath(__file__)), _build.LIBRARY)
if not os.path.exists(_library):
    raise ImportError(f"tilegrad: {_library} is missing: build the target tilegrad_torch")
if torch.__version__ != _build.TORCH_VERSION:
    raise ImportError(f"tilegrad: built against torch {_build.TORCH_VERSION}, but this Python has torch {torch.__version__}: "
                      "rebuild with -DTG_PYTHON=<this interpreter>")
torch.ops.load_library(_library)

from . import _fake  # noqa: E402,F401  (fake/meta implementations, for torch.compile and meta tensors)
from . import functional, nn  # noqa: E402
from .functional import (avg_pool3d_backward, convolution_backward, max_pool2d_with_indices_backward,  # noqa: E402,F401
                         native_group_norm_backward)

__version__ = _build.VERSION
ops = torch.ops.tilegrad


def built_with_cuda():
    """Whether CUDA tensors run on tilegrad's GPU kernels in this build."""
    return bool(_build.CUDA)


def cuda_available():
    """Whether this build has GPU support and PyTorch sees a CUDA device."""
    return built_with_cuda() and torch.cuda.is_available()
