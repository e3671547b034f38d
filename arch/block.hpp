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

// This thread's earlier global writes made visible to the whole device before its later ones (a
// split-K partial sum before the count that announces it; the count before reading the others').
__device__ inline void device_fence() { __threadfence(); }

// *p += 1, atomically; returns the old value.
__device__ inline unsigned atomic_count(unsigned* p) { return atomicAdd(p, 1u); }

// A 16-byte load from L2, past this multiprocessor's L1 (which other blocks' writes do not update).
__device__ inline float4 load_l2(const float4* p) {
#if defined(__HIP__)
  return *p;
#else
  return __ldcg(p);
#endif
}

// The warp's lanes wait for each other (their shared-memory writes then visible to each other).
__device__ inline void warp_sync() {
#if defined(__HIP__)
  __builtin_amdgcn_wave_barrier();
#else
  __syncwarp();
#endif
}

// Lane `src`'s value of v; every lane of the warp takes part.
__device__ inline long long warp_shuffle(long long v, int src) {
#if defined(__HIP__)
  return __shfl(v, src);
#else
  return __shfl_sync(0xffffffffu, v, src);
#endif
}

// Threads of a warp (a wave on AMD) on the target being compiled; the lane of this thread.
__device__ inline int warp_lanes() { return warpSize; }
__device__ inline int lane_id() { return static_cast<int>(threadIdx.x) % warpSize; }

// The lane `d` below (up) or above (down) this one's v (a 4-byte int or float); a lane without one
// gets its own. Every lane of the warp takes part.
template <class T>
__device__ inline T warp_shuffle_up(T v, int d) {
  static_assert(sizeof(T) == 4, "a 4-byte value");
#if defined(__HIP__)
  return __shfl_up(v, d);
#else
  return __shfl_up_sync(0xffffffffu, v, d);
#endif
}
template <class T>
__device__ inline T warp_shuffle_down(T v, int d) {
  static_assert(sizeof(T) == 4, "a 4-byte value");
#if defined(__HIP__)
  return __shfl_down(v, d);
#else
  return __shfl_down_sync(0xffffffffu, v, d);
#endif
}

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
