"""Shared set-up of the PyTorch front end's tests (tests/python, run by ctest: tests/python/CMakeLists.txt).

Every test draws fresh random inputs: the base seed is TG_SEED, or else a new one printed in pytest's header,
so that a failure can be replayed with TG_SEED=<seed>. References are PyTorch's own autograd in float64 on
the CPU, from the same (rounded) inputs the op sees.
"""
import os
import random
import zlib

import pytest
import torch

import tilegrad

SEED = int(os.environ.get("TG_SEED", "0")) or random.SystemRandom().randrange(1, 2**31)


def pytest_report_header(config):
    return [f"tilegrad {tilegrad.__version__} ({'with' if tilegrad.built_with_cuda() else 'without'} GPU support), "
            f"torch {torch.__version__}, CUDA device: {torch.cuda.is_available()}; seed TG_SEED={SEED}"]


def _cuda_skip_reason():
    if not tilegrad.built_with_cuda():
        return "no GPU on this machine or no GPU support in this build: tilegrad was built without CUDA tensors " \
               "(needs the NVIDIA targets and a CUDA-enabled PyTorch)"
    if not torch.cuda.is_available():
        return "no GPU on this machine: PyTorch sees no CUDA device"
    return None


CUDA_SKIP = _cuda_skip_reason()
DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(CUDA_SKIP is not None, reason=str(CUDA_SKIP))])]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


@pytest.fixture
def gen(request):
    """A torch.Generator seeded from the base seed and the test's id (each test its own stream)."""
    g = torch.Generator()
    g.manual_seed(SEED ^ zlib.crc32(request.node.nodeid.encode()))
    return g


@pytest.fixture
def rng(gen):
    """A random.Random for problem sizes, from the same seed as gen."""
    return random.Random(int(torch.randint(0, 2**62, (1,), generator=gen)))
