// NVIDIA barriers: named block barriers, and shared-memory barriers with transaction counts (PTX `mbarrier`, sm_90): the handshake of a
// TMA-fed pipeline. A stage's "full" barrier completes when its producer has arrived and every byte
// the copy engine was told to expect has landed; its "empty" barrier when every consumer thread has
// released it. Waiters name the phase they wait for by its parity bit.
#pragma once
#include <cstdint>
#include "dsl/config.hpp"

namespace tg::arch {
#if defined(__CUDACC__) && !defined(__HIP__)
__device__ inline std::uint32_t smem_addr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

__device__ inline void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
#endif
}
// Makes initialised barriers visible to the copy engine (the async proxy) before any use.
__device__ inline void mbarrier_init_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
// The producer's arrival, announcing `bytes` that asynchronous copies will deliver to this phase.
__device__ inline void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
#endif
}
__device__ inline void mbarrier_arrive(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
#endif
}
// Spins until the phase of parity `parity` has completed (a fresh barrier counts its phase before
// phase 0, parity 1, as complete: producers start waiting on empty stages with parity 1).
__device__ inline void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
#endif
}

// A named barrier (ids 1..15; 0 is __syncthreads') among `threads` threads: one warpgroup's epilogue
// steps wait for each other without stopping the producer or the other warpgroup.
__device__ inline void named_barrier_sync(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#endif
}
#endif
}  // namespace tg::arch
