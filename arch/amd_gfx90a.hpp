// AMD CDNA2, gfx90a (Instinct MI200). Instruction availability checked with llvm-mc-15 -mcpu=gfx90a;
// register/occupancy rules as in LLVM's AMDGPU backend (one 512-register file, AGPRs allocatable).
#pragma once
#include "arch/mfma_amd.hpp"
#include "arch/target.hpp"

namespace tg::arch {

struct amd_gfx90a {
  static constexpr const char* name = "gfx90a";
  static constexpr vendor vendor_id = vendor::amd;
  static constexpr int wave_size = 64;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int simds_per_cu = 4;
  static constexpr int max_waves_per_simd = 8;
  static constexpr int lds_bytes_per_block = 64 * 1024;
  static constexpr int lds_bytes_per_cu = 64 * 1024;
  static constexpr int lds_banks = 32;
  static constexpr int vector_bytes = 16;
  // Registers: one unified file of 512 per lane of a SIMD. A wave has up to 256 ArchVGPRs plus up
  // to 256 AGPRs; its AGPRs start after its ArchVGPRs rounded up to 4. MFMA C/D may use either.
  static constexpr bool unified_vgpr_file = true;
  static constexpr int vgpr_file_per_lane = 512;
  static constexpr int agpr_file_per_lane = 0;         // no separate file
  static constexpr int max_vgprs_per_wave = 256;
  static constexpr int max_agprs_per_wave = 256;
  static constexpr int vgpr_alloc_granule = 8;
  static constexpr bool mfma_acc_in_vgprs = true;
  static constexpr int waves_per_simd(int vgprs, int agprs) {
    const int total = agprs > 0 ? (vgprs + 3) / 4 * 4 + agprs : vgprs;
    const int n = ((total > 0 ? total : 1) + vgpr_alloc_granule - 1) / vgpr_alloc_granule * vgpr_alloc_granule;
    const int w = vgpr_file_per_lane / n;
    return w < 1 ? 1 : (w > max_waves_per_simd ? max_waves_per_simd : w);
  }
  static constexpr bool has_buffer_load = true;
  static constexpr bool has_buffer_load_lds = true;
  // Global fp atomics (with and without return). They act on coarse-grained memory only:
  // fine-grained (host-coherent) allocations need CAS loops.
  static constexpr bool atomic_add_f32 = true;         // global_atomic_add_f32
  static constexpr bool atomic_add_f32_returns = true;
  static constexpr bool atomic_add_f16x2 = true;       // global_atomic_pk_add_f16
  static constexpr bool atomic_add_bf16x2 = false;
  static constexpr bool atomic_add_f64 = true;         // global_atomic_add_f64
  static constexpr bool lds_atomic_add_f32 = true;     // ds_add_f32
  static constexpr bool has_mfma = true;
  static constexpr bool has_mfma_bf16_1k = true;       // 32x32x8bf16_1k, 16x16x16bf16_1k
  static constexpr bool has_mfma_bf16_legacy = true;   // 32x32x4bf16 still encodable
  static constexpr bool has_mfma_f64 = true;
};
static_assert(target_description<amd_gfx90a>);

}  // namespace tg::arch
