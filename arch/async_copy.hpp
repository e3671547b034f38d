// Global -> shared copies of 16 bytes that skip registers (PTX cp.async, sm_80+), with a zero fill
// for padding, and the group fences of a multi-stage pipeline. On other targets (AMD) the same calls
// copy synchronously through registers and the fences are empty, so a pipeline written with them is
// correct everywhere; only where cp.async exists do the copies overlap the math.
#pragma once
#include "dsl/config.hpp"

#if defined(__CUDACC__) && !defined(__HIP__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define TG_NV_CP_ASYNC 1
#endif

namespace tg::arch {
// 16 bytes from global `src` to shared `dst` (both 16-byte aligned), or 16 zero bytes when !valid
// (src is then not read, but must still be a pointer into the tensor).
__device__ inline void copy16_async(void* dst, const void* src, bool valid) {
#if defined(TG_NV_CP_ASYNC)
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0));
#else
  const uint4 v = valid ? *static_cast<const uint4*>(src) : uint4{0, 0, 0, 0};
  *static_cast<uint4*>(dst) = v;
#endif
}
// Closes the group of copies issued since the last commit.
__device__ inline void async_commit() {
#if defined(TG_NV_CP_ASYNC)
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most `Pending` committed groups are still in flight (this thread's copies only:
// a barrier after it makes all threads' copies visible).
template <int Pending>
__device__ inline void async_wait() {
#if defined(TG_NV_CP_ASYNC)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}
}  // namespace tg::arch
