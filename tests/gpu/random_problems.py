#!/usr/bin/env python3
"""Random problems for every op, dtype and layout on the GPU backend. Each run is one example
invocation: fresh random inputs, poisoned outputs, checked against the naive host reference; the
example exits 1 on a failed check. Usage: random_problems.py BUILD_DIR OP [COUNT] [SEED]"""
import os, random, subprocess, sys

build, op = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 12
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(1 << 30))

def window_ok(i, k, s, d, pl, pr, pool):
    span = d * (k - 1) + 1
    return span <= i + pl + pr and (not pool or (2 * pl <= span and 2 * pr <= span))

def pool_dims(nd, vec, kind="any"):
    while True:
        g = [(rng.randint(3, 19), rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 2)) for _ in range(nd)]
        if kind == "stride1":  # the mean route's box-sum path (rings up to 8 planes; channel vectors up to 4; else fallback)
            g = [(i, k, 1, d) for i, k, s, d in g]
        elif kind in ("box-rows", "box-lanes"):  # box sum with rings and w windows of at most 3: channel or w vectors
            g = [(i, min(k, 3), 1, rng.choice([1, 1, 2]) if k <= 2 else 1) for i, k, s, d in g]
        elif kind == "disjoint":  # windows that do not overlap: the mean route's single-window path
            g = [(i, k, k + rng.randint(0, 1), 1) for i, k, s, d in g]
        if vec:  # a last dimension of whole 16-byte vectors: the channels-first fast path
            g[-1] = (rng.choice([8, 16]),) + g[-1][1:]
        g = [(i, k, s, d, rng.randint(0, (d * (k - 1) + 1) // 2)) for i, k, s, d in g]
        if kind == "box-lanes":  # box sum by lanes: w windows of 3 padded by 1 (dy as wide as dx), rows of 8,
            # whole warps of columns (16 channels x 8 rows); w = 56 straddles warps in fp16 (7 words a row)
            g[1] = (8,) + g[1][1:]
            g[2] = (rng.choice([8, 16, 24, 56]), 3, 1, 1, 1)
        if all(window_ok(i, k, s, d, p, p, True) for i, k, s, d, p in g):
            return g

def case():
    dt = rng.choice(["fp32", "fp16", "bf16"])
    # Half the problems have sizes in whole 16-byte vectors, which the GPU fast paths need.
    vec = rng.random() < 0.5
    channels = rng.choice([8, 16, 24]) if vec else rng.randint(1, 9)
    if op == "maxpool2d_bwd":
        g = pool_dims(2, vec)
        if rng.random() < 0.3:  # rows by lanes: a w window of 3 at stride 2 padded by 1, or 2x2 at stride 2; rows
            # of 8 and 16 channels (whole warps of 16-byte words); w = 112 straddles warps in fp16 (14 words a row)
            channels, g[0] = 16, (8,) + g[0][1:]
            g[1] = (rng.choice([16, 32, 112]),) + rng.choice([(3, 2, 1, 1), (2, 2, 1, 0)])
            args = [rng.randint(1, 3), channels] + [x[1] for x in g] + [x[0] for x in g] + [x[2] for x in g] + [x[3] for x in g] + [x[4] for x in g]
            return args, ["--layout", "nchw", "--indices"], dt
        args = [rng.randint(1, 3), channels] + [x[1] for x in g] + [x[0] for x in g] + [x[2] for x in g] + [x[3] for x in g] + [x[4] for x in g]
        return args, ["--layout", rng.choice(["nchw", "nhwc"])] + (["--indices"] if rng.random() < 0.5 else []), dt
    if op == "avgpool3d_bwd":
        kind = rng.choice(["any", "stride1", "box-rows", "box-rows", "disjoint", "box-lanes"])
        g = pool_dims(3, vec, kind)
        if kind == "box-lanes":
            channels = 16
        args = [rng.randint(1, 2), channels] + [x[1] for x in g] + [x[0] for x in g] + [x[2] for x in g] + [x[3] for x in g] + [x[4] for x in g] * 2
        return args, ["--layout", rng.choice(["ncdhw", "ndhwc"])] + (["--exclude-pad"] if rng.random() < 0.5 else []), dt
    if op == "groupnorm_bwd":
        G = rng.randint(1, 8)
        C = G * (8 * rng.randint(1, 3) if vec else rng.randint(1, 6))
        W = rng.choice([8, 16]) if vec else rng.randint(1, 17)
        # Some long rows: the contiguous-row sums take several vectors per thread and step.
        H = rng.randint(40, 300) if vec and rng.random() < 0.3 else rng.randint(1, 17)
        N = rng.randint(1, 3)
        if rng.random() < 0.4:  # many groups (at least as many as an H100's or H200's 132 SMs, mostly): the
            # one-pass form with a group in shared memory (lowering/gpu/group_rows.hpp), words or elements
            G = rng.randint(48, 140); N = rng.randint(2, 4)
            C = G * (rng.choice([8, 16]) if vec else rng.randint(1, 5))
            H = rng.randint(1, 40)
            if rng.random() < 0.4:  # channels-last groups of a 128-byte line and more (words, or elements: 33, 40)
                G = rng.randint(48, 70); N = rng.randint(2, 3); H = rng.randint(1, 4)
                C = G * (rng.choice([64, 72]) if vec else rng.choice([33, 40, 64]))
        return [N, H, W, G, C], ["--layout", rng.choice(["nchw", "nhwc"])], dt
    if op == "relayout":
        return relayout_case(dt)
    if rng.random() < 0.35:
        return tma_case()
    nd = rng.randint(1, 3)
    G = rng.choice([1, 1, 2, 3])
    depthwise = rng.random() < 0.2
    C = G * rng.randint(1, 12); K = G * rng.randint(1, 12)
    # Wide channels: whole 32-channel k-tiles (the GEMM's uniform fill and drain) and both column
    # tiles of backward data (half_n up to 64 columns, main above); small images keep the host
    # reference quick.
    wide = not depthwise and rng.random() < 0.35
    if wide:
        nd = rng.randint(1, 2)
        K = G * rng.choice([32, 64]); C = G * rng.choice([8, 16, 32, 64, 72])
    if depthwise:
        G = C = K = rng.randint(2, 40)  # past 32: several lane groups of the small-M kernel
        if rng.random() < 0.25:  # a channel multiplier (not the depthwise pipeline's: dy's groups are 2 apart)
            K = 2 * G
    elif rng.random() < 0.25:
        # Grouped, few rows per group (the small-M kernel's 8-row form, resnext-like): channel counts
        # of whole and partial 16-byte runs, past 32 groups for several lane groups.
        G = rng.choice([2, 5, 32, 37]); K = G * rng.choice([2, 4, 8]); C = G * rng.choice([3, 4, 8, 16])
        wide = False
    # Batches of whole 32-image k-tiles: channels-last backward weight then walks its reduction with
    # the image fastest (lowering/gpu/k_order.hpp); small images keep the host reference quick.
    batch = rng.choice([32, 64]) if op == "grouped_conv_bwd_weight" and rng.random() < 0.2 else rng.randint(1, 3)
    while True:
        f = [rng.randint(1, 7 if depthwise else 4) for _ in range(nd)]  # depthwise: up to ConvNeXt's 7
        i = [rng.randint(3, 8 if batch > 3 else 12 if wide else 14 if nd == 3 else 24) for _ in range(nd)]
        s = [rng.randint(1, 3) for _ in range(nd)]; d = [rng.randint(1, 3) for _ in range(nd)]
        pl = [rng.randint(0, 2) for _ in range(nd)]; pr = [rng.randint(0, 2) for _ in range(nd)]
        if all(window_ok(*x, False) for x in zip(i, f, s, d, pl, pr)):
            break
    extra = ["--layout", rng.choice(["gnhwc", "nhwgc", "nchw"])]
    if op == "grouped_conv_bwd_weight":
        extra += ["--k-splits", str(rng.randint(1, 4))]
    elif op == "conv_fwd" and rng.random() < 0.3:  # the forward's (taps, C) reduction split as well
        extra += ["--k-splits", str(rng.randint(1, 3))]
    return [nd, G, batch, K, C] + f + i + s + d + pl + pr, extra, dt

def relayout_case(dt):
    # 1-5 dimensions, random source and destination orders, sometimes another element type. Mostly
    # whole 16-byte words along the contiguous dimensions, some long ones (the fast paths' rows, and
    # transposes with several and partial tiles); else odd lengths (the generic kernel).
    rank = rng.randint(1, 5)
    lengths = [rng.randint(1, 9) for _ in range(rank)]
    src, dst = list(range(rank)), list(range(rank))
    rng.shuffle(src); rng.shuffle(dst)
    if rng.random() < 0.75:
        vec = 8 if dt != "fp32" else 4
        for d in {src[-1], dst[-1]}:
            lengths[d] = vec * rng.choice([1, 2, 3, rng.randint(4, 40)])
    to = dt if rng.random() < 0.7 else rng.choice(["fp32", "fp16", "bf16"])
    return lengths, ["--from", ",".join(map(str, src)), "--to", ",".join(map(str, dst)), "--to-dtype", to], dt

def tma_case():
    # Channels-last 16-bit problems of the TMA pipeline (lowering/gpu/tma_gemm/, sm_90a): channel counts
    # of whole and partial 64-channel k-tiles, images that leave partial boxes at every edge, padding,
    # strides and dilations 1-3, 1-d/2-d/3-d, groups; TG_EXPLAIN=1 makes the example name its path.
    nd = rng.randint(1, 3)
    G = rng.choice([1, 1, 1, 2]) if nd < 3 else 1
    K = G * rng.choice([64, 72, 128]); C = G * rng.choice([64, 72, 136])
    batch = rng.randint(1, 2)
    while True:
        f = [rng.randint(1, 3) for _ in range(nd)]
        # Inputs large enough for GEMMs of 32 rows and more per col2im class (narrower ones stay on
        # the cp.async pipeline), small enough for the host reference.
        i = [rng.randint(5, 8 if nd == 3 else 18 if nd == 2 else 90) for _ in range(nd)]
        s = [rng.randint(1, 3) for _ in range(nd)]; d = [rng.randint(1, 3) for _ in range(nd)]
        pl = [rng.randint(0, 2) for _ in range(nd)]; pr = [rng.randint(0, 2) for _ in range(nd)]
        if all(window_ok(*x, False) for x in zip(i, f, s, d, pl, pr)):
            break
    extra = ["--layout", rng.choice(["gnhwc", "nhwgc"])]
    if op in ("grouped_conv_bwd_weight", "conv_fwd"):
        extra += ["--k-splits", str(rng.choice([0, 0, 1, 3]))]
    return [nd, G, batch, K, C] + f + i + s + d + pl + pr, extra, rng.choice(["fp16", "bf16"])

# Problems that once failed, run first on every call (one per bug fixed).
regressions = {
    # channels-last rows whose length is not a multiple of the vector: row_affine's unit count (v12)
    # channels-last, C not a multiple of the vector, non-overlapping windows: the single-window path
    # built its divisors for a layout it does not take (division by zero on the host) (m4)
    "avgpool3d_bwd": [([2, 3, 2, 4, 2, 15, 12, 7, 2, 4, 3, 1, 1, 1, 0, 0, 1, 0, 0, 1], ["--layout", "ndhwc", "--exclude-pad"], "fp16")],
    "groupnorm_bwd": [([3, 9, 11, 8, 8], ["--layout", "nhwc"], "fp32"), ([1, 9, 2, 8, 16], ["--layout", "nhwc"], "bf16")],
}
fixed = regressions.get(op, [])
count += len(fixed)
failed = 0
for n in range(count):
    args, extra, dt = fixed[n] if n < len(fixed) else case()
    cmd = [f"{build}/examples/{op}", "1", str(rng.choice([1, 2])), "0"] + [str(a) for a in args] + extra + ["--backend", "gpu", "--dtype", dt]
    try:  # a hang (a pipeline deadlock) fails the problem instead of the whole run
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TG_EXPLAIN="1"), timeout=120)
    except subprocess.TimeoutExpired:
        r = subprocess.CompletedProcess(cmd, 124, "FAIL: timed out after 120 s", "")
    ok = r.returncode == 0 and "FAIL" not in r.stdout
    failed += not ok
    tag = {"relayout": "tilegrad relayout: ", "groupnorm_bwd": "tilegrad rows: "}.get(op, "tilegrad gemm: ")
    path = " [" + r.stderr.split(tag)[1].split(",")[0].split(":")[0].split("\n")[0] + "]" if tag in r.stderr else ""
    print(("ok   " if ok else "FAIL ") + " ".join(cmd[1:]) + path, flush=True)
    if not ok:
        print(r.stdout[-2000:], r.stderr[-2000:])
print(f"{count - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
