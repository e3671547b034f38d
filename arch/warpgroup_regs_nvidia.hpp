// Register reallocation between warpgroups (PTX `setmaxnreg`, sm_90a): a warp-specialized kernel
// starts every warpgroup at the launch bound's count, then the producer gives registers back and
// the consumers (which hold the accumulators) take them. Takes effect only when the kernel has a
// register cap at entry (__launch_bounds__(threads, 1)) and each role is one branch of an if/else.
#pragma once
#include "arch/wgmma_nvidia.hpp"

namespace tg::arch {
#if defined(TG_NV_WGMMA)
template <int Regs>
__device__ inline void warpgroup_regs_release() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
#if defined(__CUDA_ARCH__)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}
template <int Regs>
__device__ inline void warpgroup_regs_take() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
#if defined(__CUDA_ARCH__)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}
#endif
}  // namespace tg::arch
