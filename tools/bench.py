#!/usr/bin/env python3
"""tilegrad vs PyTorch (cuDNN / native CUDA kernels) on the cases of docs/design.md (and the forward
convolution against cuDNN's forward, aten.convolution), in one GPU session.
For each case PyTorch draws the inputs; tilegrad's example reads the same bytes (--load), runs and times
its op (--time), writes its outputs (--save); PyTorch runs and times its own op on the same tensors and
the outputs are compared. Writes bench.json and bench.md to the output folder.
Usage: bench.py BUILD_DIR OUT_DIR [--quick] [--channels-last] [--layers] [--grouped] [--no-design] [--only=OP[,OP...]]
                [--dtypes=fp16,bf16,fp32] [--match=TEXT[,TEXT...]]
(--layers: ResNet-50 and 3-d U-Net layers; --grouped: depthwise and ResNeXt layers; --no-design: without the
design table's cases; --match: only the --layers/--grouped layers whose name contains one of the texts)
(--quick: fp16 only; the default: fp16 and fp32; --dtypes names them)"""
import json, os, re, statistics, subprocess, sys, tempfile, datetime
import torch

build, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
quick = "--quick" in sys.argv
only = [o for a in sys.argv if a.startswith("--only=") for o in a[len("--only="):].split(",")]
match = [o for a in sys.argv if a.startswith("--match=") for o in a[len("--match="):].split(",")]
DTYPE_NAMES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
named = [d for a in sys.argv if a.startswith("--dtypes=") for d in a[len("--dtypes="):].split(",")]
for d in named:
    if d not in DTYPE_NAMES: sys.exit(f"bench.py: --dtypes: unknown dtype {d!r} (fp16, bf16, fp32)")
dtypes = [DTYPE_NAMES[d] for d in named] or ([torch.float16] if quick else [torch.float16, torch.float32])
layouts = [False, True] if "--channels-last" not in sys.argv else [True]  # --channels-last: skip channels-first cases
dev = "cuda"
torch.backends.cudnn.benchmark = True

def bench(fn, reps=50, warm=10):
    for _ in range(warm): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    return statistics.median(ts)

def roofs():
    a = torch.empty(1 << 30, dtype=torch.uint8, device=dev); b = torch.empty_like(a)
    copy = 2 * a.numel() / bench(lambda: b.copy_(a), reps=20) / 1e6
    m = torch.randn(8192, 8192, dtype=torch.float16, device=dev); n = torch.randn_like(m)
    gemm = 2 * 8192 ** 3 / bench(lambda: m @ n, reps=20) / 1e9
    # fp32 convolutions run as tf32 (ours and cuDNN's by PyTorch's default): their roof is a tf32 GEMM's
    allow = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    m, n = m.float(), n.float()
    tf32 = 2 * 8192 ** 3 / bench(lambda: m @ n, reps=20) / 1e9
    torch.backends.cuda.matmul.allow_tf32 = allow
    return copy, gemm, tf32  # GB/s, TFLOP/s, TFLOP/s

def cl(t):
    return t.contiguous(memory_format=torch.channels_last if t.dim() == 4 else torch.channels_last_3d) if t.dim() in (4, 5) else t.contiguous()

def save(t, d, name, channels_last):
    t = t.detach()
    if channels_last and t.dim() in (4, 5):
        t = t.permute(0, *range(2, t.dim()), 1)  # memory order of channels_last
    t = t.contiguous().reshape(-1).cpu()  # flat: a size-1 dimension (depthwise w's C/G) may keep any stride
    t.view(torch.uint8 if t.dtype != torch.bfloat16 else torch.int16).numpy().tofile(os.path.join(d, name + ".bin"))

def load(like, d, name, channels_last):
    shape = list(like.shape)
    if channels_last and like.dim() in (4, 5):
        shape = [shape[0]] + shape[2:] + [shape[1]]
    raw = torch.from_file(os.path.join(d, name + ".bin"), size=like.numel() * like.element_size(), dtype=torch.uint8)
    t = raw.view(like.dtype).view(shape).to(dev)
    if channels_last and like.dim() in (4, 5):
        t = t.permute(0, like.dim() - 1, *range(1, like.dim() - 1))
    return t

def run_ours(example, args, layout, dt, d, extra=()):
    dts = next(name for name, t in DTYPE_NAMES.items() if t == dt)
    cmd = [f"{build}/examples/{example}", "0", "0", "1"] + [str(a) for a in args] + [
        "--backend", "gpu", "--dtype", dts, "--layout", layout, "--load", d, "--save", d, "--repeat", "50"] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = re.search(r"Perf: ([0-9.e+-]+) ms", r.stdout)
    if r.returncode != 0 or not m:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout[-1500:] + r.stderr[-1500:])
    return float(m.group(1))

def rel_err(a, b):
    a = a.float(); b = b.float()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()

rows = []
def report(op, case, dt, layout, ours, peer, nbytes, flops, err, copy, gemm):
    gemm = TF32_ROOF[0] if dt == torch.float32 and TF32_ROOF else gemm  # % of the roof of the dtype's matrix cores
    r = dict(op=op, case=case, dtype=str(dt).replace("torch.", ""), layout=layout, tilegrad_ms=round(ours, 4), torch_ms=round(peer, 4),
             ratio=round(peer / ours, 3), gbs=round(nbytes / ours / 1e6, 1), pct_bw=round(100 * nbytes / ours / 1e6 / copy, 1),
             tflops=round(flops / ours / 1e9, 1) if flops else 0.0, pct_flop=round(100 * flops / ours / 1e9 / gemm, 1) if flops else 0.0,
             rel_err=float(f"{err:.2e}"))
    rows.append(r); print(json.dumps(r), flush=True)

def maxpool(case, N, C, H, W, k, s, p, dt, chl, copy, gemm):
    x = torch.randn(N, C, H, W, device=dev, dtype=dt); x = cl(x) if chl else x
    y, idx = torch.ops.aten.max_pool2d_with_indices(x, [k, k], [s, s], [p, p], [1, 1], False)
    dy = torch.randn_like(y)
    f = lambda: torch.ops.aten.max_pool2d_with_indices_backward(dy, x, [k, k], [s, s], [p, p], [1, 1], False, idx)
    with tempfile.TemporaryDirectory() as d:
        save(x, d, "x", chl); save(dy, d, "dy", chl)
        # the stored-indices form, as PyTorch's max_pool2d_with_indices_backward
        ours = run_ours("maxpool2d_bwd", [N, C, k, k, H, W, s, s, 1, 1, p, p], "nhwc" if chl else "nchw", dt, d, ["--indices"])
        dx = f(); err = rel_err(load(dx, d, "dx", chl), dx)
    report("maxpool2d_bwd", case, dt, "NHWC" if chl else "NCHW", ours, bench(f), (2 * x.numel() + dy.numel()) * x.element_size(), 0, err, copy, gemm)

def avgpool(case, N, C, D, H, W, k, s, p, dt, chl, copy, gemm):
    x = torch.randn(N, C, D, H, W, device=dev, dtype=dt); x = cl(x) if chl else x
    y = torch.ops.aten.avg_pool3d(x, [k] * 3, [s] * 3, [p] * 3, False, True, None)
    dy = torch.randn_like(y)
    f = lambda: torch.ops.aten.avg_pool3d_backward(dy, x, [k] * 3, [s] * 3, [p] * 3, False, True, None)
    with tempfile.TemporaryDirectory() as d:
        save(dy, d, "dy", chl)
        ours = run_ours("avgpool3d_bwd", [N, C, k, k, k, D, H, W, s, s, s, 1, 1, 1, p, p, p, p, p, p], "ndhwc" if chl else "ncdhw", dt, d)
        dx = f(); err = rel_err(load(dx, d, "dx", chl), dx)
    report("avgpool3d_bwd", case, dt, "NDHWC" if chl else "NCDHW", ours, bench(f), (x.numel() + dy.numel()) * x.element_size(), 0, err, copy, gemm)

def groupnorm(case, N, C, H, W, G, dt, chl, copy, gemm):
    x = torch.randn(N, C, H, W, device=dev, dtype=dt); x = cl(x) if chl else x
    gamma = torch.randn(C, device=dev, dtype=dt); beta = torch.randn(C, device=dev, dtype=dt)
    dy = torch.randn_like(x)
    xr = x.detach().requires_grad_(); gr = gamma.detach().requires_grad_(); br = beta.detach().requires_grad_()
    y = torch.nn.functional.group_norm(xr, G, gr, br, 1e-5)
    if not chl:
        _, mean, rstd = torch.ops.aten.native_group_norm(x, gamma, beta, N, C, H * W, G, 1e-5)
        f = lambda: torch.ops.aten.native_group_norm_backward(dy, x, mean, rstd, gamma, N, C, H * W, G, [True, True, True])
    else:
        f = lambda: torch.autograd.grad(y, [xr, gr, br], dy, retain_graph=True)
    with tempfile.TemporaryDirectory() as d:
        for t, n in ((x, "x"), (dy, "dy"), (gamma, "gamma"), (beta, "beta")): save(t, d, n, chl)
        ours = run_ours("groupnorm_bwd", [N, H, W, G, C], "nhwc" if chl else "nchw", dt, d)
        dx, dg, db = f()
        err = max(rel_err(load(dx, d, "dx", chl), dx), rel_err(load(dg, d, "dgamma", False), dg), rel_err(load(db, d, "dbeta", False), db))
    report("groupnorm_bwd", case, dt, "NHWC" if chl else "NCHW", ours, bench(f), 3 * x.numel() * x.element_size(), 0, err, copy, gemm)

def conv(op, case, N, K, C, G, sp, filt, stride, pad, dt, chl, copy, gemm):
    nd = len(sp)
    chl = chl and nd > 1
    x = torch.randn(N, C, *sp, device=dev, dtype=dt); x = cl(x) if chl else x
    w = torch.randn(K, C // G, *filt, device=dev, dtype=dt); w = cl(w) if chl else w
    fwd = lambda: torch.ops.aten.convolution(x, w, None, stride, pad, [1] * nd, False, [0] * nd, G)  # cuDNN's forward
    dy = torch.randn_like(fwd()); dy = cl(dy) if chl else dy.contiguous()
    # Each op's PyTorch peer, the inputs tilegrad's example reads (--load: <name>.bin) and the output it writes.
    if op == "conv_fwd":
        f, pick, inputs, output = fwd, lambda r: r, ((x, "x"), (w, "w")), "y"
    else:
        data = op == "convnd_bwd_data"
        mask = [True, False, False] if data else [False, True, False]
        f = lambda: torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, [1] * nd, False, [0] * nd, G, mask)
        pick = lambda r: r[0 if data else 1]
        inputs, output = ((dy, "dy"), (w, "w") if data else (x, "x")), "dx" if data else "dw"
    args = [nd, G, N, K, C] + list(filt) + list(sp) + list(stride) + [1] * nd + list(pad) + list(pad)
    with tempfile.TemporaryDirectory() as d:
        for t, n in inputs: save(t, d, n, chl)
        ours = run_ours(op, args, "nhwgc" if chl else "nchw", dt, d)
        ref = pick(f())
        err = rel_err(load(ref, d, output, chl), ref)
    flops = 2.0 * dy.numel() * (C // G) * torch.tensor(filt).prod().item()
    report(op, case, dt, ("NHWC" if nd == 2 else "NDHWC") if chl else "NCHW", ours, bench(f), (x.numel() + w.numel() + dy.numel()) * x.element_size(), flops, err, copy, gemm)

def relayout(case, shape, src, dst, dt, chl, copy, gemm):
    # tg::relayout against PyTorch's own layout conversion (a permuted view made contiguous, which is what
    # .contiguous(memory_format=torch.channels_last) does); layout-independent, so run once (chl only).
    if not chl:
        return
    x = torch.randn(*[shape[i] for i in src], device=dev, dtype=dt)  # memory order of `src`
    inv = [src.index(i) for i in range(len(shape))]                  # logical dimension i is x's axis inv[i]
    f = lambda: x.permute(*[inv[i] for i in dst]).contiguous()       # memory order of `dst`
    with tempfile.TemporaryDirectory() as d:
        x.contiguous().cpu().view(torch.uint8 if dt != torch.bfloat16 else torch.int16).numpy().tofile(os.path.join(d, "src.bin"))
        ours = run_ours("relayout", shape, "nchw", dt, d, ["--from", ",".join(map(str, src)), "--to", ",".join(map(str, dst))])
        y = f()
        raw = torch.from_file(os.path.join(d, "dst.bin"), size=y.numel() * y.element_size(), dtype=torch.uint8)
        err = rel_err(raw.view(dt).view(y.shape).to(dev), y)
    report("relayout", case, dt, "", ours, bench(f), 2 * x.numel() * x.element_size(), 0, err, copy, gemm)

def resnet_layers():
    # ResNet-50 at batch 128 (3x3 and 1x1 layers from 56x56 down to 7x7, a strided 1x1 downsample) and a
    # 3-d U-Net layer at batch 2: the forward and both gradients of each, as a training step needs them.
    layers = [("resnet50 3x3 C64 56x56", 128, 64, 64, [56, 56], [3, 3], [1, 1], [1, 1]),
              ("resnet50 3x3 C128 28x28", 128, 128, 128, [28, 28], [3, 3], [1, 1], [1, 1]),
              ("resnet50 3x3 C256 14x14", 128, 256, 256, [14, 14], [3, 3], [1, 1], [1, 1]),
              ("resnet50 3x3 C512 7x7", 128, 512, 512, [7, 7], [3, 3], [1, 1], [1, 1]),
              ("resnet50 1x1 C64->256 56x56", 128, 256, 64, [56, 56], [1, 1], [1, 1], [0, 0]),
              ("resnet50 1x1 C1024->256 14x14", 128, 256, 1024, [14, 14], [1, 1], [1, 1], [0, 0]),
              ("resnet50 1x1 C256->64 56x56", 128, 64, 256, [56, 56], [1, 1], [1, 1], [0, 0]),
              ("resnet50 1x1 s2 downsample C256->512 56x56", 128, 512, 256, [56, 56], [1, 1], [2, 2], [0, 0]),
              ("unet3d 3^3 C64 N2 32x64x64", 2, 64, 64, [32, 64, 64], [3, 3, 3], [1, 1, 1], [1, 1, 1])]
    out = []
    layers = [l for l in layers if not match or any(m in l[0] for m in match)]
    for name, N, K, C, sp, filt, stride, pad in layers:
        for op in ("conv_fwd", "convnd_bwd_data", "grouped_conv_bwd_weight"):
            out.append((op, lambda dt, c, op=op, a=(name, N, K, C, sp, filt, stride, pad):
                        conv(op, a[0], a[1], a[2], a[3], 1, a[4], a[5], a[6], a[7], dt, c, *ROOFS)))
    return out

def grouped_layers():
    # Issue 18's depthwise and narrow-group layers (channels-last is what they target): MobileNetV2's 3x3,
    # EfficientNet's 5x5 stride 2, ConvNeXt's 7x7, ResNeXt-50 32x4d's G32 3x3 at batch 64; the forward and
    # both gradients.
    layers = [("mobilenetv2 dw 3x3 C144 56x56", 128, 144, 144, [56, 56], [3, 3], [1, 1], [1, 1]),
              ("mobilenetv2 dw 3x3 C960 7x7", 128, 960, 960, [7, 7], [3, 3], [1, 1], [1, 1]),
              ("efficientnet dw 5x5 s2 C144 56x56", 128, 144, 144, [56, 56], [5, 5], [2, 2], [2, 2]),
              ("efficientnet dw 5x5 s2 C672 14x14", 128, 672, 672, [14, 14], [5, 5], [2, 2], [2, 2]),
              ("convnext dw 7x7 C384 28x28", 64, 384, 384, [28, 28], [7, 7], [1, 1], [3, 3]),
              ("convnext dw 7x7 C768 14x14", 64, 768, 768, [14, 14], [7, 7], [1, 1], [3, 3]),
              ("resnext50 G32 3x3 C128 56x56", 64, 128, 32, [56, 56], [3, 3], [1, 1], [1, 1]),
              ("resnext50 G32 3x3 C256 28x28", 64, 256, 32, [28, 28], [3, 3], [1, 1], [1, 1]),
              ("resnext50 G32 3x3 C512 14x14", 64, 512, 32, [14, 14], [3, 3], [1, 1], [1, 1]),
              ("resnext50 G32 3x3 C1024 7x7", 64, 1024, 32, [7, 7], [3, 3], [1, 1], [1, 1])]
    out = []
    layers = [l for l in layers if not match or any(m in l[0] for m in match)]
    for name, N, C, G, sp, filt, stride, pad in layers:
        for op in ("conv_fwd", "convnd_bwd_data", "grouped_conv_bwd_weight"):
            out.append((op, lambda dt, c, op=op, a=(name, N, C, G, sp, filt, stride, pad):
                        conv(op, a[0], a[1], a[2], a[2], a[3], a[4], a[5], a[6], a[7], dt, c, *ROOFS)))
    return out

ROOFS = []
TF32_ROOF = []

def main():
    copy, gemm, tf32 = roofs()
    ROOFS[:] = [copy, gemm]
    TF32_ROOF[:] = [tf32]
    print(f"roofs: copy {copy:.0f} GB/s, fp16 gemm {gemm:.0f} TFLOP/s, tf32 gemm {tf32:.0f} TFLOP/s", flush=True)
    cases = [
        ("maxpool2d_bwd", lambda dt, c: maxpool("resnet-stem N128 C64 112x112 3x3 s2 p1", 128, 64, 112, 112, 3, 2, 1, dt, c, copy, gemm)),
        ("maxpool2d_bwd", lambda dt, c: maxpool("N64 C256 56x56 2x2 s2", 64, 256, 56, 56, 2, 2, 0, dt, c, copy, gemm)),
        ("avgpool3d_bwd", lambda dt, c: avgpool("video N16 C64 16x56x56 2^3 s2", 16, 64, 16, 56, 56, 2, 2, 0, dt, c, copy, gemm)),
        ("avgpool3d_bwd", lambda dt, c: avgpool("N8 C128 16x32x32 3^3 s1 p1", 8, 128, 16, 32, 32, 3, 1, 1, dt, c, copy, gemm)),
        ("groupnorm_bwd", lambda dt, c: groupnorm("unet N8 C320 64x64 G32", 8, 320, 64, 64, 32, dt, c, copy, gemm)),
        ("groupnorm_bwd", lambda dt, c: groupnorm("N32 C256 56x56 G32", 32, 256, 56, 56, 32, dt, c, copy, gemm)),
        ("relayout", lambda dt, c: relayout("N64 C256 56x56 NCHW -> NHWC", [64, 256, 56, 56], [0, 1, 2, 3], [0, 2, 3, 1], dt, c, copy, gemm)),
        ("relayout", lambda dt, c: relayout("N64 C256 56x56 NHWC -> NCHW", [64, 256, 56, 56], [0, 2, 3, 1], [0, 1, 2, 3], dt, c, copy, gemm)),
        ("relayout", lambda dt, c: relayout("N8 C128 16x56x56 NCDHW -> NDHWC", [8, 128, 16, 56, 56], [0, 1, 2, 3, 4], [0, 2, 3, 4, 1], dt, c, copy, gemm)),
        ("relayout", lambda dt, c: relayout("N8 C128 16x56x56 NDHWC -> NCDHW", [8, 128, 16, 56, 56], [0, 2, 3, 4, 1], [0, 1, 2, 3, 4], dt, c, copy, gemm)),
        ("conv_fwd", lambda dt, c: conv("conv_fwd", "seed N128 K256 C128 71x71 3x3 s2 p1", 128, 256, 128, 1, [71, 71], [3, 3], [2, 2], [1, 1], dt, c, copy, gemm)),
        ("conv_fwd", lambda dt, c: conv("conv_fwd", "resnet N64 K64 C64 56x56 3x3 p1", 64, 64, 64, 1, [56, 56], [3, 3], [1, 1], [1, 1], dt, c, copy, gemm)),
        ("conv_fwd", lambda dt, c: conv("conv_fwd", "resnext N64 G32 C=K256 56x56 3x3 p1", 64, 256, 256, 32, [56, 56], [3, 3], [1, 1], [1, 1], dt, c, copy, gemm)),
        ("convnd_bwd_data", lambda dt, c: conv("convnd_bwd_data", "seed N128 K256 C128 71x71 3x3 s2 p1", 128, 256, 128, 1, [71, 71], [3, 3], [2, 2], [1, 1], dt, c, copy, gemm)),
        ("convnd_bwd_data", lambda dt, c: conv("convnd_bwd_data", "resnet N64 K64 C64 56x56 3x3 p1", 64, 64, 64, 1, [56, 56], [3, 3], [1, 1], [1, 1], dt, c, copy, gemm)),
        ("convnd_bwd_data", lambda dt, c: conv("convnd_bwd_data", "3d N4 K64 C64 16x56x56 3^3 p1", 4, 64, 64, 1, [16, 56, 56], [3, 3, 3], [1, 1, 1], [1, 1, 1], dt, c, copy, gemm)),
        ("convnd_bwd_data", lambda dt, c: conv("convnd_bwd_data", "1d N32 K256 C256 W4096 k3 p1", 32, 256, 256, 1, [4096], [3], [1], [1], dt, c, copy, gemm)),
        ("grouped_conv_bwd_weight", lambda dt, c: conv("grouped_conv_bwd_weight", "resnext N64 G32 C=K256 56x56 3x3 p1", 64, 256, 256, 32, [56, 56], [3, 3], [1, 1], [1, 1], dt, c, copy, gemm)),
        ("grouped_conv_bwd_weight", lambda dt, c: conv("grouped_conv_bwd_weight", "depthwise N64 G=C=K384 28x28 7x7 p3", 64, 384, 384, 384, [28, 28], [7, 7], [1, 1], [3, 3], dt, c, copy, gemm)),
        ("grouped_conv_bwd_weight", lambda dt, c: conv("grouped_conv_bwd_weight", "dense N128 K256 C128 71x71 3x3 s2 p1", 128, 256, 128, 1, [71, 71], [3, 3], [2, 2], [1, 1], dt, c, copy, gemm)),
    ]
    if "--no-design" in sys.argv:
        cases = []
    if "--layers" in sys.argv:  # issue 16's real-network layers (channels-last is what they target)
        cases += resnet_layers()
    if "--grouped" in sys.argv:  # issue 18's depthwise and grouped layers
        cases += grouped_layers()
    for dt in dtypes:
        for chl in layouts:
            for op, c in cases:
                if only and op not in only:
                    continue
                try:
                    c(dt, chl)
                except Exception as e:  # a failing case is reported, the others still run
                    print("ERROR", str(e)[:2000], flush=True)
    name = torch.cuda.get_device_name()
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(dict(device=name, date=datetime.date.today().isoformat(), torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                       copy_gbs=copy, gemm_tflops=gemm, tf32_gemm_tflops=tf32, rows=rows), f, indent=1)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(f"Device {name}, {datetime.date.today()}, PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; "
                f"roofs measured in this run: copy {copy:.0f} GB/s, fp16 GEMM {gemm:.0f} TFLOP/s, tf32 GEMM {tf32:.0f} TFLOP/s "
                f"(% GEMM: of the fp16 roof for 16-bit rows, of the tf32 roof for fp32 rows).\n\n")
        f.write("| op | case | dtype | layout | tilegrad ms | PyTorch ms | ratio | GB/s | % copy bw | TFLOP/s | % GEMM | rel err |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['op']} | {r['case']} | {r['dtype']} | {r['layout']} | {r['tilegrad_ms']} | {r['torch_ms']} | {r['ratio']} | {r['gbs']} | "
                    f"{r['pct_bw']} | {r['tflops']} | {r['pct_flop']} | {r['rel_err']} |\n")
    print(open(os.path.join(out, "bench.md")).read())

main()
