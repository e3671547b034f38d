// The producer: one thread walks the block's work units and, for each k-tile, waits for a free stage,
// announces its bytes on the stage's full barrier and issues the TMA box loads of both operands. A
// box's corner is the operand's base plus each digit's step times the digit's corner (params.hpp);
// the k digits advance like an odometer (k_walk.hpp), the corners with them.
#pragma once
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/tma_gemm/k_walk.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/stacked_boxes.hpp"
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

// Load i at boxes::corner_of_box of the tile's corner x (the rule the host plan tests emulate); a
// stacked load brings `stacked` boxes, each BK k x BK rows.
template <int R, class E, class P>
__device__ inline void load_boxes(const operand& o, E* dst, std::uint64_t* full, const int (&x)[rank]) {
  constexpr int box_elems = P::BK * P::BK;  // an MN-major box: BK k x BK rows (one 128-byte row each)
  constexpr int most = (P::BM > P::BN ? P::BM : P::BN) / P::BK;
  TG_UNROLL for (int i = 0; i < most; ++i) {
    if (i >= o.load.loads) break;
    int at[rank];
    boxes::corner_of_box(x, o.box_step, o.load.along_shift, P::BK, i, at);
    if constexpr (R >= 2) {  // (a stacked map has its split axes: rank 2 at least)
      if (o.stack_shift > 0) boxes::stacked_corner(at, R, o.stack_shift);
    }
    arch::tma_load_rank<R>(dst + i * o.load.stacked * box_elems, &o.map, full, at);
  }
}
// An operand's boxes of one k-tile, the map's rank switched on once for all of them.
template <class E, class P>
__device__ inline void load_operand(const operand& o, E* dst, std::uint64_t* full, const int (&x)[rank]) {
  switch (o.rank) {
    case 1: load_boxes<1, E, P>(o, dst, full, x); break;
    case 2: load_boxes<2, E, P>(o, dst, full, x); break;
    case 3: load_boxes<3, E, P>(o, dst, full, x); break;
    case 4: load_boxes<4, E, P>(o, dst, full, x); break;
    default: load_boxes<5, E, P>(o, dst, full, x); break;
  }
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
    int xa[rank], xb[rank];  // the corners at the unit's first k-tile, then carried by the odometer
    box_corner(c.a, w.g, cm, ck, xa);
    box_corner(c.b, w.g, cn, ck, xb);
    for (long long kt = kb; kt < ke; ++kt) {
      arch::mbarrier_wait(s.load_empty(r.stage), r.phase ^ 1);
      arch::mbarrier_arrive_expect_tx(s.load_full(r.stage), a.stage_tx);
      load_operand<E, P>(c.a, s.load_a(r.stage), s.load_full(r.stage), xa);
      load_operand<E, P>(c.b, s.load_b(r.stage), s.load_full(r.stage), xb);
      next_k_tile(c.k, c.a.step[2], c.b.step[2], ck, xa, xb);  // k_walk.hpp
      r.advance();
    }
  }
}
}  // namespace tg::tma_gemm
