// The epilogue of a consumer warpgroup: its accumulators (a split tile's whole sum, split_reduce.hpp)
// go to C. Each thread holds, per m64 block, two rows and pairs of adjacent columns (wgmma's
// accumulator layout); it works out its rows' C offsets from their digits once (params.hpp). Where
// C's tile columns are contiguous (c_vectors) each warp passes its rows through 16 rows of shared
// memory of its own (a 16-byte run of a row per lane: whole lines of C per store); else each element
// is stored from registers at its row's offset plus its column's; or, where C's tiles are TMA boxes
// (c_tma), the warp stages its rows as boxes and one lane stores them. Rows and columns past the GEMM's
// edge are not written. The stage ring is not touched: the next tile's copies run meanwhile.
#pragma once
#include "arch/block.hpp"
#include "arch/convert.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
template <class E>
__device__ inline void store_pair(E* p, float x, float y, bool both) {
  if (both) {
    struct alignas(4) two { E a, b; };
    *reinterpret_cast<two*>(p) = two{arch::cvt_from_float<E>(x), arch::cvt_from_float<E>(y)};
  } else {
    p[0] = arch::cvt_from_float<E>(x);
  }
}

// Where one consumer thread's accumulator pieces go in C: its rows' offsets worked out once per unit,
// then piece (b, j) (rows 64 b + lane/4 + 8 h of its warp's 16, columns 8 j + 2 quad + e) stored by
// piece(). t: the thread's index in its warpgroup, wg: the warpgroup's among the consumers.
template <class E, class P>
struct c_writer {
  E* out;
  float alpha;
  bool vectors;
  int quad, left = 0;        // left: columns of this tile inside N (vectors)
  long long col0 = 0;        // C's offset of the tile's first column (vectors)
  int cn[nd];
  const gemm_class& c;
  long long row_off[P::row_blocks][2];
  bool row_ok[P::row_blocks][2];

  // only: the one m64 block whose rows are worked out (-1: all; the others then are never stored).
  __device__ c_writer(const launch_args& a, const gemm_class& cls, const unit& w, int wg, int t, int only = -1)
      : out(static_cast<E*>(a.c)), alpha(a.alpha), vectors(a.c_vectors), quad(t % 32 % 4), c(cls) {
    const int warp = t / 32, lane = t % 32;
    int cm[nd];
    corner(c.m, w.tm, cm);
    corner(c.n, w.tn, cn);
    // Block b, half h -> tile row wg * BM/consumers + 64 b + 16 warp + lane/4 + 8 h.
    TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int h = 0; h < 2; ++h) {
      const int r = wg * (P::BM / P::consumers) + 64 * b + 16 * warp + lane / 4 + 8 * h;
      if (only >= 0 && b != only) {
        row_ok[b][h] = false, row_off[b][h] = 0;
        continue;
      }
      row_ok[b][h] = local_digits<pow2_rows<P>>(c.m, cm, r, c.c_m, row_off[b][h]);
      row_off[b][h] += c.c_off0 + c.c_g * w.g;
    }
    if (vectors) {  // one spanned column digit, contiguous in C: column i is col0 + i
      int fast = 0;
      TG_UNROLL for (int p = 0; p < nd; ++p) {
        col0 += c.c_n[p] * cn[p];
        if (c.n.ext[p] > 1) fast = p;
      }
      TG_UNROLL for (int p = 0; p < nd; ++p) if (p == fast) left = c.n.len[p] - cn[p];
    }
  }

  __device__ void piece(int b, int j, const float (&v)[4]) const {
    if (vectors) {
      const int col = 8 * j + 2 * quad;
      if (col >= left) return;
      TG_UNROLL for (int h = 0; h < 2; ++h)
        if (row_ok[b][h]) store_pair(out + row_off[b][h] + col0 + col, alpha * v[2 * h], alpha * v[2 * h + 1], col + 1 < left);
      return;
    }
    TG_UNROLL for (int e = 0; e < 2; ++e) {
      long long coff;
      if (!local_digits(c.n, cn, 8 * j + 2 * quad + e, c.c_n, coff)) continue;
      TG_UNROLL for (int h = 0; h < 2; ++h)
        if (row_ok[b][h]) out[row_off[b][h] + coff] = arch::cvt_from_float<E>(alpha * v[2 * h + e]);
    }
  }


  // Block b of the warp's rows (16 rows x BN columns, where C's columns are contiguous) through the
  // warp's staging rows in shared memory, in P::c_passes passes of BN / c_passes columns (fp32: two,
  // so that the staging leaves the ring a stage more): the pairs in, then 16-byte runs of a row out,
  // so that 8 lanes write a whole 128-byte line of C instead of 4 bytes of each of 8 rows per store.
  // The staging rows' 16-byte chunks are XOR-swizzled by row: the pairs' writes and the runs' reads
  // are both free of bank conflicts.
  __device__ void block_staged(int b, const float (&v)[P::BN / 8][4], unsigned char* rows) const {
    // V elements per 16-byte chunk (8 of 16 bits, 4 of fp32); a pair (columns 8 j + 2 quad, + 1 of the
    // pass) lies in chunk 8 j / V + 2 quad / V at byte (2 quad % V) x the element size.
    constexpr int V = 16 / static_cast<int>(sizeof(E)), cols = P::BN / P::c_passes, chunks = cols / V,
                  row_bytes = cols * static_cast<int>(sizeof(E));
    static_assert(chunks % 8 == 0, "a pass's row: whole groups of 8 chunks (the swizzle)");
    struct alignas(2 * sizeof(E)) two { E x, y; };
    const int lane = threadIdx.x % 32;
    TG_UNROLL for (int pass = 0; pass < P::c_passes; ++pass) {
      TG_UNROLL for (int jj = 0; jj < cols / 8; ++jj) TG_UNROLL for (int h = 0; h < 2; ++h) {
        const int j = pass * (cols / 8) + jj, r = lane / 4 + 8 * h, ch = 8 * jj / V + 2 * quad / V;
        *reinterpret_cast<two*>(rows + r * row_bytes + (ch ^ (r & 7)) * 16 + (2 * quad % V) * static_cast<int>(sizeof(E))) =
            two{arch::cvt_from_float<E>(alpha * v[j][2 * h]), arch::cvt_from_float<E>(alpha * v[j][2 * h + 1])};
      }
      arch::warp_sync();
      TG_UNROLL for (int i = 0; i < chunks / 2; ++i) {  // 16 x chunks runs, 32 lanes
        const int l = i * 32 + lane, r = l / chunks, ch = l % chunks, col = pass * cols + V * ch;
        // Row r's offset and bound from the lane that holds it (wgmma's layout: lane 4 (r % 8), half r / 8).
        const long long off0 = arch::warp_shuffle(row_ok[b][0] ? row_off[b][0] : -1, (r % 8) * 4);
        const long long off1 = arch::warp_shuffle(row_ok[b][1] ? row_off[b][1] : -1, (r % 8) * 4);
        const long long off = r < 8 ? off0 : off1;
        if (off < 0 || col >= left) continue;
        const unsigned char* run = rows + r * row_bytes + (ch ^ (r & 7)) * 16;
        E* const p = out + off + col0 + col;
        if (col + V <= left) {
          *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(run);
        } else {
          for (int e = 0; e < left - col; ++e) p[e] = reinterpret_cast<const E*>(run)[e];
        }
      }
      arch::warp_sync();  // the rows read before the next pass's (or block's) pairs overwrite them
    }
  }
};

// Block b of the warp's rows through its staging rows as TMA store boxes (c_tma: c_store_plan.hpp):
// the pairs in, laid out as the boxes' 128-byte swizzle wants them (a 16-row box per 64 columns), then
// one lane stores the boxes; the TMA clips what lies past C's edges and works out every address. The
// staging rows are rewritten only once the previous block's stores have read them.
template <class E, class P>
__device__ void block_stored(const launch_args& a, const gemm_class& c, const unit& w, int wg, int b, const float (&v)[P::BN / 8][4],
                             unsigned char* rows) {
  constexpr int box_bytes = c_piece_rows * c_box_cols * sizeof(E), box_chunks = c_box_cols * sizeof(E) / 16;
  struct alignas(4) two { E x, y; };
  const int lane = threadIdx.x % 32, quad = lane % 4, warp = threadIdx.x % 128 / 32;
  if (lane == 0) arch::tma_store_wait_read();
  arch::warp_sync();
  TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int h = 0; h < 2; ++h) {
    const int r = lane / 4 + 8 * h;
    *reinterpret_cast<two*>(rows + (j / box_chunks) * box_bytes + r * 128 + ((j % box_chunks) ^ (r & 7)) * 16 + 4 * quad) =
        two{arch::cvt_from_float<E>(a.alpha * v[j][2 * h]), arch::cvt_from_float<E>(a.alpha * v[j][2 * h + 1])};
  }
  arch::fence_async_shared();
  arch::warp_sync();
  if (lane != 0) return;
  // The box's corner: the piece's first row's digits (tile corner + local), the tile's first columns.
  const int r0 = wg * (P::BM / P::consumers) + 64 * b + c_piece_rows * warp;
  int cm[nd], cn[nd];
  corner(c.m, w.tm, cm);
  corner(c.n, w.tn, cn);
  TG_UNROLL for (int p = 0; p < nd; ++p) cm[p] += (r0 >> c.m.shift[p]) & (c.m.ext[p] - 1);
  const int g = static_cast<int>(w.g), x0 = c_box_corner(c.cb.axes, cm, cn, g, 0), x1 = c_box_corner(c.cb.axes, cm, cn, g, 1),
            x2 = c_box_corner(c.cb.axes, cm, cn, g, 2), x3 = c_box_corner(c.cb.axes, cm, cn, g, 3), x4 = c_box_corner(c.cb.axes, cm, cn, g, 4);
  TG_UNROLL for (int half = 0; half < P::BN / c_box_cols; ++half)
    arch::tma_store(&c.cb.map, rows + half * box_bytes, c.cb.axes.rank, x0 + half * c_box_cols, x1, x2, x3, x4);
  arch::tma_store_commit();
}

// rows: the warp's staging rows of C (shared memory), used where C's tile columns are contiguous.
template <class E, class P>
__device__ inline void epilogue(const launch_args& a, const gemm_class& c, const unit& w, const float (&acc)[P::row_blocks][P::BN / 8][4], int wg,
                                unsigned char* rows) {
  if constexpr (P::lean_consumers) {  // one block's rows at a time (plan.hpp)
    if (!a.c_vectors) {
      TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) {
        const c_writer<E, P> out(a, c, w, wg, threadIdx.x % 128, b);
        TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) out.piece(b, j, acc[b][j]);
      }
      return;
    }
  }
  if constexpr (!P::lean_consumers && P::BN % c_box_cols == 0 && sizeof(E) == 2) {  // store boxes of 16-bit C (c_store_plan.hpp)
    if (a.c_tma) {
      TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) block_stored<E, P>(a, c, w, wg, b, acc[b], rows);
      return;
    }
  }
  const c_writer<E, P> out(a, c, w, wg, threadIdx.x % 128);
  if (out.vectors) {
    TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) out.block_staged(b, acc[b], rows);
    return;
  }
  TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) out.piece(b, j, acc[b][j]);
}

// After a consumer warp's last unit: its TMA stores written (the block's shared memory ends with it).
__device__ inline void epilogue_done(const launch_args& a) {
  if (a.c_tma && threadIdx.x % 32 == 0) arch::tma_store_wait_all();
}
}  // namespace tg::tma_gemm
