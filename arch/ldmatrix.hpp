// ldmatrix (PTX, sm_75+): a warp loads four 8x8 tiles of 16-bit elements from shared memory straight
// into the register layout of mma.sync's fragments. Lane l gives the address of row l % 8 of tile
// l / 8 (16 contiguous bytes); register i of every lane receives tile i, each lane holding the two
// elements (row lane / 4, columns 2 (lane % 4) + {0, 1}). With .trans each tile arrives transposed,
// so a fragment can be read from a tile stored the other way round ([k][m] instead of [m][k]).
#pragma once
#include <cstdint>
#include "dsl/config.hpp"

#if defined(__CUDACC__) && !defined(__HIP__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750)
#define TG_NV_LDMATRIX 1
#endif

namespace tg::arch {
#if defined(TG_NV_LDMATRIX)
template <bool Transposed>
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(row));
  if constexpr (Transposed)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
#endif
}  // namespace tg::arch
