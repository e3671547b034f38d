// GPU implicit GEMM: global -> shared memory (a multi-stage pipeline of 16-byte asynchronous copies
// where the view's memory runs allow, element loads where not) -> matrix cores: wgmma straight from
// the shared tiles on sm_90a (16-bit tiles of whole warpgroups), else per-lane fragments (ldmatrix on
// NVIDIA, load_tile through the atom's fragment distribution elsewhere) and the atom -> epilogue. The schedule (block tile, warps, stages) comes from gemm_tile_table below; the atom from
// arch::default_atom of the element type, so the same kernel is mma.sync on NVIDIA (warp 32) and MFMA
// on AMD (wave 64). Any im2col / col2im view works (padding reads zero); one launch covers all groups,
// split-K chunks and col2im classes (grid z).
#pragma once
#include <type_traits>
#include <cstdint>
#include <new>
#include "arch/async_copy.hpp"
#include "arch/block.hpp"
#include "arch/convert.hpp"
#include "arch/fragment_distribution.hpp"
#include "arch/ldmatrix.hpp"
#include "arch/mbarrier_nvidia.hpp"
#include "arch/mma.hpp"
#include "dsl/tile_window.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/gemm_small.hpp"
#include "lowering/gpu/k_order.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "lowering/gpu/split_k.hpp"
#include "lowering/gpu/split_view.hpp"
#include "lowering/gpu/strided.hpp"

// TG_WGMMA_ASYNC=0 turns the policies' wgmma_async off everywhere (A/B trials, tools/gpu-variants.sh).
#ifndef TG_WGMMA_ASYNC
#define TG_WGMMA_ASYNC 1
#endif
#ifndef TG_SMALL_GROUP_WORDS
#define TG_SMALL_GROUP_WORDS 1
#endif

namespace tg {
namespace gpu_gemm {
// EntryRing: the k entries travel ahead through a shared-memory ring (entry_ring below) instead of
// being read from global memory by the fill. WgmmaAsync (tiles that take wgmma): a k-tile's wgmma
// batch stays in flight during the next fill (gemm_kernel's pipeline), tiles then requested S-2 ahead.
template <int BM_, int BN_, int BK_, int WarpsM_, int WarpsN_, int Stages_, bool EntryRing_ = false, bool WgmmaAsync_ = true>
struct tile_policy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WarpsM = WarpsM_, WarpsN = WarpsN_, Stages = Stages_;
  static constexpr bool entry_ring = EntryRing_, wgmma_async = WgmmaAsync_ && TG_WGMMA_ASYNC;
  static_assert(Stages >= 2, "a pipeline needs two stages at least");
};

template <class View>
using elem_t = std::remove_const_t<typename View::value_type>;

template <class View>
__device__ inline elem_t<View> load_raw(const View& v, index_t g, index_t i, index_t k) {
  const multi_index<3> c{{g, i, k}};
  return v.desc.is_valid(c) ? v.data[v.desc.offset(c)] : from_float<elem_t<View>>(0.0f);
}

// The affine_split entries (split_view.hpp) of `Count` consecutive coordinates from `base` along top
// dimension `dim` (1: rows, 2: k) of a [G, rows, K] view.
template <int Count, int V, class View>
__device__ inline void tabulate(typename affine_split<View>::entry* out, const View& v, index_t g, int dim, index_t base, int tid, int threads) {
  for (int r = tid; r < Count; r += threads) out[r] = affine_entry<V>(v, g, dim, base + r);
}

// How one operand's tiles are staged, decided per launch from its view.
//   rows_fast  the rows are contiguous in memory: the shared tile is [k][rows] (else [rows][k]), so
//              a 16-byte piece of a global row is a 16-byte piece of a shared row either way
//   vectors    the pointer is 16-byte aligned, so runs of memory (entry.run) may be copied whole
struct operand_mode {
  bool rows_fast;
  bool vectors;
};

// Global -> shared for one operand: the [Rows, BK] tile at (r0, k0) of a [G, R, K] view, in pieces of
// 16 bytes along the dimension that is contiguous in memory. A piece that starts a run (its entry's
// run flag, an aligned offset) and whose two ends are valid is one asynchronous copy: the view is
// affine below its top stage, so the guards hold in between too. Any other piece (padding edges, tile
// edges, strided views) is filled element by element, padding and out-of-range elements reading zero.
// `tile` maps (row, k) to the shared offset. (Keeping each thread's row entries in registers across
// the main loop measured slower: performance.md v14.)
template <bool RowsFast, int Rows, int BK, int Threads, class View, class Tile, class E, class Entry>
__device__ inline void fill_operand(E* smem, const Tile& tile, const View& v, index_t g, index_t r0, index_t R, index_t k0, index_t K,
                                    bool vectors, int tid, const Entry* rows, const Entry* ks) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * BK / V;
  static_assert(Rows % V == 0 && BK % V == 0, "tile edges must hold whole 16-byte pieces");
  constexpr int dr = RowsFast ? 1 : 0, dk = 1 - dr;
  constexpr int per_line = RowsFast ? Rows / V : BK / V;  // pieces along the fast dimension
  _Pragma("unroll 1") for (int p = 0; p < (pieces + Threads - 1) / Threads; ++p) {  // rolled: registers
    const int e = tid + p * Threads;
    if (pieces % Threads != 0 && e >= pieces) break;
    const int rr = RowsFast ? (e % per_line) * V : e / per_line, kk = RowsFast ? e / per_line : (e % per_line) * V;
    E* dst = smem + tile.offset({{rr, kk}});
    if constexpr (affine_split<View>::on) {
      constexpr int rl_d = dr * (V - 1), kl_d = dk * (V - 1);
      if (vectors && r0 + rr + rl_d < R && k0 + kk + kl_d < K && (RowsFast ? rows[rr].run : ks[kk].run)) {
        const index_t o = affine_offset(v, rows[rr], ks[kk]);
        if (o >= 0 && o % V == 0 && affine_offset(v, rows[rr + rl_d], ks[kk + kl_d]) >= 0) {
          arch::copy16_async(dst, v.data + o, true);
          continue;
        }
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: the rare edge path, kept small
        const int r = rr + dr * t, k = kk + dk * t;
        const index_t o = r0 + r < R && k0 + k < K ? affine_offset(v, rows[r], ks[k]) : -1;
        dst[t] = o >= 0 ? v.data[o] : from_float<E>(0.0f);
      }
    } else {
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: a descriptor walk per element is long
        const int r = rr + dr * t, k = kk + dk * t;
        dst[t] = r0 + r < R && k0 + k < K ? load_raw(v, g, r0 + r, k0 + k) : from_float<E>(0.0f);
      }
    }
  }
}

// Passes of the hoisted fill unrolled together (fill_uniform_hoisted): on sm_90a, where wgmma keeps
// the fragments out of registers, TG_FILL_UNROLL of them; elsewhere one (sm_80's mma.sync tile spilled
// with eight, and AMD's tiles are bounded by two waves per SIMD).
#if !defined(TG_FILL_UNROLL)
#define TG_FILL_UNROLL 8
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
#define TG_FILL_PASSES TG_UNROLL_BY(TG_FILL_UNROLL)
#else
#define TG_FILL_PASSES TG_UNROLL_BY(1)
#endif

// fill_operand for a uniform k-tile (affine_split::k_tile): an element's offset is its row entry's
// plus the tile's plus j * step, and its guards are its row's plus the tile's, so a piece costs a row
// entry read and one guard test, with no k entry. Along k (RowsFast false) a piece lies in one row:
// its V elements are valid or padding together; padding is one zero-filled copy, and with step 1 and
// `vectors` (an aligned pointer) a valid aligned piece is one copy. Along rows a piece is one copy
// where the row entry starts a run and both ends are valid (as fill_operand). Other pieces (a step
// other than 1, misaligned, broken runs) go element by element, still without k entries. Used where
// the views are built in registers (single GEMMs: backward weight); the hoisted form below raised its
// main tile from 128 to 168 registers, one block per SM, 2.38 -> 2.90 ms (performance.md section 10).
template <bool RowsFast, int Rows, int BK, int Threads, class View, class Tile, class E, class Entry, class KTile>
__device__ inline void fill_uniform(E* smem, const Tile& tile, const View& v, index_t r0, index_t R, bool vectors, int tid, const Entry* rows,
                                    const KTile& kt) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * BK / V;
  constexpr int per_line = RowsFast ? Rows / V : BK / V;
  _Pragma("unroll 1") for (int p = 0; p < (pieces + Threads - 1) / Threads; ++p) {
    const int e = tid + p * Threads;
    if (pieces % Threads != 0 && e >= pieces) break;
    const int rr = RowsFast ? (e % per_line) * V : e / per_line, kk = RowsFast ? e / per_line : (e % per_line) * V;
    E* dst = smem + tile.offset({{rr, kk}});
    const Entry& first = rows[rr];
    const index_t o = first.off + kt.off + kk * kt.step;
    if constexpr (!RowsFast) {
      const bool valid = r0 + rr < R && affine_valid(v, first, kt);
      if (!valid || (vectors && kt.step == 1 && o % V == 0)) {
        arch::copy16_async(dst, valid ? v.data + o : v.data, valid);
        continue;
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) dst[t] = v.data[o + t * kt.step];
    } else {
      if (vectors && first.run && r0 + rr + V - 1 < R && o % V == 0 && affine_valid(v, first, kt) && affine_valid(v, rows[rr + V - 1], kt)) {
        arch::copy16_async(dst, v.data + o, true);
        continue;
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: the rare edge path, kept small
        const Entry& r = rows[rr + t];
        dst[t] = r0 + rr + t < R && affine_valid(v, r, kt) ? v.data[r.off + kt.off + kk * kt.step] : from_float<E>(0.0f);
      }
    }
  }
}

// fill_uniform where the block's views live in shared memory (batches of col2im classes: backward
// data): the same pieces, with everything that does not change between them worked out once per
// fill, since there each read of the view's fields is a shared-memory load (profile, performance.md
// section 10: the per-piece fill took ~85 instructions, reloading the view's data pointer and pad
// bounds and recomputing the shared window's base for every piece). Guards are tested as boxes
// relative to the tile (affine_tile_guards), with no read of the view. The threads keep one place along
// the fast dimension across passes (Threads is a multiple of the pieces per line) and step by whole
// swizzle periods (8 rows) along the other, so a piece's shared offset is the thread's first plus
// pass * stride (where a pass covers no whole number of periods, it is worked out per pass). Along rows the
// thread's piece covers the same V rows in every pass, so whether it is one copy is decided once.
template <bool RowsFast, int Rows, int BK, int Threads, class View, class Tile, class E, class Entry, class KTile>
__device__ inline void fill_uniform_hoisted(E* smem, const Tile& tile, const View& v, index_t r0, index_t R, bool vectors, int tid, const Entry* rows,
                                    const KTile& kt) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * BK / V;
  constexpr int per_line = RowsFast ? Rows / V : BK / V;
  constexpr int lines = Threads / per_line;  // lines (rows, or k with RowsFast) one pass covers
  static_assert(Threads % per_line == 0, "each thread keeps its place along the fast dimension");
  constexpr bool periodic = lines % 8 == 0 || pieces <= Threads;  // else (few lines per pass) each pass's offset is worked out
  const int fixed = (tid % per_line) * V, line0 = tid / per_line;  // this thread's place along / across the fast dimension
  const index_t rows_left = R - r0;
  const affine_tile_guards<View> guards(v, kt);
  const auto at = [&](int line) { return static_cast<int>(RowsFast ? tile.offset({{fixed, line}}) : tile.offset({{line, fixed}})); };
  const int dst0 = at(line0), dst_step = periodic && pieces > Threads ? at(line0 + lines) - dst0 : 0;
  const auto dst_of = [&](int p) { return smem + (periodic ? dst0 + p * dst_step : at(line0 + p * lines)); };
  // Values, not references into the shared views or entries: read once, not per piece (the profile of
  // a reference showed a shared load and the shared window's base rebuilt per piece).
  const E* const data = v.data;
  const index_t step = kt.step;
  constexpr int passes = (pieces + Threads - 1) / Threads;
  // The passes are unrolled and each issues its copy with no branch (validity is the copy's source
  // size): the profile of the rolled loop (performance.md section 14) showed ~54 instructions per piece
  // of A, 5 branches among them, and the row entry's shared load waited on right before its use.
  // Unrolled, the entries of all passes are loaded together and their latency overlaps. Pieces that
  // are not one aligned copy (a step other than 1, misaligned offsets, broken runs: rare) go element
  // by element after the copies, in a rolled loop kept out of the common path.
  if constexpr (!RowsFast) {
    const index_t k_off = kt.off + fixed * step;  // the piece's k part
    const E* const base = data + k_off;
    const bool fast = vectors && step == 1;
    const int rows_in = rows_left < Rows ? static_cast<int>(rows_left) : Rows;  // r0 < R: positive
    const unsigned k_mis = static_cast<unsigned>(k_off) % V;  // alignment from the low bits alone
    // Pass p's piece: one aligned copy (or padding) unless `slow` says otherwise.
    auto piece = [&](int p, bool& slow) -> const Entry* {
      const int rr = line0 + p * lines;
      const Entry* r = rows + rr;
      const bool valid = rr < rows_in && guards.holds(*r);
      slow = valid && !(fast && (static_cast<unsigned>(r->off) + k_mis) % V == 0);
      return valid ? r : nullptr;
    };
    bool any_slow = false;
    TG_FILL_PASSES for (int p = 0; p < passes; ++p) {
      if (pieces % Threads != 0 && line0 + p * lines >= Rows) break;
      bool slow;
      const Entry* r = piece(p, slow);
      any_slow = any_slow || slow;
      if (!slow) arch::copy16_async(dst_of(p), r ? base + r->off : data, r != nullptr);
    }
    if (any_slow) {
      _Pragma("unroll 1") for (int p = 0; p < passes; ++p) {
        if (pieces % Threads != 0 && line0 + p * lines >= Rows) break;
        bool slow;
        const Entry* r = piece(p, slow);
        if (!slow) continue;
        E* const dst = dst_of(p);
        _Pragma("unroll 1") for (int t = 0; t < V; ++t) dst[t] = base[r->off + t * step];
      }
    }
  } else {
    const Entry& first = rows[fixed];
    const bool whole = vectors && first.run && fixed + V - 1 < rows_left && guards.holds(first) && guards.holds(rows[fixed + V - 1]);
    const E* const src0 = data + first.off + kt.off;  // the piece at k 0
    // Every pass's piece is one copy when the first is aligned and the step keeps the alignment.
    if (whole && reinterpret_cast<std::uintptr_t>(src0 + line0 * step) % 16 == 0 && (lines * step) % V == 0) {
      const E* const src1 = src0 + line0 * step;
      const index_t pass_step = lines * step;
      TG_FILL_PASSES for (int p = 0; p < passes; ++p) {
        if (pieces % Threads != 0 && line0 + p * lines >= BK) break;
        arch::copy16_async(dst_of(p), src1 + p * pass_step, true);
      }
      return;
    }
    _Pragma("unroll 1") for (int p = 0; p < passes; ++p) {
      const int kk = line0 + p * lines;
      if (pieces % Threads != 0 && kk >= BK) break;
      E* const dst = dst_of(p);
      const E* const src = src0 + kk * step;
      if (whole && reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {  // `whole` implies an aligned tensor: the offset's alignment
        arch::copy16_async(dst, src, true);
        continue;
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: the rare edge path, kept small
        const Entry& r = rows[fixed + t];
        dst[t] = fixed + t < rows_left && guards.holds(r) ? data[r.off + kt.off + kk * step] : from_float<E>(0.0f);
      }
    }
  }
}

// Count entries (a k-tile's k entries, or its summary), global -> shared, as 16-byte asynchronous
// copies by the threads from `first` on.
template <int Count, int Threads, class Entry>
__device__ inline void copy_entries(Entry* dst, const Entry* src, int tid, int first = 0) {
  static_assert(Count * sizeof(Entry) % 16 == 0, "whole 16-byte pieces");
  constexpr int pieces = Count * sizeof(Entry) / 16;
  for (int c = tid - first; c >= 0 && c < pieces; c += Threads)
    arch::copy16_async(reinterpret_cast<char*>(dst) + 16 * c, reinterpret_cast<const char*>(src) + 16 * c, true);
}

// Global -> shared for one operand's k-tile kt into one stage, [Rows][BK] or, rows-fast, [BK][Rows]:
// a uniform k-tile (its summary `kt_sum`, affine_split::k_tile, from the shared ring) by fill_uniform
// (fill_uniform_hoisted where the views are in shared memory: SharedViews), any other by fill_operand
// with the tile's k entries `tile_ks` (from the shared ring where the policy has one, entry_ring
// below, else global).
template <int Rows, int BK, int Threads, bool SharedViews, class View, class E, class Entry, class KTile>
__device__ inline void fill_stage(E* smem, bool rows_fast, const View& v, index_t g, index_t r0, index_t R, index_t kt, index_t K,
                                  bool vectors, int tid, const Entry* rows, const Entry* tile_ks, const KTile* kt_sum) {
  const auto rk = smem_tile_desc<Rows, BK, E>();
  const auto kr = reorder(smem_tile_desc<BK, Rows, E>(), seq<1, 0>{});
  if constexpr (affine_split<View>::on) {
    const KTile t = *kt_sum;
    if (t.uniform) {
      if constexpr (SharedViews) {
        if (rows_fast) fill_uniform_hoisted<true, Rows, BK, Threads>(smem, kr, v, r0, R, vectors, tid, rows, t);
        else fill_uniform_hoisted<false, Rows, BK, Threads>(smem, rk, v, r0, R, vectors, tid, rows, t);
      } else {
        if (rows_fast) fill_uniform<true, Rows, BK, Threads>(smem, kr, v, r0, R, vectors, tid, rows, t);
        else fill_uniform<false, Rows, BK, Threads>(smem, rk, v, r0, R, vectors, tid, rows, t);
      }
      return;
    }
  }
  if (rows_fast) fill_operand<true, Rows, BK, Threads>(smem, kr, v, g, r0, R, kt * BK, K, vectors, tid, rows, tile_ks);
  else fill_operand<false, Rows, BK, Threads>(smem, rk, v, g, r0, R, kt * BK, K, vectors, tid, rows, tile_ks);
}

// Shared -> global for the C tile: the [Rows, Cols] tile staged in shared memory at `tile`, written
// to the [G, R, C] view at (r0, c0) in 16-byte pieces along C's contiguous dimension where a piece is
// one aligned valid run (as fill_operand reads them), element by element elsewhere; padding is skipped.
// (The piece walk and run test mirror fill_operand's on purpose: sharing them through one helper
// raised the backward-weight kernels from 128 to 160 registers, one block per SM instead of two, and
// cost ~30% there: performance.md 7c.)
template <bool RowsFast, int Rows, int Cols, int Threads, class View, class Tile, class E, class Entry>
__device__ inline void drain_tile(const E* smem, const Tile& tile, const View& v, index_t r0, index_t R, index_t c0, index_t C, bool vectors,
                                  int tid, const Entry* rows, const Entry* cols) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * Cols / V;
  constexpr int dr = RowsFast ? 1 : 0, dc = 1 - dr;
  constexpr int per_line = RowsFast ? Rows / V : Cols / V;
  _Pragma("unroll 1") for (int e = tid; e < pieces; e += Threads) {
    const int rr = RowsFast ? (e % per_line) * V : e / per_line, cc = RowsFast ? e / per_line : (e % per_line) * V;
    const E* src = smem + tile.offset({{rr, cc}});
    constexpr int rl_d = dr * (V - 1), cl_d = dc * (V - 1);
    if (vectors && r0 + rr + rl_d < R && c0 + cc + cl_d < C && (RowsFast ? rows[rr].run : cols[cc].run)) {
      const index_t o = affine_offset(v, rows[rr], cols[cc]);
      if (o >= 0 && o % V == 0 && affine_offset(v, rows[rr + rl_d], cols[cc + cl_d]) >= 0) {
        *reinterpret_cast<gpu_fast::word16*>(v.data + o) = *reinterpret_cast<const gpu_fast::word16*>(src);
        continue;
      }
    }
    _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: the rare edge path, kept small
      const int r = rr + dr * t, c = cc + dc * t;
      const index_t o = r0 + r < R && c0 + c < C ? affine_offset(v, rows[r], cols[c]) : -1;
      if (o >= 0) v.data[o] = src[t];
    }
  }
}

// drain_tile for columns that form one uniform k_tile (column_tile): as fill_uniform, the mirror.
template <bool RowsFast, int Rows, int Cols, int Threads, class View, class Tile, class E, class Entry, class KTile>
__device__ inline void drain_uniform(const E* smem, const Tile& tile, const View& v, index_t r0, index_t R, bool vectors, int tid,
                                     const Entry* rows, const KTile& ct) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * Cols / V;
  constexpr int per_line = RowsFast ? Rows / V : Cols / V;
  // As fill_uniform_hoisted: the pointer, step and guard boxes as values read once (the accumulators
  // are in shared memory by now, so the registers are there).
  E* const data = v.data;
  const index_t step = ct.step;
  const affine_tile_guards<View> guards(v, ct);
  _Pragma("unroll 1") for (int e = tid; e < pieces; e += Threads) {
    const int rr = RowsFast ? (e % per_line) * V : e / per_line, cc = RowsFast ? e / per_line : (e % per_line) * V;
    const E* src = smem + tile.offset({{rr, cc}});
    const Entry& first = rows[rr];
    const index_t o = first.off + ct.off + cc * step;
    if constexpr (!RowsFast) {
      if (r0 + rr >= R || !guards.holds(first)) continue;  // padding: nothing is stored
      if (vectors && step == 1 && o % V == 0) {
        *reinterpret_cast<gpu_fast::word16*>(data + o) = *reinterpret_cast<const gpu_fast::word16*>(src);
        continue;
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) data[o + t * step] = src[t];
    } else {
      if (vectors && first.run && r0 + rr + V - 1 < R && o % V == 0 && guards.holds(first) && guards.holds(rows[rr + V - 1])) {
        *reinterpret_cast<gpu_fast::word16*>(data + o) = *reinterpret_cast<const gpu_fast::word16*>(src);
        continue;
      }
      _Pragma("unroll 1") for (int t = 0; t < V; ++t) {  // rolled: the rare edge path, kept small
        const Entry& r = rows[rr + t];
        if (r0 + rr + t < R && guards.holds(r)) data[r.off + ct.off + cc * step] = src[t];
      }
    }
  }
}

// The C tile's columns n0 .. n0 + Cols (entries `cols`, tabulated) as one k_tile, tested by all the
// block's threads together (a barrier).
template <int Cols, int Threads, class View, class Entry>
__device__ inline typename affine_split<View>::k_tile column_tile(const Entry* cols, index_t n0, index_t N, int tid) {
  auto t = affine_k_line<View>(cols[0], cols[1]);
  bool same = true;
  for (int c = tid; c < Cols; c += Threads) same = same && n0 + c < N && on_k_line<View>(cols[c], t, c);
  t.uniform = arch::block_all(same);
  return t;
}

struct launch_args {
  int splits;
  operand_mode a, b, c;
  const void *a_ks, *b_ks;  // the k entries of A and B, [batch][k_stride] (k_entries_kernel)
  const void *a_kt, *b_kt;  // their k-tile summaries, [batch][k_stride / BK] (k_tiles_kernel)
  const void* views;        // batch.views(t) for every t (views_kernel)
  index_t k_stride;
  split_k_mode mode;
  float* workspace;         // [splits, G, M, N] partial sums (deterministic split-K)
};

template <class Policy, class Views>
constexpr int threads_of() {
  return Policy::WarpsM * Policy::WarpsN * arch::default_atom<elem_t<decltype(Views::a)>>::lanes;
}

// A variable, not an expression in the attribute: clang HIP sees std::declval in __launch_bounds__ as a
// host call from device code, and HIP's __launch_bounds__ macro splits its argument at commas.
template <class Policy, class Batch>
inline constexpr int threads_of_batch = threads_of<Policy, decltype(std::declval<Batch>().views(0))>();
// AMD: HIP's second argument is the least waves per SIMD; 2 keeps gfx908 (256 ArchVGPRs) at two waves.
#if defined(__HIP__)
#define TG_GEMM_LAUNCH_BOUNDS(threads) __launch_bounds__((threads), 2)
#else
#define TG_GEMM_LAUNCH_BOUNDS(threads)  // nvcc picks registers better without a bound here (with (256, 2) it spills)
#endif

// AMD keeps every shared tile [rows][k] (rows-contiguous operands then fill element by element): one
// fragment path, since the code of both orientations did not fit the VGPR budget of two waves per
// SIMD (the col2im kernels spilled to scratch).
#if defined(__HIP__)
inline constexpr bool tile_orientations = false;
#else
inline constexpr bool tile_orientations = true;
#endif

// Fragments straight from shared memory by ldmatrix: NVIDIA's 16-bit atoms (m16n8k16).
template <class Atom>
inline constexpr bool ldmatrix_fragments =
#if defined(TG_NV_LDMATRIX)
    Atom::input != arch::atom_input::tf32;
#else
    false;
#endif

// The shared allocation's alignment: a whole 128-byte swizzle pattern where wgmma reads the tiles by
// descriptor (NVIDIA); on AMD a larger alignment only adds static LDS (1024 bytes measured).
#if defined(__HIP__)
inline constexpr int gemm_smem_align = 16;
#else
inline constexpr int gemm_smem_align = 1024;
#endif

// Fragments never in registers: wgmma (sm_90a, 16-bit atoms) reads both operands from the shared
// tiles, each warpgroup (4 warps) multiplying 64-row slices of its share of the block's rows by all BN
// columns. Needs whole warpgroups, BM a multiple of 64 per warpgroup, BN a wgmma width (64, 128).
template <class Atom, class Policy, int Threads>
inline constexpr bool wgmma_tile =
#if defined(TG_NV_WGMMA)
    Atom::input != arch::atom_input::tf32 && Threads % 128 == 0 && Policy::BM % (64 * (Threads / 128)) == 0 &&
    (Policy::BN == 64 || Policy::BN == 128) && (Policy::BK == 16 || Policy::BK == 32 || Policy::BK == 64);  // K-major rows: one swizzle width
#else
    false;
#endif

// Whether the GEMM blocks copy their views from views_kernel's table (batches of col2im classes)
// instead of building them.
template <class Batch>
inline constexpr bool shared_views = !is_single_gemm<Batch>::value;

// Slots of the rings of k entries and of k-tile summaries in shared memory: those of k-tile u are
// copied S-1 tiles before its fill, with the copies of tile u-S+1, so they have landed when the fill
// reads them (one L2 round trip per k-tile off the fill's critical path: the summaries' load right
// before its test took 15% of the stall samples of dense backward weight, performance.md 12). At least 2S-2 slots (a power of two: the
// slot is a mask): the prologue's copies and fills never share a slot, and in the loop the slot
// written was last read before the barrier.
template <int S>
inline constexpr int entry_ring = 2 * S - 2 <= 2 ? 2 : 2 * S - 2 <= 4 ? 4 : 8;
static_assert(entry_ring<4> >= 6 && entry_ring<5> >= 8, "the ring holds 2S-2 slots");

// The shared memory of one block, carved from the dynamic allocation: Stages tiles of A and B, the
// affine_split entries of the tile rows, the ring of k entries where the policy has one (made once per
// launch by k_entries_kernel in global memory, copied ahead per k-tile), the ring of k-tile summaries
// (k_tiles_kernel's, likewise), and after the main loop, in the same space, the C tile and the entries of its
// rows and columns; last, for the whole kernel, the block's views where they are shared_views.
template <class Policy, class V, bool Shared>
struct smem_plan {
  using E = elem_t<decltype(V::a)>;
  using SA = affine_split<decltype(V::a)>;
  using SB = affine_split<decltype(V::b)>;
  using SC = affine_split<decltype(V::c)>;
  static constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK, S = Policy::Stages;
  static constexpr std::size_t ea = sizeof(typename SA::entry), eb = sizeof(typename SB::entry), ec = sizeof(typename SC::entry);
  static constexpr std::size_t a_tiles = 0, b_tiles = a_tiles + sizeof(E) * S * BM * BK, tiles_end = b_tiles + sizeof(E) * S * BN * BK;
  static constexpr std::size_t a_rows = (tiles_end + 15) / 16 * 16, b_rows = a_rows + ea * (SA::on ? BM : 0);
  static constexpr int ring = Policy::entry_ring ? entry_ring<S> : 0;
  static constexpr std::size_t a_ring = (b_rows + eb * (SB::on ? BN : 0) + 15) / 16 * 16, b_ring = a_ring + ea * (SA::on ? ring * BK : 0);
  // k-tile summaries: single GEMMs only (backward weight). Batches (backward data: views in shared
  // memory) measured 4-8% slower with the ring (performance.md 12) and keep the global reads.
  static constexpr int kt_ring = (SA::on || SB::on) && !Shared ? entry_ring<S> : 0;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  static constexpr std::size_t a_kts = (b_ring + eb * (SB::on ? ring * BK : 0) + 15) / 16 * 16;
  static constexpr std::size_t b_kts = a_kts + sizeof(TA) * (SA::on ? kt_ring : 0);
  static constexpr std::size_t tables_end = b_kts + sizeof(TB) * (SB::on ? kt_ring : 0);
  using EOut = elem_t<decltype(V::c)>;
  static constexpr std::size_t c_tile = 0, c_rows = (sizeof(EOut) * BM * BN + 15) / 16 * 16, c_cols = c_rows + ec * (SC::on ? BM : 0);
  static constexpr std::size_t c_end = c_cols + ec * (SC::on ? BN : 0);
  static_assert(c_end <= tables_end, "the C tile and its entries reuse the operand tiles' space");
  static constexpr std::size_t views = (tables_end + 15) / 16 * 16;  // the block's views (shared_views)
  static constexpr std::size_t bytes = views + (Shared ? sizeof(V) : 0);
};

template <class Policy, class Batch>
__global__ void TG_GEMM_LAUNCH_BOUNDS((threads_of_batch<Policy, Batch>))
gemm_kernel(Batch batch, gemm_epilogue ep, launch_args la) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::a)>;
  using Atom = arch::default_atom<E>;
  using plan = smem_plan<Policy, V, shared_views<Batch>>;
  constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK, S = Policy::Stages;
  constexpr int threads = threads_of<Policy, V>();
  // The accumulators: acc[i][j] is a 16x8 block in mma.m16n8's C layout, at frag_row(i), frag_col(j).
  // mma.sync: the policy's warp grid, each warp a WM x WN tile of TM x TN atoms. wgmma: warpgroup w
  // takes rows w * BM / WG.., one m64 slice per i (its warps 16 rows each), all BN columns (j: n8 blocks).
  constexpr bool wg = wgmma_tile<Atom, Policy, threads>;
  constexpr bool ldm = ldmatrix_fragments<Atom> && !wg;
  constexpr int WG = threads / 128;
  // wgmma kept in flight across the next k-tile's fill (one batch pending, wg_async): the fill then
  // may only overwrite the stage read two k-tiles back, so tiles are requested D = S-2 ahead, else S-1.
  constexpr bool wg_async = wg && Policy::wgmma_async;
  constexpr int D = wg_async ? S - 2 : S - 1;
  static_assert(D >= 1, "an asynchronous wgmma pipeline needs three stages at least");
  constexpr int WM = BM / Policy::WarpsM, WN = BN / Policy::WarpsN;  // warp tile
  constexpr int TM = wg ? BM / (64 * WG) : WM / Atom::M, TN = wg ? BN / 8 : WN / Atom::N;
  static_assert(wg || (WM % Atom::M == 0 && WN % Atom::N == 0), "tile must be a multiple of the atom");
  static_assert(BK % Atom::K == 0, "tile must be a multiple of the atom");
  static_assert(!ldm || TN % 2 == 0, "ldmatrix reads B fragments in pairs of atoms");
  using SA = typename plan::SA;
  using SB = typename plan::SB;
  using SC = typename plan::SC;
  extern __shared__ __align__(gemm_smem_align) unsigned char smem[];
  static_assert(!wg || (plan::b_tiles % 1024 == 0 && BM * BK * sizeof(E) % 1024 == 0 && BN * BK * sizeof(E) % 1024 == 0),
                "every stage of A and B starts on a whole swizzle pattern (wgmma descriptors carry no base offset)");
#if defined(TG_NV_WGMMA)
  if constexpr (wg) {
    if (arch::smem_addr(smem) % 1024 != 0) arch::trap();  // ditto for the allocation
  }
#endif
  E* const As = reinterpret_cast<E*>(smem + plan::a_tiles);
  E* const Bs = reinterpret_cast<E*>(smem + plan::b_tiles);
  using EA = typename SA::entry;
  using EB = typename SB::entry;
  using EC = typename SC::entry;
  constexpr int VA = 16 / sizeof(E);
  EA* const a_rows = reinterpret_cast<EA*>(smem + plan::a_rows);
  EB* const b_rows = reinterpret_cast<EB*>(smem + plan::b_rows);
  EA* const a_ring = reinterpret_cast<EA*>(smem + plan::a_ring);
  EB* const b_ring = reinterpret_cast<EB*>(smem + plan::b_ring);
  const EA* const a_ks = static_cast<const EA*>(la.a_ks) + blockIdx.z * la.k_stride;
  const EB* const b_ks = static_cast<const EB*>(la.b_ks) + blockIdx.z * la.k_stride;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  const TA* const a_kt = static_cast<const TA*>(la.a_kt) + blockIdx.z * (la.k_stride / BK);
  const TB* const b_kt = static_cast<const TB*>(la.b_kt) + blockIdx.z * (la.k_stride / BK);
  // Shared tiles in either orientation, each indexed (row, k); the fragments read B as (k, n).
  const auto a_rk = smem_tile_desc<BM, BK, E>();
  const auto a_kr = reorder(smem_tile_desc<BK, BM, E>(), seq<1, 0>{});
  const auto b_rk = smem_tile_desc<BN, BK, E>();
  const auto b_kr = reorder(smem_tile_desc<BK, BN, E>(), seq<1, 0>{});

  // Shared tile orientations (uniform per launch; constant false where only [rows][k] is built).
  const bool a_rows_fast = tile_orientations && la.a.rows_fast, b_rows_fast = tile_orientations && la.b.rows_fast,
             c_rows_fast = tile_orientations && la.c.rows_fast;
  // The block's views. Batches of col2im classes: made once per launch by views_kernel and copied to
  // shared memory (a class costs ~50 divisions to build, as much as the rest of the block's set-up:
  // 1.24 -> 1.09 ms on the seed case). Single GEMMs build theirs here: read from shared memory, their
  // view's fields slowed the k-entry fill by 15-40% (performance.md 9).
  auto block_views = [&]() -> decltype(auto) {
    if constexpr (shared_views<Batch>) {
      static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0, "views are copied word by word");
      const auto* src = static_cast<const std::uint32_t*>(la.views) + blockIdx.z * (sizeof(V) / 4);
      auto* dst = reinterpret_cast<std::uint32_t*>(smem + plan::views);
      for (int i = threadIdx.x; i < static_cast<int>(sizeof(V) / 4); i += threads) dst[i] = src[i];
      __syncthreads();
      return static_cast<const V&>(*reinterpret_cast<const V*>(smem + plan::views));
    } else {
      return batch.views(blockIdx.z);
    }
  };
  const auto& v = block_views();
  const index_t M = v.m(), N = v.n(), K = v.k(), G = v.groups();
  const index_t tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
  const index_t tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
  if (tm >= tiles_m) return;  // classes of one launch differ in size
  const index_t m0 = tm * BM, n0 = tn * BN;
  const index_t g = blockIdx.y / la.splits;
  const int s = blockIdx.y % la.splits;
  const index_t KT = (K + BK - 1) / BK, per = (KT + la.splits - 1) / la.splits;
  const index_t kt0 = s * per, kt1 = kt0 + per < KT ? kt0 + per : KT;

  const int tid = threadIdx.x, lane = tid % Atom::lanes, warp = tid / Atom::lanes;
  const int wm = warp / Policy::WarpsN, wn = warp % Policy::WarpsN;
  auto frag_row = [&](int i) { return wg ? (warp / 4) * (BM / WG) + i * 64 + (warp % 4) * 16 : wm * WM + i * Atom::M; };
  auto frag_col = [&](int j) { return wg ? j * 8 : wn * WN + j * Atom::N; };
  if constexpr (SA::on) tabulate<BM, VA>(a_rows, v.a, g, 1, m0, tid, threads);
  if constexpr (SB::on) tabulate<BN, VA>(b_rows, v.b, g, 1, n0, tid, threads);
  float acc[TM][TN][Atom::c_per_lane];
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) acc[i][j][e] = 0.0f;

  // Global -> shared: k-tile kt into stage st (asynchronous where the pieces allow).
  // Relative k-tile u (of this block's chunk) into stage u % S, its k entries from ring slot u % R
  // (Policy::entry_ring) or from global memory.
  constexpr int R = plan::ring > 0 ? plan::ring : 1, RT = plan::kt_ring > 0 ? plan::kt_ring : 1;
  TA* const a_kts = reinterpret_cast<TA*>(smem + plan::a_kts);
  TB* const b_kts = reinterpret_cast<TB*>(smem + plan::b_kts);
  // Ring slots in 32 bits: u < the chunk's k-tiles (a 64-bit u % 3 cost ~12 instructions per k-tile).
  const auto slot_of = [](index_t u, int ring) { return static_cast<int>(static_cast<unsigned>(u) % static_cast<unsigned>(ring)); };
  auto fill_tile = [&](index_t u) {
    const int st = slot_of(u, S), slot = slot_of(u, R), ts = slot_of(u, RT);
    const EA* const ka = Policy::entry_ring ? a_ring + slot * BK : a_ks + (kt0 + u) * BK;
    const EB* const kb = Policy::entry_ring ? b_ring + slot * BK : b_ks + (kt0 + u) * BK;
    // The prologue's S-1 fills read their summaries from global memory: waiting for a ring copy there
    // would put an L2 round trip into every block's set-up.
    const bool ring_in = plan::kt_ring > 0 && u >= D;
    fill_stage<BM, BK, threads, shared_views<Batch>>(As + st * BM * BK, a_rows_fast, v.a, g, m0, M, kt0 + u, K, la.a.vectors, tid, a_rows, ka,
                                                     ring_in ? a_kts + ts : a_kt + kt0 + u);
    fill_stage<BN, BK, threads, shared_views<Batch>>(Bs + st * BN * BK, b_rows_fast, v.b, g, n0, N, kt0 + u, K, la.b.vectors, tid, b_rows, kb,
                                                     ring_in ? b_kts + ts : b_kt + kt0 + u);
  };
  // The k entries (where the policy has their ring) and the k-tile summaries of relative k-tile u into
  // their ring slots (asynchronous copies, in the open group; the summaries by the last threads).
  auto fetch_entries = [&](index_t u) {
    if constexpr (Policy::entry_ring) {
      const int slot = static_cast<int>(u % R);
      if constexpr (SA::on) copy_entries<BK, threads>(a_ring + slot * BK, a_ks + (kt0 + u) * BK, tid);
      if constexpr (SB::on) copy_entries<BK, threads>(b_ring + slot * BK, b_ks + (kt0 + u) * BK, tid);
    }
    if constexpr (plan::kt_ring > 0) {
      const int ts = static_cast<int>(u % RT);
      constexpr int pa = sizeof(TA) / 16, pb = sizeof(TB) / 16;
      if constexpr (SA::on) copy_entries<1, threads>(a_kts + ts, a_kt + kt0 + u, tid, threads - pa - pb);
      if constexpr (SB::on) copy_entries<1, threads>(b_kts + ts, b_kt + kt0 + u, tid, threads - pb);
    }
  };
  // Each lane's ldmatrix addresses within a stage, worked out once (the swizzled tile's index
  // arithmetic stays out of the main loop). Lane l addresses row l % 8 of 8x8 tile l / 8. A: tiles
  // (rows +0/+8) x (k +0/+8), the four registers of an m16k16 fragment; B: tiles (k +0/+8) x
  // (n +0/+8), two n8 fragments.
  constexpr int KS = BK / Atom::K;
  int a_ld[ldm ? TM : 1][KS], b_ld[ldm ? TN / 2 : 1][KS];
  if constexpr (ldm) {
    const int q = lane / 8, i8 = lane % 8;
    TG_UNROLL for (int ks = 0; ks < KS; ++ks) {
      TG_UNROLL for (int i = 0; i < TM; ++i) {
        const int r = wm * WM + i * Atom::M + (q & 1) * 8, k = ks * Atom::K + (q >> 1) * 8;
        a_ld[i][ks] = static_cast<int>(a_rows_fast ? a_kr.offset({{r, k + i8}}) : a_rk.offset({{r + i8, k}}));
      }
      TG_UNROLL for (int j = 0; j < TN; j += 2) {
        const int n = wn * WN + j * Atom::N + (q >> 1) * 8, k = ks * Atom::K + (q & 1) * 8;
        b_ld[j / 2][ks] = static_cast<int>(b_rows_fast ? b_kr.offset({{n, k + i8}}) : b_rk.offset({{n + i8, k}}));
      }
    }
  }
  // Waits for all but Pending wgmma batches, then marks the accumulators as written there.
  auto wgmma_done = [&]<int Pending>() {
#if defined(TG_NV_WGMMA)
    arch::wgmma_wait<Pending>();
    TG_UNROLL for (int i = 0; i < TM; ++i) arch::wgmma_pin(acc[i]);
#endif
  };
  // Shared -> fragments -> matrix cores, for the k-tile in stage st (wg_async: issued, not waited for).
  auto compute = [&](int st) {
    const E* a = As + st * BM * BK;
    const E* b = Bs + st * BN * BK;
    if constexpr (wg) {
#if defined(TG_NV_WGMMA)
      // Both operands by descriptor (wgmma_operand). The orientations are immediates of the
      // instruction, so the k-tile's loop is instantiated per orientation pair and chosen once here
      // (a choice per instruction made ptxas add a warpgroup.arrive before each). The batch is waited
      // for here: the next k-tile's fill overwrites this stage after the next barrier.
      const auto a_addr = arch::smem_addr(a), b_addr = arch::smem_addr(b);
      constexpr bool bf16 = Atom::input == arch::atom_input::bf16;
      auto run = [&](auto a_mn, auto b_mn) {
        constexpr bool AMn = decltype(a_mn)::value, BMn = decltype(b_mn)::value;
        // Each descriptor is the tile's plus a constant (wgmma_sub_offset): one add, not ~8 instructions.
        const std::uint64_t a_desc = wgmma_tile_desc<BM, BK, E, AMn>(a_addr) + wgmma_sub_offset<BM, BK, E, AMn>((warp / 4) * (BM / WG), 0);
        const std::uint64_t b_desc = wgmma_tile_desc<BN, BK, E, BMn>(b_addr);
        arch::wgmma_fence();
        TG_UNROLL for (int ks = 0; ks < BK; ks += 16)
          TG_UNROLL for (int i = 0; i < TM; ++i)
            arch::wgmma_m64k16<BN, bf16, AMn, BMn>(acc[i], a_desc + wgmma_sub_offset<BM, BK, E, AMn>(i * 64, ks),
                                                   b_desc + wgmma_sub_offset<BN, BK, E, BMn>(0, ks));
        arch::wgmma_commit();
        if constexpr (!wg_async) wgmma_done.template operator()<0>();
      };
      using yes = std::true_type;
      using no = std::false_type;
      if (a_rows_fast) b_rows_fast ? run(yes{}, yes{}) : run(yes{}, no{});
      else b_rows_fast ? run(no{}, yes{}) : run(no{}, no{});
#endif
    } else if constexpr (ldm) {
#if defined(TG_NV_LDMATRIX)
      TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
        std::uint32_t fa[TM][4], fb[TN][2];
        TG_UNROLL for (int i = 0; i < TM; ++i) {
          if (a_rows_fast) arch::ldmatrix_x4<true>(fa[i], a + a_ld[i][ks / Atom::K]);
          else arch::ldmatrix_x4<false>(fa[i], a + a_ld[i][ks / Atom::K]);
        }
        TG_UNROLL for (int j = 0; j < TN; j += 2) {
          std::uint32_t r4[4];
          if (b_rows_fast) arch::ldmatrix_x4<true>(r4, b + b_ld[j / 2][ks / Atom::K]);
          else arch::ldmatrix_x4<false>(r4, b + b_ld[j / 2][ks / Atom::K]);
          fb[j][0] = r4[0]; fb[j][1] = r4[1]; fb[j + 1][0] = r4[2]; fb[j + 1][1] = r4[3];
        }
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j) Atom::mma(acc[i][j], fa[i], fb[j]);
      }
#endif
    } else {
      const auto a_frag = arch::fragment_distribution<Atom>::a();
      const auto b_frag = arch::fragment_distribution<Atom>::b();
      auto run = [&](const auto& a_smem, const auto& b_smem) {
        TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
          distributed_tensor<E, Atom::a_per_lane> fa[TM];
          distributed_tensor<E, Atom::b_per_lane> fb[TN];
          TG_UNROLL for (int i = 0; i < TM; ++i) fa[i] = load_tile<Atom::a_per_lane>(make_tile_window(a_smem, {{wm * WM + i * Atom::M, ks}}), a_frag, lane);
          TG_UNROLL for (int j = 0; j < TN; ++j) fb[j] = load_tile<Atom::b_per_lane>(make_tile_window(b_smem, {{ks, wn * WN + j * Atom::N}}), b_frag, lane);
          TG_UNROLL for (int i = 0; i < TM; ++i)
            TG_UNROLL for (int j = 0; j < TN; ++j) arch::mma<Atom>(acc[i][j], fa[i].data, fb[j].data);
        }
      };
      // Fragments index B as (k, n).
      const bool ar = a_rows_fast, br = b_rows_fast;
      if (ar && br) run(make_view(a, a_kr), make_view(b, reorder(b_kr, seq<1, 0>{})));
      else if (ar) run(make_view(a, a_kr), make_view(b, reorder(b_rk, seq<1, 0>{})));
      else if (br) run(make_view(a, a_rk), make_view(b, reorder(b_kr, seq<1, 0>{})));
      else run(make_view(a, a_rk), make_view(b, reorder(b_rk, seq<1, 0>{})));
    }
  };

  // Pipeline of S stages, one barrier per k-tile. Before the loop the first D tiles are requested;
  // at iteration kt (after the barrier, tile kt has landed and every warp is done with the stage it
  // will fill): request tile kt+D, then compute tile kt. Each iteration commits one copy group
  // (possibly empty), so "all but D-1 groups done" means tile kt is in. The k entries and summaries
  // of tile u travel in the group of tile u-D (the first D tiles' before the prologue). wg_async
  // (D = S-2): wgmma of tile kt is issued before the fill of tile kt+D and waited for (one batch
  // left pending) after it, so the tensor cores run during the fill's instructions; the stage filled,
  // (kt-2) % S, was last read by the batch every warp waited for before this barrier.
  const index_t nk = kt1 - kt0;
  if constexpr (Policy::entry_ring) {  // the first D tiles' k entries (their summaries come from global)
    for (int u = 0; u < D && u < nk; ++u) fetch_entries(u);
    arch::async_commit();
    arch::async_wait<0>();
  }
  __syncthreads();  // the row entries (and the first k entries)
  for (int st = 0; st < D; ++st) {
    if (st < nk) fill_tile(st);
    if (st + D < nk) fetch_entries(st + D);
    arch::async_commit();
  }
  for (index_t i = 0; i < nk; ++i) {
    arch::async_wait<D - 1>();
#if defined(TG_NV_WGMMA)
    if constexpr (wg) arch::fence_proxy_async_shared();  // this thread's tile writes, before wgmma reads them
#endif
    __syncthreads();
    if constexpr (wg_async) compute(slot_of(i, S));
    if (i + D < nk) fill_tile(i + D);
    if (i + 2 * D < nk) fetch_entries(i + 2 * D);
    arch::async_commit();
    if constexpr (wg_async) wgmma_done.template operator()<1>();
    else compute(slot_of(i, S));
  }
  if constexpr (wg_async) wgmma_done.template operator()<0>();
  arch::async_wait<0>();
  __syncthreads();  // the tiles' space is reused for the C tile's entries below

  // Epilogue. The C tile's row and column entries are tabulated once. A plain store (one split, the
  // common case) stages the tile in shared memory and writes it out in 16-byte runs; accumulation and
  // split-K partial sums go element by element from the fragments.
  using EOut = elem_t<decltype(V::c)>;
  constexpr int VC = 16 / sizeof(EOut);
  EC* const c_rows = reinterpret_cast<EC*>(smem + plan::c_rows);
  EC* const c_cols = reinterpret_cast<EC*>(smem + plan::c_cols);
  if constexpr (SC::on) {
    tabulate<BM, VC>(c_rows, v.c, g, 1, m0, tid, threads);
    tabulate<BN, VC>(c_cols, v.c, g, 2, n0, tid, threads);
  }
  const auto c_frag = arch::fragment_distribution<Atom>::c();
  if constexpr (SC::on) {
    if (la.splits == 1 && ep.op == epilogue_op::store) {
      EOut* const ct = reinterpret_cast<EOut*>(smem + plan::c_tile);
      const auto c_rc = smem_tile_desc<BM, BN, EOut>();
      const auto c_cr = reorder(smem_tile_desc<BN, BM, EOut>(), seq<1, 0>{});
      auto stage = [&](const auto& tile) {
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j)
            TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
              const auto rc = c_frag.coord(lane, e);
              const int mm = frag_row(i) + static_cast<int>(rc[0]), nn = frag_col(j) + static_cast<int>(rc[1]);
              ct[tile.offset({{mm, nn}})] = arch::cvt_from_float<EOut>(ep.alpha * acc[i][j][e]);
            }
      };
      if (c_rows_fast) stage(c_cr); else stage(c_rc);
      __syncthreads();
      const auto cols = column_tile<BN, threads, decltype(V::c)>(c_cols, n0, N, tid);
      if (cols.uniform) {
        if (c_rows_fast) drain_uniform<true, BM, BN, threads>(ct, c_cr, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        else drain_uniform<false, BM, BN, threads>(ct, c_rc, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        return;
      }
      if (c_rows_fast) drain_tile<true, BM, BN, threads>(ct, c_cr, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      else drain_tile<false, BM, BN, threads>(ct, c_rc, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      return;
    }
    __syncthreads();
  }
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
        const auto rc = c_frag.coord(lane, e);
        const int mm = frag_row(i) + static_cast<int>(rc[0]), nn = frag_col(j) + static_cast<int>(rc[1]);
        const index_t m = m0 + mm, n = n0 + nn;
        if (m >= M || n >= N) continue;
        if (la.splits > 1 && la.mode == split_k_mode::deterministic) {
          la.workspace[((s * G + g) * M + m) * N + n] = acc[i][j][e];
          continue;
        }
        index_t off = -1;  // the element's offset in C, -1 where it is not stored (padding)
        if constexpr (SC::on) {
          off = affine_offset(v.c, c_rows[mm], c_cols[nn]);
        } else {
          const multi_index<3> c{{g, m, n}};
          if (v.c.desc.is_valid(c)) off = v.c.desc.offset(c);
        }
        if (off < 0) continue;
        if (la.splits == 1) {
          const float old = ep.op == epilogue_op::accumulate ? arch::cvt_to_float(v.c.data[off]) : 0.0f;
          v.c.data[off] = arch::cvt_from_float<EOut>(ep.apply(acc[i][j][e], old));
        } else if constexpr (std::is_same_v<EOut, float>) {
          arch::atomic_add(&v.c.data[off], ep.alpha * acc[i][j][e]);
        }
      }
}

// The k entries of every view of the batch (they depend on k alone, not on the row or the group):
// made once per launch here instead of per block and k-tile, since they cost merge divisions. Slot kp
// holds reduction index order(kp) (k_order.hpp); a reordered walk has no runs along k.
template <int VA, class Batch, class EA, class EB>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) k_entries_kernel(Batch batch, EA* a, EB* b, index_t k_stride, k_order order) {
  const index_t total = batch.count() * k_stride;
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t t = l / k_stride, kp = l % k_stride;
    const auto v = batch.views(t);
    if (kp >= v.k()) continue;
    const index_t k = order(kp);
    const int runs = order.identity() ? 1 : 0;
    if constexpr (affine_split<decltype(v.a)>::on) {
      a[l] = affine_entry<VA>(v.a, 0, 2, k);
      a[l].run &= runs;
    }
    if constexpr (affine_split<decltype(v.b)>::on) {
      b[l] = affine_entry<VA>(v.b, 0, 2, k);
      b[l].run &= runs;
    }
  }
}

// Every view of the batch, built once per launch for the GEMM blocks to copy.
template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(64, 2) views_kernel(Batch batch, void* views) {  // void*: a decltype in the signature defeats demanglers
  using V = decltype(batch.views(0));
  V* const out = static_cast<V*>(views);
  for (index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; t < batch.count(); t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    new (out + t) V(batch.views(t));  // member-wise: a memcpy from a local put it on the stack (AMD scratch)
  }
}

// The k-tile summaries (affine_split::k_tile) of every view's k entries, tiles of BK.
template <int BK, class Batch, class EA, class EB, class TA, class TB>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) k_tiles_kernel(Batch batch, const EA* a, const EB* b, TA* ta, TB* tb, index_t k_stride) {
  using V = decltype(batch.views(0));
  const index_t per = k_stride / BK, total = batch.count() * per;
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t t = l / per, k0 = l % per * BK, K = batch.views(t).k();
    if (k0 >= K) continue;
    if constexpr (affine_split<decltype(V::a)>::on) ta[l] = affine_k_tile<BK, decltype(V::a)>(a + t * k_stride, k0, K);
    if constexpr (affine_split<decltype(V::b)>::on) tb[l] = affine_k_tile<BK, decltype(V::b)>(b + t * k_stride, k0, K);
  }
}

// Deterministic split-K: partial sums added in chunk order, then the epilogue.
template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) splitk_reduce_kernel(Batch batch, gemm_epilogue ep, const float* ws, int splits, array<int, 3> order) {
  const auto v = batch.views(0);
  const multi_index<3> len{{v.groups(), v.m(), v.n()}};
  const index_t total = len[0] * len[1] * len[2];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const multi_index<3> c = index_in_order(l, len, order);
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += ws[((s * len[0] + c[0]) * len[1] + c[1]) * len[2] + c[2]];
    v.c.store(c, ep.apply(acc, ep.op == epilogue_op::accumulate ? v.c.load(c) : 0.0f));
  }
}

template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) fill_kernel(Batch batch, float value, array<int, 3> order) {
  const auto v = batch.views(0);
  const multi_index<3> len{{v.groups(), v.m(), v.n()}};
  const index_t total = len[0] * len[1] * len[2];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x)
    v.c.store(index_in_order(l, len, order), value);
}

// How far one step along top dimension `dim` of a [G, rows, K] view moves in memory (affine views).
template <class Desc>
index_t step_along(const Desc& d, int dim) {
  multi_index<3> e{};
  e[dim] = 1;
  return d.offset(e) - d.offset(multi_index<3>{});
}
template <class Desc>
bool unit_step(const Desc& d, int dim) {
  return d.length(dim) > 1 && step_along(d, dim) == 1;
}

// The affine_split k entries of every view of the batch, [batch][k_stride], made on the device
// (k_entries_kernel); null for an operand that is not an affine split.
// Several scratch arrays of one launch carved from a single arena request (each 256-byte aligned):
// scratch_arena reuses its memory when a request does not fit, which is safe between launches (it
// drains the stream first) but not between two requests of one launch whose kernels have not run yet.
struct scratch_carve {
  std::size_t bytes = 0;
  template <class T>
  std::size_t add(index_t n) {
    const std::size_t at = bytes;
    bytes += (static_cast<std::size_t>(n) * sizeof(T) + 255) / 256 * 256;
    return at;
  }
};

// The affine_split k entries of every view of the batch, [batch][k_stride], made on the device
// (k_entries_kernel) into `a` and `b` (scratch the caller carved; unused for an operand that is not an
// affine split), in the reduction order `order`.
template <class Batch, class EA, class EB>
void make_k_entries(gpu_backend& be, const Batch& batch, index_t k_stride, EA* a, EB* b, k_order order = {}) {
  using V = decltype(batch.views(0));
  if constexpr (affine_split<decltype(V::a)>::on || affine_split<decltype(V::b)>::on) {
    constexpr int VA = 16 / sizeof(elem_t<decltype(V::a)>);
    TG_LAUNCH((k_entries_kernel<VA, Batch, EA, EB>), grid_for(batch.count() * k_stride, 256), 256, 0, be.stream, batch, a, b, k_stride, order);
  }
}

// An operand's staging: rows-fast when the rows step through memory by one; 16-byte pieces when the
// view is an affine split (its entries find the runs) and the pointer is 16-byte aligned.
template <class View>
operand_mode mode_of(const View& v) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0;
  return {unit_step(v.desc, 1), affine_split<View>::on && aligned};
}

template <class Policy, class Batch>
void launch(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, index_t max_tiles, index_t G) {
  using V = decltype(batch.views(0));
  using SA = affine_split<decltype(V::a)>;
  using SB = affine_split<decltype(V::b)>;
  using EA = typename SA::entry;
  using EB = typename SB::entry;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  constexpr bool tables = SA::on || SB::on;
  const V v0 = batch.views(0);
  launch_args la{1, mode_of(v0.a), mode_of(v0.b), mode_of(v0.c), nullptr, nullptr, nullptr, nullptr, nullptr, 0, pol.mode, nullptr};
  for (index_t t = 0; t < batch.count(); ++t) la.k_stride = batch.views(t).k() > la.k_stride ? batch.views(t).k() : la.k_stride;
  // Rounded up to whole k-tiles: the last tile's fill reads entries past K (and ignores them).
  la.k_stride = ceil_div(la.k_stride, Policy::BK) * Policy::BK;
  const index_t KT = (v0.k() + Policy::BK - 1) / Policy::BK;
  constexpr std::size_t shared = smem_plan<Policy, V, shared_views<Batch>>::bytes;
  static const int resident = [] {  // once per kernel
    arch::allow_dynamic_shared(&gemm_kernel<Policy, Batch>, shared);
    return arch::resident_blocks(&gemm_kernel<Policy, Batch>, threads_of<Policy, V>(), shared);
  }();
  index_t want = pol.k_splits;
  if (want <= 0)  // automatic: waves of resident blocks filled (split_k_chunks), each chunk at least 8 k-tiles
    want = split_k_chunks(max_tiles * G, static_cast<index_t>(resident) * be.processors(), KT / 8);
  if (batch.count() == 1 && want > 1 && KT > 1) la.splits = static_cast<int>(want < KT ? want : KT);
  constexpr bool c_is_float = std::is_same_v<elem_t<decltype(V::c)>, float>;
  if (la.mode == split_k_mode::atomic && (!c_is_float || ep.op != epilogue_op::store)) la.mode = split_k_mode::deterministic;
  const bool workspace = la.splits > 1 && la.mode == split_k_mode::deterministic;

  // The launch's scratch, one request: k entries, k-tile summaries, views, split-K workspace.
  const index_t n_entries = tables ? batch.count() * la.k_stride : 0, n_tiles = tables ? batch.count() * (la.k_stride / Policy::BK) : 0;
  scratch_carve sc;
  const std::size_t at_ea = sc.add<EA>(n_entries), at_eb = sc.add<EB>(n_entries), at_ta = sc.add<TA>(n_tiles), at_tb = sc.add<TB>(n_tiles);
  const std::size_t at_views = sc.add<V>(shared_views<Batch> ? batch.count() : 0);
  const std::size_t at_ws = sc.add<float>(workspace ? la.splits * G * v0.m() * v0.n() : 0);
  unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
  if constexpr (shared_views<Batch>) {
    V* views = reinterpret_cast<V*>(base + at_views);
    TG_LAUNCH((views_kernel<Batch>), grid_for(batch.count(), 64), 64, 0, be.stream, batch, views);
    la.views = views;
  }
  if constexpr (tables) {
    EA* ea = reinterpret_cast<EA*>(base + at_ea);
    EB* eb = reinterpret_cast<EB*>(base + at_eb);
    TA* ta = reinterpret_cast<TA*>(base + at_ta);
    TB* tb = reinterpret_cast<TB*>(base + at_tb);
    // Single GEMMs whose operands both have contiguous rows (channels-last backward weight) walk the
    // reduction with its outermost coordinate fastest, so that their k-tiles are uniform (k_order.hpp).
    k_order order{};
    if constexpr (is_single_gemm<Batch>::value && SA::on && SB::on)
      if (la.a.rows_fast && la.b.rows_fast) order = reduction_order<Policy::BK>(v0.a, v0.b);
    make_k_entries(be, batch, la.k_stride, ea, eb, order);
    TG_LAUNCH((k_tiles_kernel<Policy::BK, Batch, EA, EB, TA, TB>), grid_for(n_tiles, 256), 256, 0, be.stream, batch, ea, eb, ta, tb, la.k_stride);
    la.a_ks = ea;
    la.b_ks = eb;
    la.a_kt = ta;
    la.b_kt = tb;
  }
  if (workspace) la.workspace = reinterpret_cast<float*>(base + at_ws);
  const auto order = memory_order(v0.c.desc);
  if (la.splits > 1 && la.mode == split_k_mode::atomic)
    TG_LAUNCH((fill_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, 0.0f, order);
  const dim3 grid(static_cast<unsigned>(max_tiles), static_cast<unsigned>(G * la.splits), static_cast<unsigned>(batch.count()));
  TG_LAUNCH((gemm_kernel<Policy, Batch>), grid, threads_of<Policy, V>(), shared, be.stream, batch, ep, la);
  if (la.workspace)
    TG_LAUNCH((splitk_reduce_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, ep, la.workspace, la.splits, order);
}

// Small-M GEMMs (gemm_small.hpp): a single GEMM of affine-split operands with few rows per group
// (gemm_tile_table::small_max_m).
template <class Batch>
constexpr bool small_m_ok() {
  using V = decltype(std::declval<Batch>().views(0));
  return is_single_gemm<Batch>::value && affine_split<decltype(V::a)>::on && affine_split<decltype(V::b)>::on;
}
template <int MR, int NR, int GV, class Batch>
void launch_small_as(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, bool g_lanes) {
  using V = decltype(batch.views(0));
  const V v = batch.views(0);
  const index_t G = v.groups(), M = v.m(), N = v.n(), K = v.k();
  small_args sa{g_lanes, 1, K, nullptr, nullptr, nullptr};
  const index_t gx = sa.g_lanes ? ceil_div(G, index_t{small_lanes} * GV) : G, ny = ceil_div(N, index_t{NR});
  const index_t step = sa.g_lanes ? small_threads / small_lanes : small_threads;
  index_t want = pol.k_splits;
  if (want <= 0) {  // about four blocks per multiprocessor in whole waves, each thread at least 16 k
    static const int resident = arch::resident_blocks(&gemm_small_kernel<MR, NR, GV, V>, small_threads, 0);
    const index_t waves = resident < 4 ? ceil_div(index_t{4}, index_t{resident}) : 1;
    want = split_k_chunks(gx * ny, waves * resident * be.processors(), K / (16 * step));
  }
  want = want < K ? want : K;
  want = want < 65535 ? want : 65535;
  sa.chunk = want > 0 ? ceil_div(K, want) : 1;  // K = 0: one empty chunk, C = epilogue(0)
  sa.splits = K > 0 ? static_cast<int>(ceil_div(K, sa.chunk)) : 1;
  // The launch's scratch, one request (scratch_carve): k entries and split-K workspace.
  using EA = typename affine_split<decltype(V::a)>::entry;
  using EB = typename affine_split<decltype(V::b)>::entry;
  scratch_carve sc;
  const std::size_t at_ea = sc.add<EA>(K), at_eb = sc.add<EB>(K), at_ws = sc.add<float>(sa.splits * G * M * N);
  unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
  EA* ea = reinterpret_cast<EA*>(base + at_ea);
  EB* eb = reinterpret_cast<EB*>(base + at_eb);
  make_k_entries(be, batch, K, ea, eb);
  sa.a_ks = ea;
  sa.b_ks = eb;
  sa.workspace = reinterpret_cast<float*>(base + at_ws);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(ny), static_cast<unsigned>(sa.splits));
  TG_LAUNCH((gemm_small_kernel<MR, NR, GV, V>), grid, small_threads, 0, be.stream, v, sa);
  TG_LAUNCH((splitk_reduce_kernel<Batch>), grid_for(G * M * N, 256), 256, 0, be.stream, batch, ep, sa.workspace, sa.splits,
            memory_order(v.c.desc));
}

// Lanes along the group when B's groups lie closer together in memory than its k. One row per group
// with both operands' groups one element apart (channels-last depthwise) takes group words where the
// architecture has them (GroupWords): 16 bytes of groups per thread, 4 columns (8 spilled under the
// one-row kernel's 128 registers); else 8 columns (taps, or one tap's 8 channels) per thread.
template <int MR, bool GroupWords, class Batch>
void launch_small(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol) {
  using V = decltype(batch.views(0));
  const V v = batch.views(0);
  auto stride = [&](const auto& d, int dim) {
    const index_t s = step_along(d, dim);
    return s < 0 ? -s : s;
  };
  const bool g_lanes = v.groups() > 1 && v.k() > 1 && stride(v.b.desc, 0) < stride(v.b.desc, 2);
  if constexpr (MR == 1 && GroupWords) {
    constexpr int GV = 16 / sizeof(elem_t<decltype(V::b)>);
    if (g_lanes && unit_groups(v.a) && unit_groups(v.b))
      return launch_small_as<1, 4, GV>(be, batch, ep, pol, true);
  }
  launch_small_as<MR, 8, 1>(be, batch, ep, pol, g_lanes);
}
}  // namespace gpu_gemm

// The tile table: the schedule per problem shape, op and architecture. Entries are compile-time
// tile shapes (each one more instantiation of the kernel); the choice is made per problem here.
// NVIDIA (cp.async pipeline; wgmma from the shared tiles on sm_90a for 16-bit main and half_n tiles,
// ldmatrix fragments and mma.sync otherwise):
//   main    128x128x32, 4 stages (3 for fp32): 2x2 warps for 16-bit batches (backward data), 2x4
//           for single GEMMs (backward weight) and fp32; 16-bit batches take 128x128x64 in 3 stages.
//           wgmma tiles keep each k-tile's batch in flight during the next fill, except 16-bit batches.
//   narrow  32x64x32, 1x4 warps, 4 stages: single GEMMs with 9 to 32 rows (grouped backward weight,
//           M = K/G), where a wider tile would compute mostly padding. 1 to 8 rows (depthwise,
//           resnext): the small-M kernel on the ordinary cores (gemm_small.hpp), small_max_m.
//   half_n  128x64x32, 2x2 warps: batches with at most 64 columns (backward data, C <= 64).
// AMD (copies through registers, 64 KiB of LDS): wide 64x64x32 with 2x2 waves of 64, and narrow
// 32x64x32 with 1x2 waves, both two stages; the small-M kernel for one row only (its 8-row form needs
// 255 VGPRs plus AGPRs there, one wave per SIMD).
template <class Batch>
struct gemm_tile_table {
#if defined(__HIP__)
  using main = gpu_gemm::tile_policy<64, 64, 32, 2, 2, 2>;
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 2, 2>;
  using half_n = main;  // main is 64 columns wide already
  static constexpr int small_max_m = 1;
  static constexpr bool small_group_words = false;  // not built for AMD yet (no ISA budget measured)
#else
  using E = gpu_gemm::elem_t<decltype(std::declval<Batch>().views(0).a)>;
  // Batches of GEMMs (col2im classes: backward data) 2x2 warps of 64x64 (half the shared-memory
  // traffic per mma); single GEMMs (backward weight: long split-K reductions, fill-bound) 2x4 warps of
  // 64x32, where 2x2 measured slower (performance.md v16).
  // fp32 (tf32 atoms: twice the fragment registers) keeps 2x4 everywhere: 2x2 needed stack on sm_80.
  // The k-entry ring (section 9 of performance.md) for single GEMMs (backward weight: B's k-tiles are
  // not uniform) where it measured faster: fp32 and the narrow tile; fp16's main tile went from 128
  // to 168 registers with it (one block per SM) and slower.
  static constexpr bool single = is_single_gemm<Batch>::value;
  // 16-bit batches: k-tiles of 64 in 3 stages, each wgmma batch waited for (BK 32 with the batch in
  // flight measured 9% slower on the seed case, 15% in NCHW: performance.md section 13).
  static constexpr bool b16_batch = !single && sizeof(E) == 2;
  using main = gpu_gemm::tile_policy<128, 128, b16_batch ? 64 : 32, 2, single || sizeof(E) != 2 ? 4 : 2, sizeof(E) == 2 ? (b16_batch ? 3 : 4) : 3,
                                     single && sizeof(E) != 2, !b16_batch>;
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 4, 4, true>;
  // Batches of GEMMs with at most 64 columns (backward data with C <= 64): 128x64, 2x2 warps of 64x32,
  // where main's 128 columns would be half padding.
  using half_n = gpu_gemm::tile_policy<128, 64, 32, 2, 2, sizeof(E) == 2 ? 4 : 3>;
  static constexpr int small_max_m = 8;  // most rows per group for the small-M kernel
  static constexpr bool small_group_words = TG_SMALL_GROUP_WORDS;  // one-row GEMMs with groups one element apart: group words
#endif
  static constexpr bool has_narrow = is_single_gemm<Batch>::value;
  static constexpr bool has_half_n = !is_single_gemm<Batch>::value;
};

// The cp.async pipeline (AMD, sm_80, and what the TMA pipeline does not take: gemm_dispatch.hpp).
template <class Batch>
void gemm_cp_async(gpu_backend& be, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  using table = gemm_tile_table<Batch>;
  index_t max_m = 0, max_n = 0, G = 0;
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    G = v.groups();
    max_m = v.m() > max_m ? v.m() : max_m;
    max_n = v.n() > max_n ? v.n() : max_n;
  }
  if (G == 0 || max_m == 0 || max_n == 0) return;
  auto tiles = [&](auto policy) {
    using P = decltype(policy);
    return ceil_div(max_m, P::BM) * ceil_div(max_n, P::BN);
  };
  if constexpr (gpu_gemm::small_m_ok<Batch>()) {
    if (max_m == 1) return gpu_gemm::launch_small<1, table::small_group_words>(be, batch, ep, pol);  // depthwise
    if constexpr (table::small_max_m > 1) {
      if (max_m <= table::small_max_m) return gpu_gemm::launch_small<table::small_max_m, false>(be, batch, ep, pol);
    }
  }
  if constexpr (table::has_narrow) {
    if (max_m <= table::narrow::BM) return gpu_gemm::launch<typename table::narrow>(be, batch, ep, pol, tiles(typename table::narrow{}), G);
  }
  if constexpr (table::has_half_n && !std::is_same_v<typename table::half_n, typename table::main>) {
    if (max_n <= table::half_n::BN) return gpu_gemm::launch<typename table::half_n>(be, batch, ep, pol, tiles(typename table::half_n{}), G);
  }
  gpu_gemm::launch<typename table::main>(be, batch, ep, pol, tiles(typename table::main{}), G);
}
}  // namespace tg
