// The cp.async GEMM's epilogue through shared memory: the C tile drained to its view (16-byte pieces
// where C's memory runs allow), and the block-wide test that a tile's columns are one run.
#pragma once
#include "lowering/gpu/gemm_fill.hpp"

namespace tg {
namespace gpu_gemm {
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
}  // namespace gpu_gemm
}  // namespace tg
