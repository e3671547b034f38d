// The epilogue of a consumer warpgroup: its accumulators (a split tile's whole sum, split_reduce.hpp)
// go straight from registers to C. Each thread holds, per m64 block, two rows and
// pairs of adjacent columns (wgmma's accumulator layout): it works out its rows' C offsets from their
// digits once (params.hpp), and where C's tile columns are contiguous (c_vectors) a pair is one
// 4-byte store at the row's offset plus the column; rows and columns past the GEMM's edge are not
// written. No shared memory: the stage ring keeps all of it, and the next tile's copies run meanwhile.
#pragma once
#include "arch/convert.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
// Local index i of a tile of `d`'s digits: its part of C's offset (coefs c), false past the
// dimension's edge.
__device__ inline bool local_digits(const digits& d, const int (&corner)[nd], int i, const long long (&c)[nd], long long& off) {
  bool ok = true;
  off = 0;
  TG_UNROLL for (int p = 0; p < nd; ++p) {
    const int v = corner[p] + ((i >> d.shift[p]) & (d.ext[p] - 1));
    ok = ok && v < d.len[p];
    off += c[p] * v;
  }
  return ok;
}

template <class E>
__device__ inline void store_pair(E* p, float x, float y, bool both) {
  if (both) {
    struct alignas(4) two { E a, b; };
    *reinterpret_cast<two*>(p) = two{arch::cvt_from_float<E>(x), arch::cvt_from_float<E>(y)};
  } else {
    p[0] = arch::cvt_from_float<E>(x);
  }
}

template <class E, class P>
__device__ inline void epilogue(const args& a, const gemm_class& c, const unit& w, const float (&acc)[P::row_blocks][P::BN / 8][4], int wg) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32, quad = lane % 4;
  int cm[nd], cn[nd];
  corner(c.m, w.tm, cm);
  corner(c.n, w.tn, cn);
  // This thread's rows: block b, half h -> tile row wg * BM/2 + 64 b + 16 warp + lane/4 + 8 h.
  long long row_off[P::row_blocks][2];
  bool row_ok[P::row_blocks][2];
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int h = 0; h < 2; ++h) {
    const int r = wg * (P::BM / 2) + 64 * b + 16 * warp + lane / 4 + 8 * h;
    row_ok[b][h] = local_digits(c.m, cm, r, c.c_m, row_off[b][h]);
    row_off[b][h] += c.c_off0 + c.c_g * w.g;
  }
  E* out = static_cast<E*>(a.c);
  if (a.c_vectors) {  // one spanned column digit, contiguous in C: column i is col0 + i
    long long col0 = 0;
    int fast = 0;
    TG_UNROLL for (int p = 0; p < nd; ++p) {
      col0 += c.c_n[p] * cn[p];
      if (c.n.ext[p] > 1) fast = p;
    }
    int left = 0;  // columns of this tile inside N
    TG_UNROLL for (int p = 0; p < nd; ++p) if (p == fast) left = c.n.len[p] - cn[p];
    TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) {
      const int col = 8 * j + 2 * quad;
      if (col >= left) continue;
      TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int h = 0; h < 2; ++h)
        if (row_ok[b][h]) store_pair(out + row_off[b][h] + col0 + col, a.alpha * acc[b][j][2 * h], a.alpha * acc[b][j][2 * h + 1], col + 1 < left);
    }
    return;
  }
  TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int e = 0; e < 2; ++e) {
    long long coff;
    if (!local_digits(c.n, cn, 8 * j + 2 * quad + e, c.c_n, coff)) continue;
    TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int h = 0; h < 2; ++h)
      if (row_ok[b][h]) out[row_off[b][h] + coff] = arch::cvt_from_float<E>(a.alpha * acc[b][j][2 * h + e]);
  }
}
}  // namespace tg::tma_gemm
