// The TMA GEMM kernel (sm_90a): warp-specialized and persistent. Warpgroup 0 is the producer (one
// thread issues TMA box loads into an S-stage ring guarded by full/empty mbarriers; it gives its
// registers to the consumers); warpgroups 1 and 2 are the consumers (wgmma from the swizzled stages,
// fp32 accumulators in registers, then the epilogue). Each block walks work units blockIdx.x,
// blockIdx.x + gridDim.x, ...; the ring runs on across units, so the producer fetches the next tile
// while the consumers store this one. Cooperative tiles: both consumers take every unit (half its
// rows each); ping-pong tiles: consumer c takes the block's units c, c + 2, ... and steps its ring
// position past the other's k-tiles.
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
  if (threadIdx.x == 0) {
    for (int i = 0; i < P::stages; ++i) {
      arch::mbarrier_init(s.full(i), 1);                    // the producer's arrival (+ the bytes)
      arch::mbarrier_init(s.empty(i), 128 * P::tile_warpgroups);  // every consumer thread's release
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
    }
  } else {
    arch::warpgroup_regs_take<P::consumer_regs>();
    ring<P::stages> r;
    const int me = wg - 1, part = P::pingpong ? 0 : me;  // part: which rows of a tile this warpgroup takes
    const long long mine = (a.units - blockIdx.x + gridDim.x - 1) / gridDim.x;  // this block's units
    for (long long i = 0; i < mine; ++i) {
      const work k = work_of(a, blockIdx.x + i * gridDim.x);
      if (P::pingpong && i % 2 != me) {
        r.advance(k.ke - k.kb);
        continue;
      }
      // Ping-pong hand-over: a warpgroup starts its tile's k-tiles once the other has waited for all
      // of the previous tile's, so that no full barrier is waited on more than one phase ahead (a
      // parity wait cannot tell phase q from q - 2); the epilogue then overlaps the other's multiply.
      if (P::pingpong && i > 0) arch::named_barrier_sync(1 + me, 256);
      float acc[P::row_blocks][P::BN / 8][4];
      consume_tile<E, P, AMn, BMn>(s, r, k.kb, k.ke, part, acc, a.release_early);
      if (P::pingpong && i + 1 < mine) arch::named_barrier_arrive(2 - me, 256);
      epilogue<E, P>(a, *k.c, k.w, acc, part);
    }
  }
#elif defined(__CUDA_ARCH__)
  asm volatile("trap;");  // a device pass without wgmma (not sm_90a): never launched (launch.hpp checks the image)
#endif
}
}  // namespace tg::tma_gemm
