// NVIDIA Tensor Memory Accelerator (sm_90): tensor maps encoded on the host through the driver entry
// point the CUDA runtime hands out (no link against libcuda), passed to kernels as __grid_constant__
// parameters, and `cp.async.bulk.tensor` box loads that complete on an mbarrier and box stores in
// bulk groups. Boxes use the 128-byte swizzle, which is wgmma's canonical shared-memory layout for
// 128-byte rows.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include "arch/mbarrier_nvidia.hpp"
#include "arch/tma_box.hpp"

#if defined(__CUDACC__) && !defined(__HIP__)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

namespace tg::arch {
using tensor_map = CUtensorMap;

// The element types a map carries: wgmma's 16-bit operands, and fp32 (read by wgmma as tf32).
enum class tma_elem { f16, bf16, f32 };
constexpr int elem_bytes(tma_elem e) { return e == tma_elem::f32 ? 4 : 2; }

// The shared-memory layout of a box: wgmma's 128-byte swizzle, or plain (axis 0 fastest, no gaps).
enum class tma_layout { swizzle128, plain };

// Encodes box `b` over the tensor at `data` (elements of e's size), L2 filled from DRAM in pieces of
// l2_promotion_bytes (256, 128 or 0: none), laid out in shared memory as `layout`. Throws with the
// reason or the driver's code when the box breaks a documented limit or the driver rejects it (the
// lowering checks the limits first, so this is a bug report).
inline tensor_map encode_tma(const tma_box& b, const void* data, tma_elem e, int l2_promotion_bytes = 256, tma_layout layout = tma_layout::swizzle128) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error("tilegrad: the CUDA driver has no cuTensorMapEncodeTiled (needs a CUDA 12+ driver)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  tma_map_params p;
  if (const char* why = tma_map_params_of(b, elem_bytes(e), data, layout == tma_layout::swizzle128, p))
    throw std::runtime_error(std::string("tilegrad: a TMA box the driver would refuse: ") + why);
  const CUtensorMapDataType type = e == tma_elem::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : e == tma_elem::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  tensor_map m{};
  const CUresult r = encode(&m, type, static_cast<cuuint32_t>(p.rank), reinterpret_cast<void*>(p.origin), p.dims, p.strides_bytes, p.box,
                            p.elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            layout == tma_layout::plain ? CU_TENSOR_MAP_SWIZZLE_NONE : CU_TENSOR_MAP_SWIZZLE_128B,
                            l2_promotion_bytes >= 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                            : l2_promotion_bytes >= 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                         : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("tilegrad: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)));
  return m;
}

// Loads the box at coordinates c[0..R) (axis 0 first) into shared memory at dst (1024-byte aligned for
// the 128-byte swizzle), counting its bytes on barrier `bar`. The rank as a template argument, so that
// a caller issuing many boxes of one map switches on it once.
template <int R>
__device__ inline void tma_load_rank(void* dst, const tensor_map* map, std::uint64_t* bar, const int (&c)[tma_box::max_rank]) {
  static_assert(R >= 1 && R <= tma_box::max_rank, "a TMA box of rank 1 to 5");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const std::uint32_t d = smem_addr(dst), m = smem_addr(bar);
  const auto g = reinterpret_cast<std::uint64_t>(map);
  if constexpr (R == 1) {
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];\n" ::"r"(d), "l"(g),
                 "r"(m), "r"(c[0])
                 : "memory");
  } else if constexpr (R == 2) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(d),
                 "l"(g), "r"(m), "r"(c[0]), "r"(c[1])
                 : "memory");
  } else if constexpr (R == 3) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(d),
                 "l"(g), "r"(m), "r"(c[0]), "r"(c[1]), "r"(c[2])
                 : "memory");
  } else if constexpr (R == 4) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(d),
                 "l"(g), "r"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])
                 : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(d),
        "l"(g), "r"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4])
        : "memory");
  }
#endif
}

// The same with the rank a run-time value (rank of c0.. used).
__device__ inline void tma_load(void* dst, const tensor_map* map, std::uint64_t* bar, int rank, int c0, int c1, int c2, int c3, int c4) {
  const int c[tma_box::max_rank] = {c0, c1, c2, c3, c4};
  switch (rank) {
    case 1: tma_load_rank<1>(dst, map, bar, c); break;
    case 2: tma_load_rank<2>(dst, map, bar, c); break;
    case 3: tma_load_rank<3>(dst, map, bar, c); break;
    case 4: tma_load_rank<4>(dst, map, bar, c); break;
    default: tma_load_rank<5>(dst, map, bar, c); break;
  }
}

// Stores the box at coordinates c0.. (axis 0 first, rank of them used) from shared memory at src (1024-byte
// aligned for the 128-byte swizzle) into the tensor; elements past its edges are not written. The store
// joins the thread's open bulk group (tma_store_commit); src must hold until tma_store_wait_read says the
// group has read it, and the generic proxy's writes to src must be fenced first (fence_async_shared).
__device__ inline void tma_store(const tensor_map* map, const void* src, int rank, int c0, int c1, int c2, int c3, int c4) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const std::uint32_t s = smem_addr(src);
  const auto g = reinterpret_cast<std::uint64_t>(map);
  switch (rank) {
    case 1:
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];\n" ::"l"(g), "r"(s), "r"(c0) : "memory");
      break;
    case 2:
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(g), "r"(s), "r"(c0), "r"(c1) : "memory");
      break;
    case 3:
      asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(g), "r"(s), "r"(c0), "r"(c1), "r"(c2)
                   : "memory");
      break;
    case 4:
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(g), "r"(s), "r"(c0), "r"(c1),
                   "r"(c2), "r"(c3)
                   : "memory");
      break;
    default:
      asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n" ::"l"(g), "r"(s), "r"(c0),
                   "r"(c1), "r"(c2), "r"(c3), "r"(c4)
                   : "memory");
      break;
  }
#endif
}
// One sm_90 instruction without operands (nothing on other device passes).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TG_SM90_ASM(text) asm volatile(text ::: "memory")
#else
#define TG_SM90_ASM(text) ((void)0)
#endif
// Closes the thread's open bulk group of stores.
__device__ inline void tma_store_commit() { TG_SM90_ASM("cp.async.bulk.commit_group;\n"); }
// Waits until the thread's committed store groups have read their shared memory (it may be rewritten).
__device__ inline void tma_store_wait_read() { TG_SM90_ASM("cp.async.bulk.wait_group.read 0;\n"); }
// Waits until the thread's committed store groups have written global memory.
__device__ inline void tma_store_wait_all() { TG_SM90_ASM("cp.async.bulk.wait_group 0;\n"); }
// Makes this thread's ordinary shared-memory writes visible to the TMA (the async proxy).
__device__ inline void fence_async_shared() { TG_SM90_ASM("fence.proxy.async.shared::cta;\n"); }

// Brings a tensor map into the cache ahead of its first use.
__device__ inline void tma_prefetch_map(const tensor_map* map) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#endif
}
}  // namespace tg::arch
#endif
