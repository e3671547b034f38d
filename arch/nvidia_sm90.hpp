// NVIDIA Hopper, compute capability 9.0 (H100/H200). Numbers from the CUDA C++ Programming Guide's
// compute-capability table (checked against cudaGetDeviceProperties on an H100 by
// tests/arch/atoms_device_check.cu); atomics from ptxas 13.0.
#pragma once
#include "arch/mma_nvidia.hpp"
#include "arch/target.hpp"

namespace tg::arch {

struct nvidia_sm90 {
  static constexpr const char* name = "sm_90";
  static constexpr vendor vendor_id = vendor::nvidia;
  static constexpr int compute_capability = 90;
  static constexpr int warp_size = 32;
  static constexpr int wave_size = warp_size;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int max_threads_per_sm = 2048;
  static constexpr int max_blocks_per_sm = 32;
  static constexpr int shared_bytes_per_block_default = 48 * 1024;  // more needs cudaFuncSetAttribute
  static constexpr int lds_bytes_per_block = 227 * 1024;            // opt-in maximum
  static constexpr int lds_bytes_per_cu = 228 * 1024;               // shared memory per SM
  static constexpr int registers_per_sm = 64 * 1024;
  static constexpr int registers_per_block = 64 * 1024;
  static constexpr int max_registers_per_thread = 255;
  static constexpr int vector_bytes = 16;
  static constexpr bool atomic_add_f32 = true;
  static constexpr bool atomic_add_f16x2 = true;
  static constexpr bool atomic_add_bf16x2 = true;                   // red.add.noftz.bf16x2 needs sm_90
  static constexpr bool has_cp_async = true;
  static constexpr bool has_mma_sync = true;                        // sm_80 atoms still run here
  // Warpgroup MMA (wgmma.mma_async, 128 threads, operands from shared memory descriptors) exists
  // only when compiling for the architecture-specific target sm_90a (-arch=sm_90a); plain sm_90
  // PTX cannot use it.
  static constexpr bool has_wgmma = true;
  static constexpr const char* wgmma_target = "sm_90a";
  static constexpr bool has_tma = true;                             // cp.async.bulk.tensor
  static constexpr int max_cluster_blocks_portable = 8;             // thread-block clusters
};
static_assert(target_description<nvidia_sm90>);

}  // namespace tg::arch
