// Block-wide and device-wide primitives of the HIP/CUDA dialect that lowering/'s kernels use, named
// here so that lowering/ calls no vendor intrinsic itself.
#pragma once
#include "dsl/config.hpp"

namespace tg::arch {
#if defined(TG_DEVICE_COMPILER)
// Whether p holds in every thread of the block (a block barrier as well).
__device__ inline bool block_all(bool p) { return __syncthreads_and(p); }

// *p += v, atomically (split-K's atomic mode).
__device__ inline void atomic_add(float* p, float v) { atomicAdd(p, v); }

// Stops the kernel with an error: an invariant the launch guarantees is broken (a misaligned shared
// allocation, a kernel image run on the wrong target).
[[noreturn]] __device__ inline void trap() {
#if defined(__HIP__)
  __builtin_trap();
#else
  __trap();
#endif
}
#endif
}  // namespace tg::arch
