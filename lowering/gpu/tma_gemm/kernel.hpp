// The TMA GEMM kernel (sm_90a): warp-specialized and persistent. Warpgroup 0 is the producer (one
// thread issues TMA box loads into an S-stage ring guarded by full/empty mbarriers; it gives its
// registers to the consumers); the other warpgroups (two, three for the taps tile) are the consumers
// (wgmma from the swizzled stages, fp32 accumulators in registers, then the epilogue). Each block walks work units blockIdx.x,
// blockIdx.x + gridDim.x, ...; the ring runs on across units, so the producer fetches the next tile
// while the consumers store this one. A split tile's last unit adds the splits' partials first.
// The MN-major tf32 tile (plan.hpp: mn_tf32_tile) has a third role: the boxes land MN-major in slots
// of their own and the consumers (or warps 1-3 of warpgroup 0) transpose them into the stages, which
// the consumers then read K-major (tf32 wgmma has no transposed operands).
#pragma once
#include "arch/block.hpp"
#include "arch/warpgroup_regs_nvidia.hpp"
#include "lowering/gpu/tma_gemm/consumer.hpp"
#include "lowering/gpu/tma_gemm/epilogue.hpp"
#include "lowering/gpu/tma_gemm/producer.hpp"
#include "lowering/gpu/tma_gemm/split_reduce.hpp"
#include "lowering/gpu/tma_gemm/tf32_transpose.hpp"

namespace tg::tma_gemm {
template <class E, class P, bool AMn, bool BMn, int C>
__global__ void __launch_bounds__(P::threads, 1) tma_gemm_kernel(const __grid_constant__ args<C> a) {
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  extern __shared__ unsigned char raw[];
  const smem<E, P> s(raw);
  constexpr bool transposed_stages = P::landing_slots > 0;  // the consumers read the transposers' K-major stages
  static_assert(!transposed_stages || (!AMn && !BMn), "AMn / BMn: the stages' orientation, K-major once transposed");
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    const int transposers = transposer_arrivals<P>(a.consumers_transpose);
    for (int i = 0; i < P::stages; ++i) {
      arch::mbarrier_init(s.full(i), transposed_stages ? transposers : 1);  // the transposers' arrivals, or the producer's (+ the bytes)
      arch::mbarrier_init(s.empty(i), 128 * P::consumers);  // every consumer thread's release
    }
    for (int i = 0; i < P::landing_slots; ++i) {
      arch::mbarrier_init(s.land_full(i), 1);             // the producer's arrival + the bytes
      arch::mbarrier_init(s.land_empty(i), transposers);  // every transposer's release
    }
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (wg == 0) {
    arch::warpgroup_regs_release<P::producer_regs>();
    if (threadIdx.x == 0) {
      for (int c = 0; c < a.classes; ++c)
        if (a.cls[c].has_k) arch::tma_prefetch_map(&a.cls[c].a.map), arch::tma_prefetch_map(&a.cls[c].b.map);
      produce<E, P>(a, s);
    } else if constexpr (transposed_stages) {
      if (threadIdx.x >= 32 && !a.consumers_transpose) transpose_stages<E, P>(a, s, threadIdx.x - 32);
    }
  } else {
    arch::warpgroup_regs_take<P::consumer_regs>();
    ring<P::stages> r;
    std::conditional_t<transposed_stages, consumer_transposer<E, P>, no_stage_work> before{};
    if constexpr (transposed_stages) before.on = a.consumers_transpose, before.t = threadIdx.x - 128;
    for (long long u = blockIdx.x; u < a.units; u += gridDim.x) {
      const work k = work_of(a, u);
      float acc[P::row_blocks][P::BN / 8][4];
      consume_tile<E, P, AMn, BMn>(s, r, k.kb, k.ke, a_blocks<E, P, AMn>(a, *k.c, k.w, wg - 1), acc, a.release_early, before);
      if (a.splits > 1 && !reduce_split<P>(a, k.w, tile_of(*k.c, k.w), acc, threadIdx.x - 128, s.last_split())) continue;
      epilogue<E, P>(a, *k.c, k.w, acc, wg - 1, s.c_rows((threadIdx.x - 128) / 32));
    }
    epilogue_done(a);
  }
#elif defined(__CUDA_ARCH__)
  arch::trap();  // a device pass without wgmma (not sm_90a): never launched (launch.hpp checks the image)
#endif
}
}  // namespace tg::tma_gemm
