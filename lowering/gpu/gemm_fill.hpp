// The cp.async GEMM's operand fill: how one operand's k-tile reaches shared memory, in 16-byte
// asynchronous copies where the view's memory runs allow and element loads elsewhere; k-tiles that are
// uniform (one run per row) take the hoisted fill. gemm_kernel.hpp runs it per stage.
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
#include "arch/wgmma_nvidia.hpp"
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

#include "lowering/gpu/gemm_policy.hpp"

namespace tg {
namespace gpu_gemm {
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
template <bool RowsFast, int Rows, int BK, int Threads, int Unroll, class View, class Tile, class E, class Entry, class KTile>
__device__ inline void fill_uniform_hoisted(E* smem, const Tile& tile, const View& v, index_t r0, index_t R, bool vectors, int tid, const Entry* rows,
                                    const KTile& kt) {
  constexpr int V = 16 / sizeof(E), pieces = Rows * BK / V;
  constexpr int per_line = RowsFast ? Rows / V : BK / V;
  constexpr int lines = Threads / per_line;  // lines (rows, or k with RowsFast) one pass covers
  // The policy's fill_unroll passes at once where wgmma keeps the fragments out of registers; else one
  // (gemm_policy.hpp).
  constexpr int unrolled = arch::wgmma_device_pass ? Unroll : 1;
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
    TG_UNROLL_BY(unrolled) for (int p = 0; p < passes; ++p) {
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
      TG_UNROLL_BY(unrolled) for (int p = 0; p < passes; ++p) {
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
template <int Rows, int BK, int Threads, bool SharedViews, int Unroll, class View, class E, class Entry, class KTile>
__device__ inline void fill_stage(E* smem, bool rows_fast, const View& v, index_t g, index_t r0, index_t R, index_t kt, index_t K,
                                  bool vectors, int tid, const Entry* rows, const Entry* tile_ks, const KTile* kt_sum) {
  const auto rk = smem_tile_desc<Rows, BK, E>();
  const auto kr = reorder(smem_tile_desc<BK, Rows, E>(), seq<1, 0>{});
  if constexpr (affine_split<View>::on) {
    const KTile t = *kt_sum;
    if (t.uniform) {
      if constexpr (SharedViews) {
        if (rows_fast) fill_uniform_hoisted<true, Rows, BK, Threads, Unroll>(smem, kr, v, r0, R, vectors, tid, rows, t);
        else fill_uniform_hoisted<false, Rows, BK, Threads, Unroll>(smem, rk, v, r0, R, vectors, tid, rows, t);
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
}  // namespace gpu_gemm
}  // namespace tg
