#!/usr/bin/env python3
"""Trains a small CNN twice on synthetic data: once with PyTorch's modules, once with tilegrad's (tilegrad.nn:
the same forward, tilegrad's backward), from the same initial weights on the same batches. Prints both loss
curves and the step time of each, writes a PNG of the curves when matplotlib is present, and exits 1 unless
the two curves track each other within the dtype's tolerance (and both learn).

    PYTHONPATH=build/python python3 examples/train_cnn.py --device cuda --steps 300
    PYTHONPATH=build/python python3 examples/train_cnn.py --device cpu --steps 40 --batch 8 --size 12   # quick

The model has every module tilegrad replaces: Conv2d (dense and grouped), GroupNorm, MaxPool2d and AvgPool3d
(over a depth of one), then a linear classifier. The data: each class is a random smooth pattern; a sample is
its class's pattern at a random amplitude and shift plus noise.
"""
import argparse
import copy
import json
import math
import os
import statistics
import sys
import time

import torch
from torch import nn

import tilegrad

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# How far the smoothed curves may drift apart, relative to the loss: rounding differences in the backward
# (and TF32 on the GPU) change the trajectory a little at every step.
RTOL = {"fp32": 0.03, "fp16": 0.08, "bf16": 0.12}


def make_model(width, classes, size):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.GroupNorm(4, width), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1, groups=2), nn.GroupNorm(4, 2 * width), nn.ReLU(),
        nn.Unflatten(1, (2 * width, 1)), nn.AvgPool3d((1, 2, 2)), nn.Flatten(),
        nn.Linear(2 * width * (size // 4) ** 2, classes))


def make_data(n, classes, size, gen):
    """n samples of 3 x size x size and their labels."""
    coarse = torch.randn(classes, 3, size // 4 + 1, size // 4 + 1, generator=gen)
    patterns = nn.functional.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=True)
    labels = torch.randint(0, classes, (n,), generator=gen)
    amplitude = 0.5 + torch.rand(n, 1, 1, 1, generator=gen)
    shifted = torch.stack([torch.roll(patterns[c], shifts=int(s), dims=2) for c, s in
                           zip(labels.tolist(), torch.randint(-2, 3, (n,), generator=gen).tolist())])
    return amplitude * shifted + 1.5 * torch.randn(n, 3, size, size, generator=gen), labels


def train(model, data, labels, args, device, dtype, fmt):
    """SGD with momentum over the same batch order every time; returns the losses and the step times (s)."""
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    order = torch.Generator().manual_seed(args.seed + 1)
    losses, times = [], []
    n = data.shape[0]
    for step in range(args.steps):
        idx = torch.randint(0, n, (args.batch,), generator=order)
        x = data[idx].to(device=device, dtype=dtype).contiguous(memory_format=fmt)
        y = labels[idx].to(device)
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x).float(), y)
        loss.backward()
        opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            break
    return losses, times


def smooth(v, k):
    return [statistics.fmean(v[max(0, i - k + 1):i + 1]) for i in range(len(v))]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (cuda when tilegrad has GPU support and a GPU)")
    p.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    p.add_argument("--channels-last", action="store_true", help="model and inputs in channels-last memory format")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--size", type=int, default=32, help="image side (a multiple of 4)")
    p.add_argument("--width", type=int, default=32, help="channels of the first convolution (a multiple of 4)")
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0, help="0: a fresh one, printed")
    p.add_argument("--out", default=".", help="folder for train_cnn.png and train_cnn.json")
    args = p.parse_args(argv)
    if args.seed == 0:
        args.seed = int.from_bytes(os.urandom(4), "little") | 1
    if args.device == "auto":
        args.device = "cuda" if tilegrad.cuda_available() else "cpu"
    device, dtype = torch.device(args.device), DTYPES[args.dtype]
    if device.type == "cuda" and not tilegrad.cuda_available():
        print("train_cnn: --device cuda, but this tilegrad has no GPU support or PyTorch sees no GPU", file=sys.stderr)
        return 2
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format

    gen = torch.Generator().manual_seed(args.seed)
    data, labels = make_data(max(1024, 8 * args.batch), args.classes, args.size, gen)
    torch.manual_seed(args.seed)
    reference = make_model(args.width, args.classes, args.size).to(device=device, dtype=dtype).to(memory_format=fmt)
    candidate = tilegrad.nn.swap_modules(copy.deepcopy(reference))
    print(f"train_cnn: {args.steps} steps, batch {args.batch}, {args.size}x{args.size}, width {args.width}, {args.dtype}, "
          f"{'channels-last' if args.channels_last else 'contiguous'}, {device} "
          f"({torch.cuda.get_device_name(device) if device.type == 'cuda' else 'host backend'}), torch {torch.__version__}, seed {args.seed}")
    runs = {}
    for name, model in (("pytorch", reference), ("tilegrad", candidate)):
        runs[name] = train(model, data, labels, args, device, dtype, fmt)

    (la, ta), (lb, tb) = runs["pytorch"], runs["tilegrad"]
    k = max(1, min(10, args.steps // 10))
    sa, sb = smooth(la, k), smooth(lb, k)
    print(f"{'step':>6} {'loss pytorch':>13} {'loss tilegrad':>14} {'difference':>11}")
    every = max(1, args.steps // 20)
    for i in list(range(0, len(la), every)) + ([len(la) - 1] if (len(la) - 1) % every else []):
        if i < len(lb):
            print(f"{i:>6} {la[i]:>13.5f} {lb[i]:>14.5f} {lb[i] - la[i]:>+11.5f}")
    warm = min(5, max(0, args.steps - 1))  # steps that include one-time set-up (allocations, kernel loads)
    med_a, med_b = statistics.median(ta[warm:]) * 1e3, statistics.median(tb[warm:]) * 1e3
    print(f"step time (median of steps {warm}-{args.steps - 1}, forward + backward + SGD): pytorch {med_a:.3f} ms, "
          f"tilegrad {med_b:.3f} ms ({med_a / med_b:.2f}x)")

    # Both must learn, and the smoothed curves must stay within the tolerance of each other.
    # The gap is relative to the loss, with a floor of a tenth of the first loss (near zero, absolute).
    floor = 0.1 * sa[0]
    worst = max(abs(a - b) / max(a, floor) for a, b in zip(sa, sb)) if len(sa) == len(sb) else math.inf
    learned = all(len(l) == args.steps and math.isfinite(l[-1]) for l in (la, lb)) and sa[-1] < 0.7 * sa[k - 1] and sb[-1] < 0.7 * sb[k - 1]
    ok = learned and worst <= RTOL[args.dtype]
    print(f"smoothed loss {sa[k - 1]:.4f} -> {sa[-1]:.4f} (pytorch), {sb[k - 1]:.4f} -> {sb[-1]:.4f} (tilegrad); "
          f"largest relative gap of the curves {worst:.4f} (tolerance {RTOL[args.dtype]}); {'PASS' if ok else 'FAIL'}"
          + ("" if learned else ": a run did not learn (smoothed loss not below 70% of its start)"))

    os.makedirs(args.out, exist_ok=True)
    record = {"args": vars(args), "device": str(device), "torch": torch.__version__, "loss_pytorch": la, "loss_tilegrad": lb,
              "step_ms_pytorch": [t * 1e3 for t in ta], "step_ms_tilegrad": [t * 1e3 for t in tb],
              "median_step_ms": {"pytorch": med_a, "tilegrad": med_b}, "largest_gap": worst, "pass": ok}
    with open(os.path.join(args.out, "train_cnn.json"), "w") as f:
        json.dump(record, f)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not present: no plot")
    else:
        fig, (a0, a1) = plt.subplots(1, 2, figsize=(11, 4))
        a0.plot(la, label="PyTorch backward", alpha=0.8)
        a0.plot(lb, label="tilegrad backward", alpha=0.8)
        a0.set_xlabel("step"); a0.set_ylabel("cross-entropy loss"); a0.legend()
        a0.set_title(f"{args.dtype}, {device}, batch {args.batch}")
        a1.plot([t * 1e3 for t in ta], label="PyTorch", alpha=0.8)
        a1.plot([t * 1e3 for t in tb], label="tilegrad", alpha=0.8)
        a1.set_xlabel("step"); a1.set_ylabel("step time (ms)"); a1.set_yscale("log"); a1.legend()
        fig.tight_layout()
        png = os.path.join(args.out, "train_cnn.png")
        fig.savefig(png, dpi=100)
        print(f"plot: {png}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
