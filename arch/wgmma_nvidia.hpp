// NVIDIA warpgroup matrix multiply (PTX `wgmma.mma_async`, sm_90a): a warpgroup of 4 consecutive
// warps computes D(f32 64xN) += A(64x16) * B(16xN) with both operands read from shared memory through
// 64-bit matrix descriptors, asynchronously: issue after wgmma_fence, close the batch with
// wgmma_commit, wait with wgmma_wait. Accumulator layout (PTX ISA, "Register Fragments: wgmma
// .m64nNk16"): warp w of the group holds rows 16w..16w+15; d[j][e] is the element of the n8 column
// block j at (row 16w + lane/4 + 8 (e/2), column 8j + 2 (lane%4) + e%2), i.e. mma.m16n8's C layout for
// each n8 block, so code that stores mma.sync accumulators stores these the same way.
#pragma once
#include <cstdint>
#include "dsl/config.hpp"

// wgmma exists only in the architecture-specific target sm_90a (compute_90a); a plain sm_90 or sm_80
// device pass does not see it. The host pass sees the declarations (never calls them).
#if defined(__CUDACC__) && !defined(__HIP__) && (!defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL))
#define TG_NV_WGMMA 1
#endif

namespace tg::arch {

// Whether this compilation pass makes code for a target with wgmma (the sm_90a device pass): where it
// keeps the accumulators out of registers, the lowering's schedules may spend registers elsewhere.
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
inline constexpr bool wgmma_device_pass = true;
#else
inline constexpr bool wgmma_device_pass = false;
#endif

// How a shared-memory operand's 16-byte chunks are permuted (the descriptor's swizzle field): with a
// swizzle of W bytes (32, 64, 128), address bits 4.. (the chunk within W) are xor-ed with bits 7.. (the
// 128-byte line), CuTe's Swizzle<log2(W/16), 4, 3>; the pattern repeats every 8W bytes.
enum class smem_swizzle : std::uint64_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

// The matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading-dimension and
// stride-dimension byte offsets (all in units of 16 bytes, 14 bits each), base offset 0 (every
// operand tile starts on a multiple of its swizzle pattern's repeat), swizzle mode in bits 62-63.
//   K-major (k contiguous), swizzled: SBO = bytes between groups of 8 rows; LBO unused.
//   MN-major (rows contiguous), swizzled: LBO = bytes between blocks of W/2 16-bit rows, SBO = bytes
//   between groups of 8 k.
TG_FN std::uint64_t smem_matrix_desc(std::uint32_t smem_addr, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes, smem_swizzle sw) {
  return (static_cast<std::uint64_t>((smem_addr >> 4) & 0x3fff)) | (static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3fff) << 16) |
         (static_cast<std::uint64_t>((sbo_bytes >> 4) & 0x3fff) << 32) | (static_cast<std::uint64_t>(sw) << 62);
}

#if defined(TG_NV_WGMMA)
// Orders the warpgroup's earlier register and shared-memory accesses before the next wgmma.
__device__ inline void wgmma_fence() {
#if defined(__CUDA_ARCH__)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
// Closes the batch of wgmma issued since the last commit.
__device__ inline void wgmma_commit() {
#if defined(__CUDA_ARCH__)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
// Waits until at most `Pending` committed batches are in flight.
template <int Pending>
__device__ inline void wgmma_wait() {
#if defined(__CUDA_ARCH__)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#endif
}
// Shared memory written by ordinary stores (and cp.async) becomes visible to the tensor cores' async
// proxy: each writing thread runs this before the barrier that hands the tile over.
__device__ inline void fence_proxy_async_shared() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
// Keeps the compiler from moving reads or writes of the accumulators across a wgmma_wait (the asm
// of the wait does not name them): each is redefined here, after the wait.
template <int R, int C>
__device__ inline void wgmma_pin(float (&d)[R][C]) {
  TG_UNROLL for (int i = 0; i < R; ++i)
    TG_UNROLL for (int j = 0; j < C; ++j) asm volatile("" : "+f"(d[i][j])::"memory");
}

// The accumulators as asm operands: 32 (n64) or 64 (n128) floats, %0.. in d's order.
#define TG_WGMMA_D8(i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define TG_WGMMA_D64 TG_WGMMA_D8(0), TG_WGMMA_D8(1), TG_WGMMA_D8(2), TG_WGMMA_D8(3), TG_WGMMA_D8(4), TG_WGMMA_D8(5), TG_WGMMA_D8(6), TG_WGMMA_D8(7)
#define TG_WGMMA_D128 TG_WGMMA_D64, TG_WGMMA_D8(8), TG_WGMMA_D8(9), TG_WGMMA_D8(10), TG_WGMMA_D8(11), TG_WGMMA_D8(12), TG_WGMMA_D8(13), \
                      TG_WGMMA_D8(14), TG_WGMMA_D8(15)
#define TG_WGMMA_R32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
                     "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TG_WGMMA_R64 TG_WGMMA_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
                     "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

#define TG_WGMMA_M64N64K16(TY)          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" TG_WGMMA_R32 "}, %32, %33, p, 1, 1, %35, %36;\n}\n" \
               : TG_WGMMA_D64 : "l"(a), "l"(b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define TG_WGMMA_M64N128K16(TY)          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" TG_WGMMA_R64 "}, %64, %65, p, 1, 1, %67, %68;\n}\n" \
               : TG_WGMMA_D128 : "l"(a), "l"(b), "r"(scale_d), "n"(TransA), "n"(TransB))
// tf32: no transpose operands (K-major only).
#define TG_WGMMA_M64N64K8_TF32()          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" TG_WGMMA_R32 "}, %32, %33, p, 1, 1;\n}\n" \
               : TG_WGMMA_D64 : "l"(a), "l"(b), "r"(scale_d))
#define TG_WGMMA_M64N128K8_TF32()          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" TG_WGMMA_R64 "}, %64, %65, p, 1, 1;\n}\n" \
               : TG_WGMMA_D128 : "l"(a), "l"(b), "r"(scale_d))

// d (64 x N, the warpgroup's accumulators, N/8 blocks of 4) += A(64 x 16) * B(16 x N), A and B by
// descriptor; Trans: 0 K-major, 1 MN-major (16-bit inputs only). scale_d 0 ignores d's old value.
template <int N, bool Bf16, int TransA, int TransB>
__device__ inline void wgmma_m64k16(float (&d)[N / 8][4], std::uint64_t a, std::uint64_t b, int scale_d = 1) {
  static_assert(N == 64 || N == 128, "wgmma widths instantiated here: 64 and 128");
#if defined(__CUDA_ARCH__)
  if constexpr (N == 64) {
    if constexpr (Bf16) TG_WGMMA_M64N64K16("bf16"); else TG_WGMMA_M64N64K16("f16");
  } else {
    if constexpr (Bf16) TG_WGMMA_M64N128K16("bf16"); else TG_WGMMA_M64N128K16("f16");
  }
#endif
}

// d (64 x N) += A(64 x 8) * B(8 x N) on fp32 operands read as tf32 (the low 13 mantissa bits ignored),
// both K-major: tf32 wgmma has no transpose operands. Its k step is 32 bytes of each operand row, as
// m64nNk16's is of 16-bit ones, so the same descriptors and per-step offsets (in bytes) serve both.
template <int N>
__device__ inline void wgmma_m64k8_tf32(float (&d)[N / 8][4], std::uint64_t a, std::uint64_t b, int scale_d = 1) {
  static_assert(N == 64 || N == 128, "wgmma widths instantiated here: 64 and 128");
#if defined(__CUDA_ARCH__)
  if constexpr (N == 64) TG_WGMMA_M64N64K8_TF32(); else TG_WGMMA_M64N128K8_TF32();
#endif
}
#undef TG_WGMMA_M64N64K16
#undef TG_WGMMA_M64N128K16
#undef TG_WGMMA_M64N64K8_TF32
#undef TG_WGMMA_M64N128K8_TF32
#undef TG_WGMMA_D8
#undef TG_WGMMA_D64
#undef TG_WGMMA_D128
#undef TG_WGMMA_R32
#undef TG_WGMMA_R64
#endif  // TG_NV_WGMMA

}  // namespace tg::arch
