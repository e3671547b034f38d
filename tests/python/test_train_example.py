"""examples/train_cnn.py: the CNN trained with PyTorch's backward and with tilegrad's must give curves that track
each other (the example's own check) and both learn. On the CPU a short run on small images (the host backend is
serial); on CUDA the example's default problem for 150 steps, in fp32 and bf16, contiguous and channels-last."""
import importlib.util
import json
import os

import pytest

from conftest import DEVICES

_path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_cnn.py")
_spec = importlib.util.spec_from_file_location("train_cnn", _path)
train_cnn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_cnn)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype,last", [("fp32", False), ("fp32", True), ("bf16", True)], ids=["fp32", "fp32-channels_last", "bf16-channels_last"])
def test_train_cnn(device, dtype, last, tmp_path):
    if device == "cpu":
        if dtype != "fp32":
            pytest.skip("PyTorch 1.13's CPU forward lacks bf16 pooling; the GPU run covers it")
        args = ["--steps", "40", "--batch", "8", "--size", "12", "--width", "8"]
    else:
        args = ["--steps", "150"]
    args += ["--device", device, "--dtype", dtype, "--out", str(tmp_path)] + (["--channels-last"] if last else [])
    assert train_cnn.main(args) == 0
    with open(tmp_path / "train_cnn.json") as f:
        record = json.load(f)
    assert record["pass"] and len(record["loss_tilegrad"]) == record["args"]["steps"]
