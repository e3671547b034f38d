// A consumer warpgroup: 64 rows of the block's 128-row tile. Per k-tile it waits for the stage's
// full barrier, issues the k-tile's wgmma batch straight from the swizzled shared tiles, and releases
// the stage the previous batch read once that batch has retired (one batch stays in flight).
#pragma once
#include "arch/mbarrier_nvidia.hpp"
#include "arch/wgmma_nvidia.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
#if defined(TG_NV_WGMMA)
// acc (64 x BN of this warpgroup) = the sum over k-tiles [kb, ke) of A(rows) * B.
template <class E, class P, bool AMn, bool BMn>
__device__ inline void consume_tile(const smem<E, P>& s, ring<P::stages>& r, long long kb, long long ke, int wg, float (&acc)[P::BN / 8][4]) {
  using namespace gpu_gemm;
  constexpr bool bf16 = std::is_same_v<E, bf16_t>;
  TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int e = 0; e < 4; ++e) acc[j][e] = 0.0f;
  if (kb >= ke) return;
  int prev = -1;
  for (long long kt = kb; kt < ke; ++kt) {
    arch::mbarrier_wait(s.full(r.stage), r.phase);
    // This warpgroup's 64 rows of A: the second half of a K-major [128][64] tile, or the second
    // MN-major box; either is itself a swizzled tile 8 KB (a whole swizzle repeat) further on.
    const std::uint64_t da = wgmma_tile_desc<64, P::BK, E, AMn>(arch::smem_addr(s.a(r.stage)) + wg * 64 * P::BK * 2);
    const std::uint64_t db = wgmma_tile_desc<P::BN, P::BK, E, BMn>(arch::smem_addr(s.b(r.stage)));
    arch::wgmma_fence();
    TG_UNROLL for (int kk = 0; kk < P::BK / 16; ++kk)
      arch::wgmma_m64k16<P::BN, bf16, AMn, BMn>(acc, da + wgmma_sub_offset<64, P::BK, E, AMn>(0, kk * 16),
                                                db + wgmma_sub_offset<P::BN, P::BK, E, BMn>(0, kk * 16));
    arch::wgmma_commit();
    if (prev >= 0) {
      arch::wgmma_wait<1>();
      arch::mbarrier_arrive(s.empty(prev));
    }
    prev = r.stage;
    r.advance();
  }
  arch::wgmma_wait<0>();
  arch::wgmma_pin(acc);
  arch::mbarrier_arrive(s.empty(prev));
}
#endif
}  // namespace tg::tma_gemm
