// AMD CDNA1, gfx908 (Instinct MI100). Instruction availability checked with llvm-mc-15 -mcpu=gfx908;
// register/occupancy rules as in LLVM's AMDGPU backend (separate ArchVGPR and AccVGPR files).
#pragma once
#include "arch/mfma_amd.hpp"
#include "arch/target.hpp"

namespace tg::arch {

struct amd_gfx908 {
  static constexpr const char* name = "gfx908";
  static constexpr vendor vendor_id = vendor::amd;
  static constexpr int wave_size = 64;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int simds_per_cu = 4;
  static constexpr int max_waves_per_simd = 10;
  static constexpr int lds_bytes_per_block = 64 * 1024;
  static constexpr int lds_bytes_per_cu = 64 * 1024;
  static constexpr int lds_banks = 32;                 // 4-byte banks
  static constexpr int vector_bytes = 16;              // global/buffer_load_dwordx4, ds_read_b128
  // Registers: 256 ArchVGPRs and, separately, 256 AccVGPRs (AGPRs) per lane of a SIMD. MFMA C/D
  // must live in AGPRs on gfx908 (the calculator's "C and D matrix can use ArchVGPRs: False").
  static constexpr bool unified_vgpr_file = false;
  static constexpr int vgpr_file_per_lane = 256;
  static constexpr int agpr_file_per_lane = 256;
  static constexpr int max_vgprs_per_wave = 256;
  static constexpr int max_agprs_per_wave = 256;
  static constexpr int vgpr_alloc_granule = 4;
  static constexpr bool mfma_acc_in_vgprs = false;
  // Waves per SIMD that a kernel using `vgprs` ArchVGPRs and `agprs` AGPRs can keep resident.
  static constexpr int waves_per_simd(int vgprs, int agprs) {
    const int used = (vgprs > agprs ? vgprs : agprs);
    const int n = ((used > 0 ? used : 1) + vgpr_alloc_granule - 1) / vgpr_alloc_granule * vgpr_alloc_granule;
    const int w = vgpr_file_per_lane / n;
    return w < 1 ? 1 : (w > max_waves_per_simd ? max_waves_per_simd : w);
  }
  static constexpr bool has_buffer_load = true;        // buffer_load_* with a buffer resource (OOB -> 0)
  static constexpr bool has_buffer_load_lds = true;    // buffer_load_dword ... lds (global -> LDS)
  // Atomics on global memory: fp32 add and packed fp16 add exist only WITHOUT return on gfx908.
  static constexpr bool atomic_add_f32 = true;         // global_atomic_add_f32
  static constexpr bool atomic_add_f32_returns = false;
  static constexpr bool atomic_add_f16x2 = true;       // global_atomic_pk_add_f16
  static constexpr bool atomic_add_bf16x2 = false;
  static constexpr bool atomic_add_f64 = false;
  static constexpr bool lds_atomic_add_f32 = true;     // ds_add_f32
  // Matrix cores (arch/mfma_amd.hpp).
  static constexpr bool has_mfma = true;               // f16 32x32x8, 16x16x16; f32 32x32x2
  static constexpr bool has_mfma_bf16_1k = false;
  static constexpr bool has_mfma_bf16_legacy = true;   // 32x32x4bf16
  static constexpr bool has_mfma_f64 = false;
};
static_assert(target_description<amd_gfx908>);

}  // namespace tg::arch
