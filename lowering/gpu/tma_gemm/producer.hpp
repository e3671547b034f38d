// The producer: one thread walks the block's work units and, for each k-tile, waits for a free stage,
// announces its bytes on the stage's full barrier and issues the TMA box loads of both operands. A
// box's corner is the operand's base plus each digit's step times the digit's corner (params.hpp);
// the k digits advance like an odometer, with no division per k-tile.
#pragma once
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
// The coordinates of an operand's box for group g, row digits `rows`, k digits `ks`.
__device__ inline void box_corner(const operand& o, long long g, const int (&rows)[nd], const int (&ks)[nd], int (&x)[rank]) {
  TG_UNROLL for (int a = 0; a < rank; ++a) {
    int v = o.base[a] + o.step[0][0][a] * static_cast<int>(g);
    TG_UNROLL for (int p = 0; p < nd; ++p) v += o.step[1][p][a] * rows[p] + o.step[2][p][a] * ks[p];
    x[a] = v;
  }
}

// The next k-tile's digits: an odometer over K's digits (the last fastest), no division per k-tile.
__device__ inline void next_k_tile(const digits& k, int (&ck)[nd]) {
  TG_UNROLL for (int p = nd - 1; p >= 0; --p) {
    ck[p] += k.ext[p];
    if (ck[p] < k.tiles[p] * k.ext[p]) break;
    ck[p] = 0;
  }
}

template <class E, class P>
__device__ inline void load_operand(const operand& o, E* dst, std::uint64_t* full, const int (&x)[rank]) {
  constexpr int box_elems = P::BK * P::BK;  // an MN-major box: BK k x BK rows (one 128-byte row each)
  constexpr int most = (P::BM > P::BN ? P::BM : P::BN) / P::BK;
  TG_UNROLL for (int i = 0; i < most; ++i)
    if (i < o.boxes)
      arch::tma_load(dst + i * box_elems, &o.map, full, o.rank, x[0] + i * o.box_step[0], x[1] + i * o.box_step[1], x[2] + i * o.box_step[2],
                     x[3] + i * o.box_step[3], x[4] + i * o.box_step[4]);
}

// Into the stages, or into the landing slots of the MN-major tf32 tile (smem.hpp: load_*).
template <class E, class P, class A>
__device__ inline void produce(const A& a, const smem<E, P>& s) {
  ring<smem<E, P>::load_slots> r;
  for (long long u = blockIdx.x; u < a.units; u += gridDim.x) {
    const work k = work_of(a, u);
    const gemm_class& c = *k.c;
    const unit& w = k.w;
    const long long kb = k.kb, ke = k.ke;
    int cm[nd], cn[nd], ck[nd];
    corner(c.m, w.tm, cm);
    corner(c.n, w.tn, cn);
    corner(c.k, kb, ck);
    for (long long kt = kb; kt < ke; ++kt) {
      arch::mbarrier_wait(s.load_empty(r.stage), r.phase ^ 1);
      arch::mbarrier_arrive_expect_tx(s.load_full(r.stage), a.stage_tx);
      int xa[rank], xb[rank];
      box_corner(c.a, w.g, cm, ck, xa);
      box_corner(c.b, w.g, cn, ck, xb);
      load_operand<E, P>(c.a, s.load_a(r.stage), s.load_full(r.stage), xa);
      load_operand<E, P>(c.b, s.load_b(r.stage), s.load_full(r.stage), xb);
      next_k_tile(c.k, ck);
      r.advance();
    }
  }
}
}  // namespace tg::tma_gemm
