// The TMA GEMM kernel (sm_90a): warp-specialized and persistent. Warpgroup 0 is the producer (one
// thread issues TMA box loads into an S-stage ring guarded by full/empty mbarriers; it gives its
// registers to the consumers); warpgroups 1 and 2 are the consumers (wgmma from the swizzled stages,
// fp32 accumulators in registers, then the epilogue). Each block walks work units blockIdx.x,
// blockIdx.x + gridDim.x, ...; the ring runs on across units, so the producer fetches the next tile
// while the consumers store this one. In a cluster of two, the blocks take the two tiles of a pair
// that shares an operand, whose boxes each block's producer multicasts to both.
#pragma once
#include "arch/warpgroup_regs_nvidia.hpp"
#include "lowering/gpu/tma_gemm/consumer.hpp"
#include "lowering/gpu/tma_gemm/epilogue.hpp"
#include "lowering/gpu/tma_gemm/producer.hpp"

namespace tg::tma_gemm {
template <class E, class P, bool AMn, bool BMn>
__global__ void __launch_bounds__(P::threads, 1) tma_gemm_kernel(const __grid_constant__ args a) {
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  extern __shared__ unsigned char raw[];
  const smem<E, P> s(raw);
  const int wg = threadIdx.x / 128;
  // A cluster (a.cluster blocks along x) walks one unit sequence; its blocks take the pair's tiles.
  const unsigned me = a.cluster > 1 ? arch::cluster_rank() : 0;
  const long long first = blockIdx.x / a.cluster, step = gridDim.x / a.cluster;
  if (threadIdx.x == 0) {
    for (int i = 0; i < P::stages; ++i) {
      arch::mbarrier_init(s.full(i), 1);                                // the producer's arrival (+ the bytes)
      arch::mbarrier_init(s.empty(i), 4 * P::consumers * a.cluster);  // each consumer warp's release, from each block
    }
    arch::mbarrier_init_fence();
  }
  if (a.cluster > 1) arch::cluster_sync();
  else __syncthreads();
  if (wg == 0) {
    arch::warpgroup_regs_release<P::producer_regs>();
    if (threadIdx.x == 0) {
      for (int c = 0; c < a.classes; ++c)
        if (a.cls[c].has_k) arch::tma_prefetch_map(&a.cls[c].a.map), arch::tma_prefetch_map(&a.cls[c].b.map);
      produce<E, P>(a, s, me, first, step);
    }
  } else {
    arch::warpgroup_regs_take<P::consumer_regs>();
    ring<P::stages> r;
    for (long long u = first; u < a.units; u += step) {
      const work k = work_of(a, u, me);
      float acc[P::row_blocks][P::BN / 8][4];
      consume_tile<E, P, AMn, BMn>(s, r, k.kb, k.ke, wg - 1, acc, a.release_early, a.cluster);
      if (!k.w.ghost) epilogue<E, P>(a, *k.c, k.w, acc, wg - 1);
    }
  }
  if (a.cluster > 1) arch::cluster_sync();  // the partner's copies into this block's stages and its releases are done
#elif defined(__CUDA_ARCH__)
  asm volatile("trap;");  // a device pass without wgmma (not sm_90a): never launched (launch.hpp checks the image)
#endif
}
}  // namespace tg::tma_gemm
