// What the TMA GEMM kernel is told per launch: everything about the views is here, as numbers, so the
// kernel is the same for every op (it is templated on element type, tile and operand orientation
// only). A launch runs a batch of GEMMs (col2im classes); each class has its two tensor maps, the
// digits of its M, N and K dimensions (lengths, tile extents, tiles per digit) and how C's offsets
// follow the digits. Unused digit slots have length 1, extent 1 and move nothing.
#pragma once
#include <cstdint>
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/tma_gemm/c_store_plan.hpp"
#include "lowering/gpu/tma_gemm/class_plan.hpp"

namespace tg::tma_gemm {
constexpr int rank = boxes::max_rank;

struct operand {
  arch::tensor_map map;          // 64-byte aligned (CUtensorMap is)
  int rank = 0;
  boxes::box_loads load;         // TMA loads per stage (MN-major tiles of more than one box), boxes per load
  int stack_shift = 0;           // > 0: each load is stacked boxes (stacked_boxes.hpp)
  int base[tma_gemm::rank] = {};
  int box_step[tma_gemm::rank] = {};
  int step[3][nd][tma_gemm::rank] = {};  // [group, rows, k digit][digit][axis]: coordinate step per unit
};

// C as TMA store boxes (c_store_plan.hpp): the map, and which axis each digit is.
struct c_boxes {
  arch::tensor_map map;
  c_box_axes axes;
};

struct gemm_class {
  operand a, b;
  c_boxes cb;                    // where launch_args::c_tma
  digits m, n, k;
  int groups = 1;
  long long unit0 = 0;           // the class's first work unit
  long long units = 0;
  bool has_k = false;            // a class with no reduction (tapless col2im class) writes zeros
  // C: element offset of (g, m digits, n digits).
  long long c_off0 = 0, c_g = 0, c_m[nd] = {}, c_n[nd] = {};
};

// The kernels' parameter but its GEMMs: the launch's sizes and knobs.
struct launch_args {
  int classes = 0;
  long long units = 0;
  int splits = 1;                // split-K chunks of single GEMMs (classes == 1)
  long long k_chunk = 0;         // k-tiles per chunk
  void* c = nullptr;
  float* ws = nullptr;           // when splits > 1: [tile][split] partial sums (split_reduce.hpp)
  unsigned* tile_done = nullptr; // when splits > 1: per tile, the splits finished (zero at launch)
  bool fused_split = false;      // the last split of a tile adds the partials (else split_sum_kernel)
  float alpha = 1.0f;
  bool c_vectors = false;        // C's columns are contiguous and aligned: paired stores
  bool c_tma = false;            // C's tiles stored as TMA boxes (every class's cb; epilogue.hpp)
  bool release_early = false;    // consumers wait for each k-tile's batch and free its stage at once
  halo_plan halo;                // the halo kernel's A (halo_kernel.hpp): taps, rows, where blocks and taps read
  k_halo_plan k_halo;            // a k-halo tile's A (a_blocks.hpp): rows, where blocks and k16 steps read
  std::uint32_t stage_tx = 0;    // bytes the TMA brings per stage (a k-halo's A: its rows, not the tile's)
  bool block_runs = false;       // each persistent block walks one run of consecutive units (unit_walk)
  bool consumers_transpose = false;  // the MN-major tf32 tile: the consumers transpose the landed k-tiles (tf32_transpose.hpp)
};
// The kernels' parameter: the knobs and C GEMMs. A launch copies all of it into the command stream,
// so a single GEMM (and the halo kernel, which takes one) carries C = 1 (1.8 KB) instead of the 11.6
// KB of max_classes, which cost about 2 us more host time per launch (performance.md section 26).
template <int C>
struct args : launch_args {
  gemm_class cls[C];
};

// A work unit: one (class, group, M tile, N tile, split): a tile's splits side by side (they finish
// together, and the last adds the others' partials while they are in L2), then N tiles, so that
// neighbouring blocks share their A tile in L2.
struct unit {
  int cls;
  long long g, split, tm, tn;
};
template <class A>
TG_HD inline unit locate(const A& a, long long u) {
  int c = 0;
  while (c + 1 < a.classes && u >= a.cls[c + 1].unit0) ++c;
  const gemm_class& k = a.cls[c];
  long long l = u - k.unit0;
  unit r{c, 0, 0, 0, 0};
  r.split = l % a.splits, l /= a.splits;
  r.tn = l % k.n.count, l /= k.n.count;
  r.tm = l % k.m.count, r.g = l / k.m.count;
  return r;
}

// The units a persistent block walks: every gridDim-th (neighbouring blocks on neighbouring tiles, so
// that they share operands in L2), or with `block_runs` one run of consecutive units (a resident B
// that changes with the group is then reloaded as seldom as the runs allow: halo_kernel.hpp).
struct unit_walk {
  long long begin, end, step;
};
TG_HD inline unit_walk walk_of(const launch_args& a, long long block, long long blocks) {
  if (!a.block_runs) return {block, a.units, blocks};
  const long long per = a.units / blocks, extra = a.units % blocks;
  const long long begin = block * per + (block < extra ? block : extra);
  return {begin, begin + per + (block < extra ? 1 : 0), 1};
}

// A work unit with its GEMM and its k-tiles [kb, ke): what the producer and the consumers both walk.
struct work {
  unit w;
  const gemm_class* c;
  long long kb, ke;
};
TG_HD inline void k_range(const launch_args& a, const gemm_class& k, long long split, long long& begin, long long& end);
template <class A>
TG_HD inline work work_of(const A& a, long long u) {
  work r{locate(a, u), nullptr, 0, 0};
  r.c = &a.cls[r.w.cls];
  k_range(a, *r.c, r.w.split, r.kb, r.ke);
  return r;
}

// The tile a unit works on, counted within its class: (group, M tile, N tile).
TG_HD inline long long tile_of(const gemm_class& k, const unit& w) { return (w.g * k.m.count + w.tm) * k.n.count + w.tn; }

// The corner digits of tile t.
TG_HD inline void corner(const digits& d, long long t, int (&out)[nd]) {
  TG_UNROLL for (int p = nd - 1; p >= 0; --p) {
    const long long q = t / d.tiles[p];
    out[p] = static_cast<int>(t - q * d.tiles[p]) * d.ext[p];
    t = q;
  }
}

// Local index i of a tile of `d`'s digits (corner: the tile's): its part of an offset with coefs c,
// false past the dimension's edge. Pow2: every extent a power of two (a tile of a power-of-two side:
// shifts and masks; the taps tile's rows divide, once per unit), so other kernels carry no division.
template <bool Pow2 = true>
TG_HD inline bool local_digits(const digits& d, const int (&corner)[nd], int i, const long long (&c)[nd], long long& off) {
  bool ok = true;
  off = 0;
  TG_UNROLL for (int p = 0; p < nd; ++p) {
    const int v = corner[p] + (Pow2 ? (i >> d.shift[p]) & (d.ext[p] - 1) : i / d.stride[p] % d.ext[p]);
    ok = ok && v < d.len[p];
    off += c[p] * v;
  }
  return ok;
}
// Whether tile P's rows are a power of two (its plans' row extents then are: class_plan.hpp).
template <class P>
constexpr bool pow2_rows = (P::BM & (P::BM - 1)) == 0;

// The k-tiles [begin, end) of a unit's split.
TG_HD inline void k_range(const launch_args& a, const gemm_class& k, long long split, long long& begin, long long& end) {
  begin = split * a.k_chunk;
  end = begin + a.k_chunk < k.k.count ? begin + a.k_chunk : k.k.count;
  if (!k.has_k || begin > end) begin = end = 0;
}
}  // namespace tg::tma_gemm
