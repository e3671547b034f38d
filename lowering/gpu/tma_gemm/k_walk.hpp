// The producer's walk along K: an odometer over K's digits (the last fastest), so that a k-tile costs
// no division, and, carried along with it, the operands' box corners, which are linear in the k
// digits (producer.hpp: box_corner): each digit that moves adds its steps times its change, so a
// k-tile costs the moved digits' steps instead of both corners anew (the fp32 MN-major tile's producer
// was its critical path at ~1,260 instructions a k-tile: performance.md section 41).
#pragma once
#include "dsl/config.hpp"
#include "lowering/gpu/tma_gemm/class_plan.hpp"

namespace tg::tma_gemm {
TG_HD inline void next_k_tile(const digits& k, int (&ck)[nd]) {
  TG_UNROLL for (int p = nd - 1; p >= 0; --p) {
    ck[p] += k.ext[p];
    if (ck[p] < k.tiles[p] * k.ext[p]) break;
    ck[p] = 0;
  }
}

// sa, sb: the operands' coordinate steps per k digit ([digit][axis]); xa, xb: their corners.
template <int Rank>
TG_HD inline void next_k_tile(const digits& k, const int (&sa)[nd][Rank], const int (&sb)[nd][Rank], int (&ck)[nd], int (&xa)[Rank], int (&xb)[Rank]) {
  TG_UNROLL for (int p = nd - 1; p >= 0; --p) {
    const int was = ck[p];
    ck[p] += k.ext[p];
    const bool wraps = ck[p] >= k.tiles[p] * k.ext[p];
    if (wraps) ck[p] = 0;
    const int d = ck[p] - was;
    TG_UNROLL for (int a = 0; a < Rank; ++a) xa[a] += sa[p][a] * d, xb[a] += sb[p][a] * d;
    if (!wraps) break;
  }
}
}  // namespace tg::tma_gemm
