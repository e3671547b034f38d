#!/usr/bin/env python3
"""Resource usage and instruction mix of tilegrad's GPU kernels, read from compiled code.

AMD (default): the device assembly that clang writes for each target (build/isa/amd/<target>/ops_<dtype>.s
and conv_fwd_<dtype>.s, made by cmake/TilegradAmd.cmake). Per kernel it reads the code-object metadata (.amdgpu_metadata:
.vgpr_count, .agpr_count, .sgpr_count, .group_segment_fixed_size = LDS, .private_segment_fixed_size =
scratch), LLVM's "Kernel info" comment (ArchVGPRs, its own occupancy figure) and the instructions of
the kernel body (v_mfma*, global_load*, buffer_load*), and computes waves per SIMD from the register
counts with the rules of arch/amd_<target>.hpp.

NVIDIA (--nvidia ARCHIVE): the cubins inside libtilegrad_nvidia.a, through `cuobjdump -res-usage` and
`cuobjdump -sass` when cuobjdump is installed, else by reading the archive itself (ELF -> .nv_fatbin
-> zstd -> cubin: .nv.info attributes for registers / stack / local memory, .nv.shared.* for shared
memory, and the opcode field of each SASS instruction for HMMA).

  tools/isa_report.py build/isa/amd                      # table of every kernel, every target
  tools/isa_report.py --check build/isa/amd/gfx90a/ops_fp16.s   # the ISA properties; exit 1 on a violation
  tools/isa_report.py --nvidia build/libtilegrad_nvidia.a [--check] [--cuobjdump PATH] [--builtin]
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SKIP = 77  # exit code of a check that cannot run here (ctest SKIP_RETURN_CODE)
DTYPES = ("fp32", "fp16", "bf16")


# ----------------------------------------------------------------------------------------------
# Names: demangling and classification (shared by both vendors)

def demangle(names):
    """Mangled -> demangled, through c++filt (or llvm-cxxfilt); unchanged where neither exists."""
    names = list(dict.fromkeys(names))
    for tool in ("c++filt", "llvm-cxxfilt", "llvm-cxxfilt-15", "cu++filt"):
        exe = shutil.which(tool)
        if not exe:
            continue
        out = subprocess.run([exe], input="\n".join(names) + "\n", capture_output=True, text=True, check=True).stdout
        lines = out.split("\n")
        if len(lines) >= len(names):
            return dict(zip(names, lines[: len(names)]))
    return {n: n for n in names}


def _first_tuple_arity(text, after):
    """Number of elements of the first hana::tuple<...> that follows `after` in a demangled name."""
    i = text.find(after)
    if i < 0:
        return None
    j = text.find("boost::hana::tuple<", i)
    if j < 0:
        return None
    j += len("boost::hana::tuple<")
    depth, n = 1, 1
    while j < len(text) and depth:
        c = text[j]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "," and depth == 1:
            n += 1
        j += 1
    return n


def unit_of(name_or_path):
    """The instance unit a kernel was compiled in (instances/<unit>_<dtype>.cpp, and the
    .o / .s named after it): "conv_fwd" for the forward convolution's own units, "relayout" for
    relayout's, else "ops"."""
    name = Path(str(name_or_path).rstrip(":")).name
    return "conv_fwd" if name.startswith("conv_fwd_") else "relayout" if name.startswith("relayout") else "ops"


def classify(d, unit="ops"):
    """(kind, op, detail) of a kernel from its demangled name: the kernel template names the pipeline,
    and its template arguments name the op (tensor_batch's rule: col2im_rule, conv_fwd_rule,
    conv_bwd_weight_rule; col2im_batch and single_gemm for older builds; the window routes, the
    groupnorm functors). Both convolutions' single GEMMs
    are single_gemm over im2col views; the forward's are told apart by their unit (unit_of)."""
    kinds = (("gpu_gemm::gemm_kernel<", "gemm"), ("gpu_gemm::splitk_reduce_kernel<", "split-K reduce"),
             ("gpu_gemm::fill_kernel<", "fill"), ("gpu_gemm::gemm_small_kernel<", "small-M gemm"),
             ("gpu_gemm::gemm_depthwise_kernel<", "depthwise gemm"), ("gpu_gemm::gemm_sliding_kernel<", "sliding gemm"),
             ("gpu_gemm::sliding_entries_kernel<", "sliding entries"), ("gpu_gemm::sliding_sum_kernel<", "sliding sum"),
             ("gpu_gemm::k_entries_kernel<", "k entries"), ("gpu_gemm::k_tiles_kernel<", "k tiles"),
             ("gpu_gemm::views_kernel<", "views"), ("gpu_window::gather_kernel<", "window gather"),
             ("gpu_window::max_forward_kernel<", "max forward"), ("gpu_rows::row_sums_kernel<", "row sums"),
             ("gpu_rows::for_each_kernel<", "for_each"), ("gpu_rows::row_affine_kernel<", "row affine"),
             ("gpu_group_rows::group_rows_kernel<", "group rows"),
             ("gpu_rows::row_affine_ordered_kernel<", "row affine"), ("tma_gemm::tma_gemm_kernel<", "tma gemm"),
             ("tma_gemm::tma_halo_kernel<", "tma gemm"), ("gpu_gemm::staged_sliding_kernel<", "staged sliding"),
             ("gpu_relayout::transpose_kernel<", "relayout transpose"), ("gpu_relayout::rows_kernel<", "relayout rows"),
             ("gpu_relayout::generic_kernel<", "relayout generic"))
    kind = next((k for key, k in kinds if key in d), "other")
    op, detail = "?", ""
    if kind in ("gemm", "split-K reduce", "fill", "small-M gemm", "depthwise gemm", "sliding gemm", "sliding entries", "sliding sum",
                "k entries", "k tiles", "views"):
        m = re.search(r"col2im_(?:batch|rule)<(?:\(int\))?(\d+)[,>]", d)
        rule = re.search(r"conv_(fwd|bwd_weight)_rule<(?:\(int\))?(\d+)>", d)  # tensor_batch's rule names the op
        if m:
            op, detail = "convnd_bwd_data", f"col2im {m.group(1)}D"
        elif rule:
            op = "conv_fwd" if rule.group(1) == "fwd" else "grouped_conv_bwd_weight"
            detail = f"im2col {rule.group(2)}D"
        elif "single_gemm<" in d or kind in ("small-M gemm", "sliding gemm", "sliding entries"):  # these take single GEMMs' views
            arity = _first_tuple_arity(d, "merge<")
            op = "conv_fwd" if unit == "conv_fwd" else "grouped_conv_bwd_weight"
            detail = f"im2col {arity - 1}D" if arity else "im2col"
        m = re.search(r"gemm_small_kernel<(?:\(int\))?(\d+), (?:\(int\))?(\d+),", d)
        if m:  # rows x columns per thread
            detail += f" {m.group(1)}x{m.group(2)}"
        # tile_policy<BM, BN, BK, WarpsM, WarpsN, Stages[, EntryRing[, WgmmaAsync]]>
        m = re.search(r"tile_policy<(\d+), (\d+), (\d+), (\d+), (\d+), (\d+)((?:, (?:true|false))*)>", d)
        if m:
            flags = re.findall(r"true|false", m.group(7))
            detail += f" {m.group(1)}x{m.group(2)}x{m.group(3)} w{m.group(4)}x{m.group(5)} s{m.group(6)}" + \
                (" ring" if flags[:1] == ["true"] else "") + (" waited" if flags[1:2] == ["false"] else "")
    elif kind.startswith("relayout"):
        op = "relayout"
    elif kind == "staged sliding":  # staged_sliding_kernel<E, taps, rows>: depthwise backward weight's, params decide the rest
        op = "grouped_conv_bwd_weight"
        m = re.search(r"staged_sliding_kernel<[^,]+, (?:\(int\))?(\d+), (?:\(int\))?(\d+)>", d)
        detail = f"{m.group(1)} taps x {m.group(2)} rows" if m else ""
    elif kind == "tma gemm":  # tma_gemm_kernel<E, tile<BM, BN, KHalo, Consumers>, AMn, BMn, GEMMs>: one kernel serves every op (params decide)
        op = "conv GEMMs"
        # (tile<BM, BN, KHalo, Consumers, ElemBytes>: the last two may be left out)
        m = re.search(r"[^_]tile<(?:\(int\))?(\d+), (?:\(int\))?(\d+)(?:, (?:\(bool\))?(\w+))?(?:, (?:\(int\))?\d+){0,2}>, (?:\(bool\))?(\w+), (?:\(bool\))?(\w+)(?:, (?:\(int\))?(\d+))?>", d)
        # tma_halo_kernel<E, halo_tile<BM, BN, Resident, ElemBytes>, BMn>
        h = re.search(r"halo_tile<(?:\(int\))?(\d+), (?:\(int\))?(\d+)(?:, (?:\(bool\))?(\w+))?(?:, (?:\(int\))?\d+)?>, (?:\(bool\))?(\w+)>", d)
        mn = lambda b: "MN" if b in ("true", "1") else "K"
        # tma_gemm_kernel<float, mn_tf32_tile<BM, BN>, true, true, 1>: MN-major boxes transposed in shared memory
        t = re.search(r"mn_tf32_tile<(?:\(int\))?(\d+), (?:\(int\))?(\d+)>", d)
        if t:
            detail = f"tf32 transposed {t.group(1)}x{t.group(2)} A MN B MN"
        elif h:
            detail = f"halo {h.group(1)}x{h.group(2)} A K B {mn(h.group(4))}" + (" resident" if h.group(3) in ("true", "1") else "")
        elif m:
            k_halo = m.group(3) in ("true", "1")
            detail = ("k-halo " if k_halo else "") + f"{m.group(1)}x{m.group(2)} A {mn(m.group(4))} B {mn(m.group(5))}" + \
                (f" {m.group(6)} GEMM{'s' if m.group(6) != '1' else ''}" if m.group(6) else "")
    elif kind == "window gather":
        nd = re.search(r"gather_kernel<(\d+),", d).group(1)
        if "mean_route<" in d:
            op, detail = "avgpool3d_bwd", f"mean {nd}D"
        elif "argmax_route<" in d:
            op, detail = "maxpool2d_bwd", f"argmax {nd}D"
        elif "index_route<" in d:
            op, detail = "maxpool2d_bwd", f"indices {nd}D"
    elif kind == "max forward":
        op, detail = "maxpool2d_fwd", re.search(r"max_forward_kernel<(\d+),", d).group(1) + "D"
    elif kind == "row sums":
        # groupnorm_fwd sums over groups ([(N, G), (C/G, HW)], an unmerge of C), bwd over rows ([(N, C), HW]).
        op, detail = ("groupnorm_fwd", "groups") if "unmerge<" in d else ("groupnorm_bwd", "rows")
    elif kind == "for_each":
        # row_sums_then_affine's group step runs as for_each over group_step<the op's functor>.
        m = re.search(r"for_each_kernel<(?:tg::group_step<)?tg::ops::(\w+)", d)
        f = m.group(1) if m else "?"
        detail = f
        op = "groupnorm_bwd" if f in ("groupnorm_bwd_coefficients", "groupnorm_param_grads") else \
            "groupnorm_fwd" if f.startswith("groupnorm_") else "?"
    elif kind == "group rows":
        # The one-pass row_sums_then_affine (lowering/gpu/group_rows.hpp): its element, vector and layout.
        m = re.search(r"group_rows_kernel<[^,]+, (\d+), (\w+), tg::ops::(\w+)", d)
        op = "groupnorm_bwd" if m and m.group(3) == "groupnorm_bwd_coefficients" else "?"
        detail = (("words" if m.group(1) != "1" else "elements") + (" interleaved" if m.group(2) in ("true", "1") else " contiguous")) if m else ""
    elif kind == "row affine":
        # groupnorm_fwd's y and groupnorm_bwd's dx have the same view types: one kernel serves both.
        op, detail = "groupnorm_bwd", ("ordered" if "row_affine_ordered_kernel<" in d else "rows") + " (also fwd's y)"
    else:
        detail = re.sub(r"^\S+ ", "", d.split("(")[0].split("<")[0])
    return kind, op, detail


def dtype_of(name_or_path, demangled=""):
    m = re.search(r"(?:ops|conv_fwd)_(fp32|fp16|bf16)", str(name_or_path))
    if m:
        return m.group(1)
    return "bf16" if "bf16_t" in demangled else "fp16" if "half_t" in demangled else "fp32"


# Every op's kernels, as (op, kind, at least how many) for one dtype and target, per instance unit
# (unit_of): the forward convolution's units hold its kernels only.
EXPECTED_KERNELS = {"ops": [
    ("convnd_bwd_data", "gemm", 3), ("convnd_bwd_data", "split-K reduce", 3), ("convnd_bwd_data", "fill", 3),
    ("convnd_bwd_data", "depthwise gemm", 3),
    ("grouped_conv_bwd_weight", "gemm", 3), ("grouped_conv_bwd_weight", "split-K reduce", 3),
    ("grouped_conv_bwd_weight", "fill", 3), ("grouped_conv_bwd_weight", "sliding gemm", 3),
    ("maxpool2d_bwd", "window gather", 2), ("maxpool2d_fwd", "max forward", 1),
    ("avgpool3d_bwd", "window gather", 1),
    ("groupnorm_bwd", "row sums", 1), ("groupnorm_bwd", "for_each", 2), ("groupnorm_bwd", "row affine", 1),
    ("groupnorm_bwd", "group rows", 4),
    ("groupnorm_fwd", "row sums", 1), ("groupnorm_fwd", "for_each", 3),
], "conv_fwd": [("conv_fwd", "gemm", 3), ("conv_fwd", "split-K reduce", 3), ("conv_fwd", "fill", 3),
                 ("conv_fwd", "depthwise gemm", 3)],
    "relayout": [("relayout", "relayout transpose", 1), ("relayout", "relayout rows", 1), ("relayout", "relayout generic", 1)]}


def check_expected(kernels, where, units=tuple(EXPECTED_KERNELS)):
    have = collections.Counter((k["op"], k["kind"]) for k in kernels)
    bad = []
    for op, kind, n in (e for u in units for e in EXPECTED_KERNELS[u]):
        if have[(op, kind)] < n:
            bad.append(f"{where}: {op}: expected at least {n} '{kind}' kernel(s), found {have[(op, kind)]}")
    return bad


def short(k):
    return f"{k['kind']} {k['detail']}".strip()


def print_table(rows, columns, out=sys.stdout):
    widths = [max(len(str(c[0])), *(len(str(r[i])) for r in rows)) if rows else len(c[0]) for i, c in enumerate(columns)]
    fmt = lambda vals: "  ".join((str(v).ljust(w) if c[1] == "<" else str(v).rjust(w)) for v, w, c in zip(vals, widths, columns))
    print(fmt([c[0] for c in columns]).rstrip(), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in rows:
        print(fmt(r).rstrip(), file=out)


ORDER = ["conv_fwd", "convnd_bwd_data", "grouped_conv_bwd_weight", "maxpool2d_bwd", "maxpool2d_fwd", "avgpool3d_bwd",
         "groupnorm_bwd", "groupnorm_fwd", "?"]
KIND_ORDER = ["tma gemm", "staged sliding", "gemm", "small-M gemm", "depthwise gemm", "sliding gemm", "sliding entries", "sliding sum", "split-K reduce", "fill", "k entries", "k tiles", "views", "window gather", "max forward", "row sums", "for_each", "group rows", "row affine",
              "relayout transpose", "relayout rows", "relayout generic", "other"]


def sort_key(k):
    return (DTYPES.index(k["dtype"]) if k["dtype"] in DTYPES else 9, ORDER.index(k["op"]) if k["op"] in ORDER else 9,
            KIND_ORDER.index(k["kind"]), k["detail"])


# ----------------------------------------------------------------------------------------------
# AMD

def amd_arch(target):
    """The constants of arch/amd_<target>.hpp (ints and bools of `static constexpr` lines)."""
    path = REPO / "arch" / f"amd_{target}.hpp"
    vals = {}
    for typ, name, val in re.findall(r"static constexpr (int|bool) (\w+) = ([^;(]+);", path.read_text()):
        val = val.strip()
        if typ == "bool":
            vals[name] = val == "true"
        elif re.fullmatch(r"[0-9 *+-]+", val):
            vals[name] = eval(val)  # only digits and * + - (checked above)
    return vals


def align(x, a):
    return (x + a - 1) // a * a


def waves_per_simd(arch, vgprs, agprs):
    """Waves per SIMD that the register files allow: the rule of waves_per_simd() in arch/amd_<target>.hpp.
    gfx90a/gfx940: one 512-register file per lane, the wave's AGPRs start after its ArchVGPRs rounded up
    to 4 (accum_offset), allocated in granules of 8. gfx908: separate 256 ArchVGPR and 256 AGPR files,
    granules of 4, the larger of the two counts."""
    g, file_size, cap = arch["vgpr_alloc_granule"], arch["vgpr_file_per_lane"], arch["max_waves_per_simd"]
    if arch["unified_vgpr_file"]:
        used = align(vgprs, 4) + agprs if agprs > 0 else vgprs
    else:
        used = max(vgprs, agprs)
    w = file_size // align(max(used, 1), g)
    return max(1, min(cap, w))


def sgpr_waves(sgprs):
    """LLVM's GFX9 SGPR limit (getOccupancyWithNumSGPRs, VI..GFX9)."""
    return 10 if sgprs <= 80 else 9 if sgprs <= 88 else 8 if sgprs <= 100 else 7


def llvm15_occupancy(arch, k):
    """LLVM 15's own `; Occupancy:` figure, to check the register rules above against the compiler:
    min(register waves, SGPR waves, LDS limit), where LLVM 15's LDS limit counts the waves of the
    resident workgroups per CU (not per SIMD), clamped to the per-SIMD maximum."""
    lds = arch["max_waves_per_simd"]
    if k["lds"]:
        groups = arch["lds_bytes_per_cu"] // k["lds"]
        lds = 1 if groups == 0 else min(arch["max_waves_per_simd"], groups * ((k["wg_size"] + arch["wave_size"] - 1) // arch["wave_size"]))
    return min(k["waves"], sgpr_waves(k["sgpr"]), lds)


def lds_waves(arch, lds, wg_size):
    if lds <= 0:
        return arch["max_waves_per_simd"]
    groups = arch["lds_bytes_per_cu"] // lds
    waves = groups * ((wg_size + arch["wave_size"] - 1) // arch["wave_size"]) // arch["simds_per_cu"]
    return max(0, min(arch["max_waves_per_simd"], waves))


def _int(v):
    v = v.strip().strip("'\"")
    return int(v, 0) if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", v) else v


def parse_amd_asm(path):
    """Kernels of one clang -S output: metadata, LLVM's kernel info and instruction counts."""
    text = Path(path).read_text()
    m = re.search(r'\.amdgcn_target\s+"amdgcn-amd-amdhsa--(gfx\w+)', text)
    target = m.group(1) if m else "?"

    # 1. Function bodies: from "<sym>:" (declared @function) to ".Lfunc_endN:", then "; Kernel info:".
    functions = set(re.findall(r"^\s*\.type\s+(\S+),@function", text, re.M))
    bodies, info = {}, {}
    cur, counts, last = None, None, None
    in_info = False
    for line in text.split("\n"):
        if cur is None:
            if in_info:
                if line.startswith(";"):
                    mm = re.match(r";\s*([A-Za-z][\w ]*?)\s*[:=]\s*(\S+)", line)
                    if mm:
                        info[last][mm.group(1)] = _int(mm.group(2))
                    continue
                in_info = False
            if line.startswith("; Kernel info:") and last:
                in_info, info[last] = True, {}
                continue
            mm = re.match(r"^([\w.$]+):", line)
            if mm and mm.group(1) in functions:
                cur, counts = mm.group(1), collections.Counter()
            continue
        if re.match(r"^\.Lfunc_end\d+:", line):
            bodies[cur], last, cur = counts, cur, None
            continue
        mm = re.match(r"^\s+([a-z][a-z0-9_]*)(\s|$)", line)
        if mm:
            op = mm.group(1)
            # gfx908/gfx90a reach scratch through buffer instructions on the private segment buffer s[0:3]
            counts["scratch_via_" + op if op.startswith("buffer_") and "s[0:3]" in line else op] += 1

    # 2. Code-object metadata (YAML as LLVM writes it: kernels at "  - ", their keys at 4 spaces).
    meta = []
    mm = re.search(r"^\s*\.amdgpu_metadata\s*$(.*?)^\s*\.end_amdgpu_metadata", text, re.M | re.S)
    if mm:
        for line in mm.group(1).split("\n"):
            km = re.match(r"^  - \.([\w]+):\s*(.*)$", line)
            if km:
                meta.append({})
            else:
                km = re.match(r"^    \.([\w]+):\s*(.*)$", line)
            if km and meta:
                meta[-1][km.group(1)] = _int(km.group(2)) if km.group(2) else None
    n_descriptors = len(re.findall(r"^\s*\.amdhsa_kernel\s", text, re.M))
    if n_descriptors != len(meta):
        raise SystemExit(f"{path}: {n_descriptors} .amdhsa_kernel blocks but {len(meta)} metadata entries")

    arch = amd_arch(target) if (REPO / "arch" / f"amd_{target}.hpp").exists() else None
    names = demangle([e["name"] for e in meta])
    kernels = []
    for e in meta:
        sym = e["name"]
        body, ki = bodies.get(sym, collections.Counter()), info.get(sym, {})
        d = names.get(sym, sym)
        kind, op, detail = classify(d, unit_of(path))
        agpr = e.get("agpr_count", 0) or 0
        # ArchVGPRs: LLVM's NumVgprs; the metadata's .vgpr_count is the total on gfx90a/gfx940.
        vgpr = ki.get("NumVgprs", e.get("vgpr_count", 0))
        k = dict(target=target, file=str(path), symbol=sym, name=d, kind=kind, op=op, detail=detail,
                 dtype=dtype_of(path, d), vgpr=vgpr, agpr=agpr, vgpr_total=e.get("vgpr_count", 0),
                 sgpr=e.get("sgpr_count", 0), lds=e.get("group_segment_fixed_size", 0),
                 scratch=e.get("private_segment_fixed_size", 0), dynamic_stack=e.get("uses_dynamic_stack") == "true",
                 vgpr_spill=e.get("vgpr_spill_count", 0), wg_size=e.get("max_flat_workgroup_size", 1024),
                 llvm_occupancy=ki.get("Occupancy"),
                 mfma=collections.Counter({i: c for i, c in body.items() if i.startswith(("v_mfma", "v_smfmac"))}),
                 global_loads=sum(c for i, c in body.items() if i.startswith("global_load")),
                 buffer_loads=sum(c for i, c in body.items() if i.startswith("buffer_load")),
                 flat_loads=sum(c for i, c in body.items() if i.startswith("flat_load")),
                 scratch_ops=sum(c for i, c in body.items() if i.startswith(("scratch_", "scratch_via_"))),
                 instructions=sum(body.values()))
        if arch:
            k["waves"] = waves_per_simd(arch, k["vgpr"], k["agpr"])
            k["occupancy"] = min(k["waves"], sgpr_waves(k["sgpr"]), lds_waves(arch, k["lds"], k["wg_size"]))
        kernels.append(k)
    return target, kernels


# Expected MFMA of the GEMM kernels per (dtype, target); gfx940 spells the same instructions with
# an underscore before the type and calls the bf16 "_1k" forms plain _bf16.
EXPECTED_MFMA = {
    ("fp16", "gfx908"): {"v_mfma_f32_32x32x8f16", "v_mfma_f32_16x16x16f16"},
    ("fp16", "gfx90a"): {"v_mfma_f32_32x32x8f16", "v_mfma_f32_16x16x16f16"},
    ("fp16", "gfx940"): {"v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16"},
    ("bf16", "gfx908"): {"v_mfma_f32_32x32x4bf16"},
    ("bf16", "gfx90a"): {"v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_16x16x16bf16_1k"},
    ("bf16", "gfx940"): {"v_mfma_f32_32x32x8_bf16", "v_mfma_f32_16x16x16_bf16"},
    ("fp32", "gfx908"): {"v_mfma_f32_32x32x2f32"},
    ("fp32", "gfx90a"): {"v_mfma_f32_32x32x2f32"},
    ("fp32", "gfx940"): {"v_mfma_f32_32x32x2_f32"},
}
MIN_WAVES = 2


def amd_violations(target, kernels, where, unit):
    bad = check_expected(kernels, where, (unit,))
    arch = amd_arch(target)
    for k in kernels:
        tag = f"{target} {k['dtype']} {k['op']}: {short(k)} [{k['symbol'][:60]}...]"
        if k["kind"] == "gemm":
            want = EXPECTED_MFMA.get((k["dtype"], target), set())
            got = set(k["mfma"])
            if not got & want:
                bad.append(f"{tag}: no {' / '.join(sorted(want))} (MFMA found: {dict(k['mfma']) or 'none'})")
            elif got - want:
                bad.append(f"{tag}: unexpected MFMA {sorted(got - want)} besides {sorted(got & want)}")
        if k["scratch"] or k["dynamic_stack"]:
            bad.append(f"{tag}: uses scratch: private_segment_fixed_size {k['scratch']} bytes"
                       f"{' + dynamic stack' if k['dynamic_stack'] else ''} (VGPRs {k['vgpr']}, AGPRs {k['agpr']},"
                       f" VGPR spills {k['vgpr_spill']}, scratch instructions {k['scratch_ops']})")
        if k["waves"] < MIN_WAVES:
            bad.append(f"{tag}: {k['waves']} wave(s) per SIMD < {MIN_WAVES} (VGPRs {k['vgpr']}, AGPRs {k['agpr']})")
        if k["llvm_occupancy"] is not None and llvm15_occupancy(arch, k) != k["llvm_occupancy"]:
            bad.append(f"{tag}: the occupancy rules of arch/amd_{target}.hpp disagree with LLVM: {llvm15_occupancy(arch, k)} vs "
                       f"{k['llvm_occupancy']} (VGPRs {k['vgpr']}, AGPRs {k['agpr']}, SGPRs {k['sgpr']}, LDS {k['lds']})")
        if k["lds"] > arch["lds_bytes_per_block"]:
            bad.append(f"{tag}: LDS {k['lds']} bytes > {arch['lds_bytes_per_block']}")
    return bad


def amd_files(paths):
    files = []
    for p in map(Path, paths):
        files += sorted(p.rglob("*.s")) if p.is_dir() else [p]
    return files


def amd_main(args):
    by_target = collections.defaultdict(list)
    violations = []
    for f in amd_files(args.paths):
        target, kernels = parse_amd_asm(f)
        if not kernels:
            violations.append(f"{f}: no kernels")
        by_target[target] += kernels
        if args.check:
            violations += amd_violations(target, kernels, f"{target} {dtype_of(f)} ({f})", unit_of(f))
    cols = [("dtype", "<"), ("op", "<"), ("kernel", "<"), ("VGPR", ">"), ("AGPR", ">"), ("SGPR", ">"), ("LDS", ">"),
            ("scratch", ">"), ("waves", ">"), ("occ", ">"), ("llvm", ">"), ("MFMA", ">"), ("mfma kind", "<"),
            ("gload", ">"), ("bload", ">")]
    for target in sorted(by_target):
        ks = sorted(by_target[target], key=sort_key)
        if args.op:
            ks = [k for k in ks if k["op"] in args.op]
        print(f"\n== {target}: {len(ks)} kernels ==  (waves: per SIMD from VGPR+AGPR; occ: also SGPR and LDS limits;"
              f" llvm: LLVM 15's figure, which counts LDS-limited waves per CU)")
        rows = [(k["dtype"], k["op"], short(k), k["vgpr"], k["agpr"], k["sgpr"], k["lds"], k["scratch"], k["waves"],
                 k["occupancy"], k["llvm_occupancy"] if k["llvm_occupancy"] is not None else "-", sum(k["mfma"].values()),
                 ",".join(i.replace("v_mfma_", "") for i in sorted(k["mfma"])) or "-", k["global_loads"],
                 k["buffer_loads"]) for k in ks]
        print_table(rows, cols)
    return report_violations(violations, args.check)


def report_violations(violations, check):
    if not check:
        return 0
    if violations:
        print(f"\nISA check: {len(violations)} violation(s):")
        for v in violations:
            print("  " + v)
        return 1
    print("\nISA check: all properties hold")
    return 0


# ----------------------------------------------------------------------------------------------
# NVIDIA

def find_cuobjdump(explicit):
    if explicit:
        return explicit if os.path.exists(explicit) else shutil.which(explicit)
    for c in ("cuobjdump", "/usr/local/cuda/bin/cuobjdump"):
        p = shutil.which(c) or (c if os.path.exists(c) else None)
        if p:
            return p
    return None


def parse_cuobjdump_res_usage(text):
    """-> {(member, arch, symbol): {REG, STACK, SHARED, LOCAL}}."""
    res, member, arch, fn = {}, "", "?", None
    for line in text.split("\n"):
        m = re.match(r"^member\s+(\S+)", line)
        if m:
            member = m.group(1)
        m = re.search(r"code for (sm_\d+a?)", line) or re.match(r"^arch = (sm_\d+a?)", line)
        if m:
            arch = m.group(1).rstrip("a")  # sm_90a (wgmma) is reported as sm_90, as the built-in reader does
        m = re.match(r"^\s*Function\s+(\S+?):?\s*$", line)
        if m:
            fn = m.group(1)
            continue
        if fn and "REG:" in line:
            vals = dict((k, int(v)) for k, v in re.findall(r"(REG|STACK|SHARED|LOCAL):(\d+)", line))
            res[(member, arch, fn)] = vals
            fn = None
    return res


def parse_cuobjdump_sass(text):
    """-> {(member, arch, symbol): Counter of opcodes with their modifiers (HMMA.16816.F32...)}."""
    res, member, arch, fn = {}, "", "?", None
    for line in text.split("\n"):
        m = re.match(r"^member\s+(\S+)", line)
        if m:
            member = m.group(1)
        m = re.search(r"code for (sm_\d+a?)", line) or re.match(r"^\s*arch = (sm_\d+a?)", line)
        if m:
            arch = m.group(1).rstrip("a")  # sm_90a (wgmma) is reported as sm_90, as the built-in reader does
        m = re.match(r"^\s*Function\s*:\s*(\S+)", line)
        if m:
            fn = m.group(1)
            res[(member, arch, fn)] = collections.Counter()
            continue
        m = re.match(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and fn:
            res[(member, arch, fn)][m.group(1)] += 1
    return res


# --- built-in reader (no cuobjdump): ar -> ELF -> .nv_fatbin -> cubins

def ar_members(data):
    if not data.startswith(b"!<arch>\n"):
        return [("", data)]
    out, pos, longnames = [], 8, b""
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name, size = hdr[:16].decode().strip(), int(hdr[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        if name == "//":
            longnames = body
        elif name.startswith("/") and name[1:].isdigit():
            off = int(name[1:])
            name = longnames[off:longnames.index(b"/\n", off)].decode()
        else:
            name = name.rstrip("/")
        if name not in ("/", "//", ""):
            out.append((name, body))
        pos += 60 + size + (size & 1)
    return out


def elf_sections(data):
    """{name: (type, offset, size, info, link)} plus the raw list, for 64-bit little-endian ELF."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not a 64-bit ELF")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        nm, typ, flags, addr, off, size, link, info, align_, entsize = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        secs.append([nm, typ, off, size, link, info, entsize])
    stroff = secs[shstrndx][2]
    for s in secs:
        s[0] = data[stroff + s[0]:data.index(b"\0", stroff + s[0])].decode()
    return secs


def zstd_decompress(blob, size):
    try:
        import zstandard  # noqa
        return zstandard.ZstdDecompressor().decompress(blob, max_output_size=size)
    except ImportError:
        pass
    exe = shutil.which("zstd")
    if not exe:
        print("SKIPPED: the fatbin is zstd-compressed and neither cuobjdump nor zstd is installed")
        sys.exit(SKIP)
    return subprocess.run([exe, "-d", "-c", "-q"], input=blob, capture_output=True, check=True).stdout


def fatbin_cubins(fb, kinds=(2,)):
    """ELF entries of a fatbin blob: [(arch 'sm_90', cubin bytes)] (kinds=(1,): the PTX entries, as text
    bytes). Several fatbins may be concatenated."""
    out, pos = [], 0
    while pos + 16 <= len(fb):
        magic, version, hsize, fsize = struct.unpack_from("<IHHQ", fb, pos)
        if magic != 0xBA55ED50:
            break
        e, end = pos + hsize, pos + hsize + fsize
        while e < end:
            kind, _, ehsize, psize = struct.unpack_from("<HHIQ", fb, e)
            # entry header (CUDA 11+): kind u16, version u16, header size u32, payload size u64,
            # compressed size u32, ..., sm arch u32 at +28, ..., flags u64 at +40, uncompressed size u64 at +56
            sm, = struct.unpack_from("<I", fb, e + 28)
            flags, = struct.unpack_from("<Q", fb, e + 40)
            usize, = struct.unpack_from("<Q", fb, e + 56) if ehsize >= 64 else (0,)
            payload = fb[e + ehsize:e + ehsize + psize]
            if kind in kinds and kind == 1:  # PTX text, maybe zstd-compressed (the frame is csize bytes of the padded payload)
                if payload[:4] == b"\x28\xb5\x2f\xfd":
                    csize, = struct.unpack_from("<I", fb, e + 16)
                    payload = zstd_decompress(payload[:csize] if 0 < csize <= len(payload) else payload, usize or 1 << 30)
                out.append((f"sm_{sm}", payload))
            elif kind in kinds:  # ELF (cubin)
                if payload[:4] != b"\x7fELF":
                    if payload[:4] == b"\x28\xb5\x2f\xfd":  # the frame is csize bytes of the padded payload, as for PTX
                        csize, = struct.unpack_from("<I", fb, e + 16)
                        payload = zstd_decompress(payload[:csize] if 0 < csize <= len(payload) else payload, usize or 1 << 30)
                    else:
                        raise SystemExit(f"fatbin entry sm_{sm}: unknown compression (flags {flags:#x}); use cuobjdump")
                out.append((f"sm_{sm}", payload))
            e += ehsize + psize
        pos = end
    return out


# .nv.info attribute ids (EIATTR_*) that cuobjdump's -res-usage reads.
EIATTR_REGCOUNT, EIATTR_MAX_STACK_SIZE, EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE = 0x2F, 0x23, 0x11, 0x12


def cubin_kernels(cubin):
    """{symbol: {REG, STACK, SHARED, LOCAL, sass: [(opcode field, 128-bit word)]}} of one cubin."""
    secs = elf_sections(cubin)
    byname = {s[0]: s for s in secs}
    symtab = next(s for s in secs if s[1] == 2)
    strtab = secs[symtab[4]]
    syms = []
    for i in range(symtab[3] // 24):
        nm, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", cubin, symtab[2] + i * 24)
        name = cubin[strtab[2] + nm:cubin.index(b"\0", strtab[2] + nm)].decode()
        syms.append((name, info, shndx))
    kernels = {}
    for s in secs:
        if not s[0].startswith(".text."):
            continue
        name = s[0][len(".text."):]
        code = cubin[s[2]:s[2] + s[3]]
        words = [int.from_bytes(code[i:i + 16], "little") for i in range(0, len(code) - 15, 16)]
        shared, local = byname.get(".nv.shared." + name), byname.get(".nv.local." + name)
        kernels[name] = {"REG": 0, "STACK": 0, "SHARED": shared[3] if shared else 0, "LOCAL": local[3] if local else 0,
                         "sass": words}
    # .nv.info.<fn>: records of (format u8, attribute u8, size u16 | value) ; EIFMT_SVAL = 4 has a payload
    for s in secs:
        if not s[0].startswith(".nv.info"):
            continue
        data, pos = cubin[s[2]:s[2] + s[3]], 0
        fname = s[0][len(".nv.info."):] if s[0].startswith(".nv.info.") else None
        while pos + 4 <= len(data):
            fmt, attr = data[pos], data[pos + 1]
            if fmt == 4:  # EIFMT_SVAL: u16 size, then payload
                size, = struct.unpack_from("<H", data, pos + 2)
                payload = data[pos + 4:pos + 4 + size]
                pos += 4 + size
            else:  # EIFMT_HVAL (3) carries a u16 value; EIFMT_NVAL (1) nothing
                payload = data[pos + 2:pos + 4]
                pos += 4
            if fmt == 4 and len(payload) >= 8 and attr in (EIATTR_REGCOUNT, EIATTR_MAX_STACK_SIZE, EIATTR_FRAME_SIZE,
                                                            EIATTR_MIN_STACK_SIZE):
                sym_idx, val = struct.unpack_from("<II", payload, 0)
                target = syms[sym_idx][0] if sym_idx < len(syms) else fname
                if target not in kernels:
                    continue
                if attr == EIATTR_REGCOUNT:
                    kernels[target]["REG"] = val
                elif attr == EIATTR_MAX_STACK_SIZE:
                    kernels[target]["STACK"] = max(kernels[target]["STACK"], val)
                elif attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE):
                    kernels[target]["STACK"] = max(kernels[target]["STACK"], val)
    return kernels


# HMMA in the Ampere/Hopper encoding: opcode 0x23c in bits [0, 12) of the 128-bit instruction; bit 75
# set for k16 (16816) shapes, bit 82 for bf16 and bit 83 for tf32 operands (else f16). Found and
# checked against cuobjdump -sass on libtilegrad_nvidia.a (sm_80 and sm_90, every HMMA of every
# kernel: same count and spelling; tools/isa_report.py --nvidia ARCHIVE --compare).
HMMA_OPCODE = 0x23C
# HGMMA (wgmma, sm_90a): opcode 0x9f0; N / 8 - 1 in bits [53, 60), bit 76 set for bf16 operands.
# Found by compiling one wgmma of each kind (f16 / bf16, n64 / n128) and reading the cubins, and
# against cuobjdump -sass on the H100 machine (HGMMA.64x128x16.F32.BF16: 0x...41e0...79f0 / ...1818).
HGMMA_OPCODE = 0x9F0


def hmma_name(w):
    if w & 0xFFF == HGMMA_OPCODE:
        return f"HGMMA.64x{((w >> 53 & 0x7F) + 1) * 8}x16.F32{'.BF16' if w >> 76 & 1 else ''}"
    if w & 0xFFF != HMMA_OPCODE:
        return None
    shape = "16816" if w >> 75 & 1 else "1688"
    kind = ".TF32" if w >> 83 & 1 else ".BF16" if w >> 82 & 1 else ""
    return f"HMMA.{shape}.F32{kind}"


def wants_wgmma(k):
    """Whether a 16-bit GEMM kernel's tile takes the wgmma path on sm_90a (gemm.hpp, wgmma_tile): whole
    warpgroups, 64 rows per warpgroup slice, BN 64 or 128, a K-major row of one swizzle width (BK 16, 32, 64)."""
    m = re.search(r"(\d+)x(\d+)x(\d+) w(\d+)x(\d+)", k["detail"])
    if not m or k["dtype"] not in ("fp16", "bf16") or k["kind"] != "gemm":
        return False
    bm, bn, bk, threads = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)) * int(m.group(5)) * 32
    return threads % 128 == 0 and bm % (64 * (threads // 128)) == 0 and bn in (64, 128) and bk in (16, 32, 64)


def builtin_nvidia(archive):
    res, sass = {}, {}
    for member, data in ar_members(Path(archive).read_bytes()):
        try:
            secs = elf_sections(data)
        except ValueError:
            continue
        fbs = [s for s in secs if s[0] == ".nv_fatbin"]
        for s in fbs:
            for arch, cubin in fatbin_cubins(data[s[2]:s[2] + s[3]]):
                for name, k in cubin_kernels(cubin).items():
                    key = (member, arch, name)
                    res[key] = {x: k[x] for x in ("REG", "STACK", "SHARED", "LOCAL")}
                    ops = collections.Counter()
                    for w in k["sass"]:
                        op = hmma_name(w)
                        if op:
                            ops[op] += 1
                    sass[key] = ops
    return res, sass


# A PTX load or store with no state space (ld.v4.f32, st.u32): resolved per access at run time.
GENERIC_LD_ST = re.compile(r"^\s+(?:ld|st)(?:\.v[248])?\.[bfsu]\d+\s", re.M)


def ptx_kernels(archive):
    """{(arch, kernel symbol): PTX text of its .entry} from the PTX the fatbins embed (compute_90a etc.)."""
    out = {}
    for member, data in ar_members(Path(archive).read_bytes()):
        try:
            secs = elf_sections(data)
        except ValueError:
            continue
        for s in (s for s in secs if s[0] == ".nv_fatbin"):
            for arch, text in fatbin_cubins(data[s[2]:s[2] + s[3]], kinds=(1,)):
                t = text.decode("utf-8", "replace")
                for m in re.finditer(r"\.entry\s+(\w+)\(", t):
                    end = t.find(".entry", m.end())
                    out[(arch, m.group(1))] = t[m.start():end if end >= 0 else len(t)]
    return out


def _member_name(m):
    """'libx.a:ops_fp16.cpp.o' (cuobjdump) and 'ops_fp16.cpp.o' (ar) -> 'ops_fp16.cpp.o'."""
    return os.path.basename(m.rstrip(":").split(":")[-1])


def _norm(d):
    return {(_member_name(m), a, f): v for (m, a, f), v in d.items()}


def nvidia_compare(args):
    """The built-in reader against cuobjdump, kernel by kernel (how SASS_MMA_OPCODES and the
    .nv.info attribute ids were checked)."""
    exe = find_cuobjdump(args.cuobjdump)
    if args.res_usage_file and args.sass_file:
        res = parse_cuobjdump_res_usage(Path(args.res_usage_file).read_text())
        sass = parse_cuobjdump_sass(Path(args.sass_file).read_text())
    elif exe:
        res = parse_cuobjdump_res_usage(subprocess.run([exe, "-res-usage", args.nvidia], capture_output=True, text=True, check=True).stdout)
        sass = parse_cuobjdump_sass(subprocess.run([exe, "-sass", args.nvidia], capture_output=True, text=True, check=True).stdout)
    else:
        raise SystemExit("--compare needs cuobjdump or --res-usage-file/--sass-file")
    res, sass = _norm(res), _norm(sass)
    bres, bsass = builtin_nvidia(args.nvidia)
    bres, bsass = _norm(bres), _norm(bsass)
    diffs = []
    for key in sorted(set(res) | set(bres)):
        if key not in res or key not in bres:
            diffs.append(f"{key}: only in {'cuobjdump' if key in res else 'built-in'}")
            continue
        for f in ("REG", "STACK", "SHARED", "LOCAL"):
            if res[key].get(f) != bres[key].get(f):
                diffs.append(f"{key[1]} {key[0]} {key[2][:70]}: {f} cuobjdump {res[key].get(f)} built-in {bres[key].get(f)}")
        n_c = {o: c for o, c in sass.get(key, {}).items() if o.startswith(("HMMA", "HGMMA"))}
        n_b = dict(bsass.get(key, {}))
        if n_c != n_b:
            diffs.append(f"{key[1]} {key[0]} {key[2][:70]}: MMA cuobjdump {n_c} built-in {n_b}")
    kinds = collections.Counter(o for v in sass.values() for o in v if o.startswith(("HMMA", "HGMMA", "IMMA")))
    print(f"compared {len(res)} kernels (cuobjdump) with {len(bres)} (built-in); MMA kinds in SASS: {dict(kinds)}")
    for d in diffs:
        print("  " + d)
    print("identical" if not diffs else f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


def nvidia_main(args):
    if args.compare:
        return nvidia_compare(args)
    archive = args.nvidia
    exe = None if args.builtin else find_cuobjdump(args.cuobjdump)
    if args.res_usage_file and args.sass_file:  # saved outputs of cuobjdump -res-usage / -sass
        res = parse_cuobjdump_res_usage(Path(args.res_usage_file).read_text())
        sass = parse_cuobjdump_sass(Path(args.sass_file).read_text())
        exe, source = "saved", f"saved cuobjdump output {args.res_usage_file}, {args.sass_file}"
    elif exe:
        res = parse_cuobjdump_res_usage(subprocess.run([exe, "-res-usage", archive], capture_output=True, text=True, check=True).stdout)
        sass = parse_cuobjdump_sass(subprocess.run([exe, "-sass", archive], capture_output=True, text=True, check=True).stdout)
        source = f"{exe} -res-usage / -sass"
    else:
        res, sass = builtin_nvidia(archive)
        source = "built-in cubin reader (no cuobjdump)"
    names = demangle(sorted({k[2] for k in res}))
    kernels = []
    for (member, arch, sym), r in res.items():
        d = names.get(sym, sym)
        kind, op, detail = classify(d, unit_of(_member_name(member)))
        ops = sass.get((member, arch, sym), collections.Counter())
        mma = collections.Counter({o: c for o, c in ops.items() if o.split(".")[0] in ("HMMA", "HGMMA", "IMMA")})
        kernels.append(dict(member=member, arch=arch, symbol=sym, name=d, kind=kind, op=op, detail=detail,
                            dtype=dtype_of(member, d), mma=mma, **r))
    violations = []
    archs = sorted({k["arch"] for k in kernels})
    print(f"NVIDIA kernels of {archive} ({source}): {len(kernels)} (kernel x arch), archs {', '.join(archs)}")
    cols = [("dtype", "<"), ("op", "<"), ("kernel", "<"), ("REG", ">"), ("STACK", ">"), ("SHARED", ">"), ("LOCAL", ">"),
            ("HMMA", ">"), ("mma kind", "<")]
    for arch in archs:
        ks = sorted((k for k in kernels if k["arch"] == arch), key=sort_key)
        print(f"\n== {arch}: {len(ks)} kernels ==")
        print_table([(k["dtype"], k["op"], short(k), k["REG"], k["STACK"], k["SHARED"], k["LOCAL"], sum(k["mma"].values()),
                      ",".join(sorted(k["mma"])) or "-") for k in ks], cols)
        if args.check:
            for dt in DTYPES:
                sub = [k for k in ks if k["dtype"] == dt]
                violations += check_expected(sub, f"{arch} {dt}")
            for k in ks:
                tag = f"{arch} {k['dtype']} {k['op']}: {short(k)} [{k['symbol'][:60]}...]"
                if k["STACK"] or k["LOCAL"]:
                    violations.append(f"{tag}: STACK {k['STACK']} LOCAL {k['LOCAL']} (REG {k['REG']})")
                if k["kind"] == "gemm":
                    want = {"fp32": "TF32", "fp16": "F16", "bf16": "BF16"}[k["dtype"]]
                    if not k["mma"]:
                        violations.append(f"{tag}: no HMMA in the GEMM kernel")
                    elif arch == "sm_90" and args.wgmma and wants_wgmma(k) and not any(o.startswith("HGMMA") for o in k["mma"]):
                        violations.append(f"{tag}: no HGMMA (wgmma) in a tile that takes it on sm_90a: {dict(k['mma'])}")
                    elif not any(want in o or (want == "F16" and "BF16" not in o and "TF32" not in o) for o in k["mma"]):
                        violations.append(f"{tag}: HMMA of the wrong kind for {k['dtype']}: {dict(k['mma'])}")
    if args.check and args.wgmma:  # the TMA GEMM (sm_90a): HGMMA in its SASS, TMA loads and wgmma in its PTX
        tma = [k for k in kernels if k["kind"] == "tma gemm" and k["arch"] == "sm_90"]
        if not tma:
            violations.append("no TMA GEMM kernel (lowering/gpu/tma_gemm/) in the sm_90a code")
        if not any(k["detail"].startswith("halo") for k in tma):
            violations.append("no TMA halo kernel (lowering/gpu/tma_gemm/halo_kernel.hpp) in the sm_90a code")
        if not any(k["detail"].startswith("k-halo") for k in tma):
            violations.append("no TMA k-halo kernel (lowering/gpu/tma_gemm/k_halo_plan.hpp, a_blocks.hpp) in the sm_90a code")
        if not any(k["detail"].startswith("tf32 transposed") for k in tma):
            violations.append("no MN-major tf32 TMA kernel (plan.hpp's mn_tf32_tile, tma_gemm/tf32_transpose.hpp) in the sm_90a code")
        if not any(k["dtype"] == "fp32" for k in tma):
            violations.append("no fp32 TMA GEMM kernel (tf32 tiles: plan.hpp's elem_tile) in the sm_90a code")
        ptx = ptx_kernels(archive)
        for k in tma:
            tag = f"sm_90 {k['dtype']}: tma gemm {k['detail']} [{k['symbol'][:60]}...]"
            if not any(o.startswith("HGMMA") for o in k["mma"]):
                violations.append(f"{tag}: no HGMMA in its SASS: {dict(k['mma'])}")
            text = ptx.get(("sm_90", k["symbol"]))
            if text is None:
                violations.append(f"{tag}: no PTX for it in the fatbin (compute_90a)")
            elif "cp.async.bulk.tensor" not in text or "wgmma.mma_async" not in text:
                violations.append(f"{tag}: its PTX lacks cp.async.bulk.tensor or wgmma.mma_async")
            elif k["dtype"] == "fp32" and ".f32.tf32.tf32" not in text:
                violations.append(f"{tag}: its PTX has no tf32 wgmma (wgmma.mma_async...f32.tf32.tf32)")
            elif generic := GENERIC_LD_ST.search(text):  # every access names its space (tma_gemm/smem.hpp: swizzle_aligned)
                violations.append(f"{tag}: generic loads or stores in its PTX (a pointer into shared memory lost its "
                                  f"space): {generic.group(0).strip()}")
        print(f"\nTMA GEMM kernels (sm_90a): {len(tma)}; PTX entries read: {len(ptx)}")
    if args.check:  # relayout's fast paths (lowering/gpu/relayout.hpp): 16-byte global loads and stores, per element type
        ptx = ptx_kernels(archive)
        fast = [k for k in kernels if k["kind"] in ("relayout transpose", "relayout rows")]
        for arch in archs:
            for dt in DTYPES:
                for kind in ("relayout transpose", "relayout rows"):
                    if not any(k["arch"] == arch and k["dtype"] == dt and k["kind"] == kind for k in fast):
                        violations.append(f"{arch} {dt}: no '{kind}' kernel")
        for k in fast:
            text = ptx.get((k["arch"], k["symbol"]))
            tag = f"{k['arch']} {k['dtype']} {k['kind']} [{k['symbol'][:60]}...]"
            if text is None:
                violations.append(f"{tag}: no PTX for it in the fatbin")
            elif not re.search(r"ld\.global(\.nc)?\.v4\.", text) or not re.search(r"st\.global\.v4\.", text):
                violations.append(f"{tag}: its PTX lacks 16-byte global loads or stores (ld.global.v4 / st.global.v4)")
            elif k["kind"] == "relayout transpose" and ("ld.shared" not in text or "st.shared" not in text):
                violations.append(f"{tag}: its PTX does not go through shared memory")
        print(f"\nrelayout fast-path kernels: {len(fast)}")
    if args.check and args.require_archs:
        for a in args.require_archs.split(","):
            if a not in archs:
                violations.append(f"no code for {a} in {archive} (found {', '.join(archs) or 'none'})")
    return report_violations(violations, args.check)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help="AMD: .s files or folders of them (default build/isa/amd)")
    ap.add_argument("--check", action="store_true", help="check the ISA properties; exit 1 and list each violation")
    ap.add_argument("--op", action="append", help="only kernels of this op (repeatable)")
    ap.add_argument("--nvidia", metavar="ARCHIVE", help="report on the cubins of an NVIDIA archive / object instead")
    ap.add_argument("--cuobjdump", help="the cuobjdump to use (default: PATH, /usr/local/cuda/bin)")
    ap.add_argument("--builtin", action="store_true", help="NVIDIA: read the archive directly even where cuobjdump exists")
    ap.add_argument("--res-usage-file", help=argparse.SUPPRESS)  # saved cuobjdump -res-usage output
    ap.add_argument("--sass-file", help=argparse.SUPPRESS)       # saved cuobjdump -sass output
    ap.add_argument("--compare", action="store_true", help="NVIDIA: compare the built-in reader with cuobjdump, kernel by kernel")
    ap.add_argument("--require-archs", default="sm_80,sm_90", help="NVIDIA --check: archs that must be present")
    ap.add_argument("--wgmma", action="store_true", help="NVIDIA --check: the sm_90 code is sm_90a, whose 16-bit GEMM tiles use HGMMA")
    args = ap.parse_args()
    if args.nvidia:
        return nvidia_main(args)
    if not args.paths:
        args.paths = [str(REPO / "build" / "isa" / "amd")]
    return amd_main(args)


if __name__ == "__main__":
    sys.exit(main())
