// NVIDIA Ampere, compute capability 8.0 (A100). Numbers from the CUDA C++ Programming Guide's
// compute-capability table; the atomics from ptxas 13.0 (which rejects red.add.bf16x2 below sm_90).
#pragma once
#include "arch/mma_nvidia.hpp"
#include "arch/target.hpp"

namespace tg::arch {

struct nvidia_sm80 {
  static constexpr const char* name = "sm_80";
  static constexpr vendor vendor_id = vendor::nvidia;
  static constexpr int compute_capability = 80;
  static constexpr int warp_size = 32;
  static constexpr int wave_size = warp_size;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int max_threads_per_sm = 2048;
  static constexpr int max_blocks_per_sm = 32;
  static constexpr int shared_bytes_per_block_default = 48 * 1024;  // more needs cudaFuncSetAttribute
  static constexpr int lds_bytes_per_block = 163 * 1024;            // opt-in maximum
  static constexpr int lds_bytes_per_cu = 164 * 1024;               // shared memory per SM
  static constexpr int registers_per_sm = 64 * 1024;                // 32-bit registers
  static constexpr int registers_per_block = 64 * 1024;
  static constexpr int max_registers_per_thread = 255;
  static constexpr int vector_bytes = 16;                           // ld/st .v4.b32, cp.async 16 B
  static constexpr bool atomic_add_f32 = true;
  static constexpr bool atomic_add_f16x2 = true;                    // red.add.noftz.f16x2 (sm_60+)
  static constexpr bool atomic_add_bf16x2 = false;                  // sm_90+; CUDA emulates it with CAS
  static constexpr bool has_cp_async = true;                        // global -> shared without registers
  static constexpr bool has_mma_sync = true;                        // the atoms of arch/mma_nvidia.hpp
  static constexpr bool has_wgmma = false;
  static constexpr bool has_tma = false;
};
static_assert(target_description<nvidia_sm80>);

}  // namespace tg::arch
