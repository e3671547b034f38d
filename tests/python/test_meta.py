"""The fake (meta) implementations that torch.compile traces with (python/tilegrad/_fake.py) against the real
kernels: for random calls of every op in both memory formats, the op on meta tensors gives the shape, dtype and
strides of the real output. Where torch.library.opcheck exists (torch >= 2.4) it checks the registrations too
(schema, fake implementation, dispatch), on every device."""
import pytest
import torch

from conftest import DEVICES
from support import rand

ops = torch.ops.tilegrad


def calls(gen, device, last):
    """(op, args) of a few valid calls of each op."""
    x, _ = rand([2, 3, 9, 8], gen, torch.float32, device, last)
    dy, _ = rand([2, 3, 5, 4], gen, torch.float32, device, last)
    idx = torch.zeros(2, 3, 5, 4, dtype=torch.int32, device=device)
    idx = idx.contiguous(memory_format=torch.channels_last) if last else idx
    yield ops.maxpool2d_bwd, (dy, x, [3, 3], [2, 2], [1, 1], [1, 1], False, None)
    yield ops.maxpool2d_bwd, (dy, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)
    x5, _ = rand([1, 2, 4, 6, 6], gen, torch.bfloat16, device, last)
    dy5, _ = rand([1, 2, 2, 3, 3], gen, torch.bfloat16, device, last)
    yield ops.avgpool3d_bwd, (dy5, x5, [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, [1, 1, 1])
    mean, rstd = torch.zeros(2, 3, device=device), torch.ones(2, 3, device=device)
    w = torch.ones(3, device=device)
    yield ops.groupnorm_bwd, (dy, dy, mean, rstd, w, 3)
    wt, _ = rand([6, 1, 3, 3], gen, torch.float32, device, last)
    gy, _ = rand([2, 6, 5, 4], gen, torch.float32, device, last)
    yield ops.conv_bwd_data, (gy, wt, [2, 3, 9, 8], [2, 2], [1, 1, 1, 0], [1, 1], 3)
    yield ops.conv_bwd_weight, (gy, x, [6, 1, 3, 3], [2, 2], [1, 1, 1, 0], [1, 1], 3)
    # One channel: tensors that are both contiguous and channels-last (the output's format is then a choice).
    x1, _ = rand([2, 1, 9, 8], gen, torch.float16, device, last)
    dy1, _ = rand([2, 1, 5, 4], gen, torch.float16, device, last)
    yield ops.maxpool2d_bwd, (dy1, x1, [3, 3], [2, 2], [1, 1], [1, 1], False, None)
    yield ops.conv_bwd_data, (dy1, torch.ones(1, 1, 3, 3, dtype=torch.float16, device=device), [2, 1, 9, 8], [2, 2], [1, 1], [1, 1], 1)


def to_meta(a):
    if isinstance(a, torch.Tensor):
        return torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device="meta")
    return a


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
def test_fake_matches_real(device, last, gen):
    for op, args in calls(gen, device, last):
        real = op(*args)
        fake = op(*[to_meta(a) for a in args])
        real = real if isinstance(real, tuple) else (real,)
        fake = fake if isinstance(fake, tuple) else (fake,)
        for r, f in zip(real, fake):
            assert f.device.type == "meta"
            assert (f.shape, f.dtype) == (r.shape, r.dtype), op
            assert f.stride() == r.stride(), f"{op}: fake strides {f.stride()}, real {r.stride()}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("last", [False, True], ids=["contiguous", "channels_last"])
def test_opcheck(device, last, gen):
    if not hasattr(torch.library, "opcheck"):
        pytest.skip(f"torch.library.opcheck needs torch >= 2.4 (this is {torch.__version__})")
    for op, args in calls(gen, device, last):
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_static"))
