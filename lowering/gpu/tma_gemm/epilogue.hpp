// The epilogue of a consumer warpgroup: its 64 x BN accumulators go to C through a staging tile in
// shared memory, so that C is written in 16-byte runs (or to the fp32 split-K workspace, element by
// element, when the reduction is split). A row's C offset comes from its digits (the M tile's
// extents in smem order, params.hpp); rows and columns past the GEMM's edge are not written.
#pragma once
#include "arch/convert.hpp"
#include "arch/mbarrier_nvidia.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
// Local index i of a tile of `d`'s digits: the C offset part (coefs c) and the merged index part (ws),
// false past the dimension's edge.
__device__ inline bool local_digits(const digits& d, const int (&corner)[nd], int i, const long long (&c)[nd], const long long (&ws)[nd],
                                    long long& off, long long& merged) {
  bool ok = true;
  off = 0, merged = 0;
  TG_UNROLL for (int p = 0; p < nd; ++p) {
    const int v = corner[p] + ((i >> d.shift[p]) & (d.ext[p] - 1));
    ok = ok && v < d.len[p];
    off += c[p] * v;
    merged += ws[p] * v;
  }
  return ok;
}

template <class E, class P>
__device__ inline void epilogue(const args& a, const gemm_class& c, const unit& w, const float (&acc)[P::BN / 8][4], const smem<E, P>& s, int wg) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  long long* rows = s.rows(wg);
  int cm[nd], cn[nd];
  corner(c.m, w.tm, cm);
  corner(c.n, w.tn, cn);
  if (t < 64) {
    long long off, m;
    const bool ok = local_digits(c.m, cm, 64 * wg + t, c.c_m, c.ws_m, off, m);
    rows[t] = ok ? c.c_off0 + c.c_g * w.g + off : -1;
    rows[64 + t] = m;
  }
  arch::named_barrier_sync(1 + wg, 128);
  if (a.splits > 1) {  // fp32 partial sums, [split][G][M][N]
    TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int e = 0; e < 4; ++e) {
      const int row = warp * 16 + lane / 4 + 8 * (e / 2), col = 8 * j + 2 * (lane % 4) + e % 2;
      long long coff, n;
      if (rows[row] < 0 || !local_digits(c.n, cn, col, c.c_n, c.ws_n, coff, n)) continue;
      a.ws[((w.split * c.groups + w.g) * c.M + rows[64 + row]) * c.N + n] = acc[j][e];
    }
  } else {
    E* st = s.staging(wg);
    TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int h = 0; h < 2; ++h) {
      const int row = warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4);
      st[row * P::staging_pitch + col] = arch::cvt_from_float<E>(a.alpha * acc[j][2 * h]);
      st[row * P::staging_pitch + col + 1] = arch::cvt_from_float<E>(a.alpha * acc[j][2 * h + 1]);
    }
    arch::named_barrier_sync(1 + wg, 128);
    E* out = static_cast<E*>(a.c);
    constexpr int chunks = P::BN / 8;
    for (int q = t; q < 64 * chunks; q += 128) {
      const int row = q / chunks, col = q % chunks * 8;
      const long long ro = rows[row];
      if (ro < 0) continue;
      long long c0, n;
      const bool first = local_digits(c.n, cn, col, c.c_n, c.ws_n, c0, n);
      long long c7;
      if (a.c_vectors && first && local_digits(c.n, cn, col + 7, c.c_n, c.ws_n, c7, n)) {
        *reinterpret_cast<uint4*>(out + ro + c0) = *reinterpret_cast<const uint4*>(st + row * P::staging_pitch + col);
        continue;
      }
      for (int e = 0; e < 8; ++e)
        if (local_digits(c.n, cn, col + e, c.c_n, c.ws_n, c0, n)) out[ro + c0] = st[row * P::staging_pitch + col + e];
    }
  }
  arch::named_barrier_sync(1 + wg, 128);  // the staging tile and row table are free for the next unit
}
}  // namespace tg::tma_gemm
