// NVIDIA thread-block clusters (sm_90): blocks of a cluster run at once on one GPC and reach each
// other's shared memory. The TMA GEMM pairs two blocks whose tiles share an operand: each copy of
// that operand is read from L2 once and multicast to both, so a pair moves a third to a sixth fewer
// bytes from L2 per flop. Here: the block's rank, a barrier across the cluster, an arrival on a barrier
// in another block's shared memory, and the launch with a cluster shape.
#pragma once
#include <cstdint>
#include "arch/mbarrier_nvidia.hpp"
#include "arch/runtime.hpp"

#if defined(__CUDACC__) && !defined(__HIP__)
namespace tg::arch {
// This block's rank in its cluster (0 without one).
__device__ inline unsigned cluster_rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}

// Every thread of every block of the cluster: barriers initialised before a partner's copies signal
// them, and no block leaving while a partner may still write its shared memory. Not .aligned: the
// producer warp's thread 0 arrives later than its other lanes.
__device__ inline void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}

// Arrives on the barrier at `bar`'s address in the shared memory of cluster block `rank`.
__device__ inline void mbarrier_arrive_cluster(std::uint64_t* bar, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
#endif
}

// kernel<<<grid, block, shmem, s>>> in clusters of `cluster` blocks along x (grid.x a multiple of it).
template <class... Params, class... Args>
void launch_clusters(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shmem, cudaStream_t s, unsigned cluster, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel argument count");
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = shmem, cfg.stream = s;
  cudaLaunchAttribute at[1]{};
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = cluster, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
  cfg.attrs = at, cfg.numAttrs = 1;
  TG_CHECK(cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(std::forward<Args>(args))...));
}

// How many clusters of `cluster` blocks of `kernel` run at once (0 where none fits).
template <class... Params>
int max_active_clusters(void (*kernel)(Params...), int threads, std::size_t shmem, unsigned cluster) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(cluster * 64), cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = shmem;
  cudaLaunchAttribute at[1]{};
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = cluster, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
  cfg.attrs = at, cfg.numAttrs = 1;
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) return (void)cudaGetLastError(), 0;
  return n;
}
}  // namespace tg::arch
#endif
