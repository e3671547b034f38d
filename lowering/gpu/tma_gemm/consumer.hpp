// A consumer warpgroup: BM/consumers rows of the block's tile, in m64 blocks. Per k-tile it waits for the
// stage's full barrier, issues the k-tile's wgmma batch straight from the swizzled shared tiles (A's
// blocks where a_blocks.hpp says they lie), and releases the stage the previous batch read once that
// batch has retired (one batch stays in flight).
#pragma once
#include "arch/mbarrier_nvidia.hpp"
#include "arch/wgmma_nvidia.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "lowering/gpu/tma_gemm/a_blocks.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
#if defined(TG_NV_WGMMA)
// One wgmma k step (32 bytes of each operand row) of an m64 block: k16 of 16-bit operands in either
// orientation, k8 of fp32 read as tf32 (both K-major: the plans refuse the others).
template <class E, int BN, bool AMn, bool BMn>
__device__ inline void mma_k_step(float (&acc)[BN / 8][4], std::uint64_t da, std::uint64_t db) {
  if constexpr (sizeof(E) == 4) {
    static_assert(!AMn && !BMn, "tf32 wgmma reads K-major tiles only");
    arch::wgmma_m64k8_tf32<BN>(acc, da, db);
  } else {
    arch::wgmma_m64k16<BN, std::is_same_v<E, bf16_t>, AMn, BMn>(acc, da, db);
  }
}

// Nothing to do before a stage's wait (every tile but the MN-major tf32 one: tf32_transpose.hpp).
struct no_stage_work {
  template <class S, class R>
  __device__ void operator()(const S&, const R&) {}
};

// acc[b] (rows 64 b.. of this warpgroup's BM/consumers, all BN columns) = the sum over k-tiles [kb, ke) of A * B.
// before(s, r): what the consumer does for the stage at r before waiting for it (its share of the
// transposition where it transposes).
template <class E, class P, bool AMn, bool BMn, class Before = no_stage_work>
__device__ inline void consume_tile(const smem<E, P>& s, ring<P::stages>& r, long long kb, long long ke, const a_blocks<E, P, AMn>& ab,
                                    float (&acc)[P::row_blocks][P::BN / 8][4], bool release_early, Before&& before = {}) {
  using namespace gpu_gemm;
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b)
    TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
  if (kb >= ke) return;
  int prev = -1;
  for (long long kt = kb; kt < ke; ++kt) {
    before(s, r);
    arch::mbarrier_wait(s.full(r.stage), r.phase);
    const std::uint32_t a0 = arch::smem_addr(s.a(r.stage));
    const std::uint64_t db = wgmma_tile_desc<P::BN, P::BK, E, BMn>(arch::smem_addr(s.b(r.stage)));
    arch::wgmma_fence();
    TG_UNROLL for (int kk = 0; kk < P::k_steps; ++kk) {
      const std::uint64_t ob = wgmma_sub_offset<P::BN, P::BK, E, BMn>(0, kk * P::k_step);
      TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) mma_k_step<E, P::BN, AMn, BMn>(acc[b], ab.desc(a0, b, kk), db + ob);
    }
    arch::wgmma_commit();
    if (release_early) {  // the stage goes back a k-tile sooner; the other warpgroup's batch keeps the tensor cores busy
      arch::wgmma_wait<0>();
      arch::mbarrier_arrive(s.empty(r.stage));
      r.advance();
      continue;
    }
    if (prev >= 0) {
      arch::wgmma_wait<1>();
      arch::mbarrier_arrive(s.empty(prev));
    }
    prev = r.stage;
    r.advance();
  }
  arch::wgmma_wait<0>();
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) arch::wgmma_pin(acc[b]);
  if (prev >= 0) arch::mbarrier_arrive(s.empty(prev));
}
#endif
}  // namespace tg::tma_gemm
