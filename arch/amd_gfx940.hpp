// AMD CDNA3, gfx940: stands for the MI300 family (clang 15/16 do not know gfx942). Instruction
// availability checked with llvm-mc-15 -mcpu=gfx940; registers as on gfx90a.
#pragma once
#include "arch/mfma_amd.hpp"
#include "arch/target.hpp"

namespace tg::arch {

struct amd_gfx940 {
  static constexpr const char* name = "gfx940";
  static constexpr vendor vendor_id = vendor::amd;
  static constexpr int wave_size = 64;
  static constexpr int max_threads_per_block = 1024;
  static constexpr int simds_per_cu = 4;
  static constexpr int max_waves_per_simd = 8;
  static constexpr int lds_bytes_per_block = 64 * 1024;
  static constexpr int lds_bytes_per_cu = 64 * 1024;
  static constexpr int lds_banks = 32;
  static constexpr int vector_bytes = 16;
  static constexpr bool unified_vgpr_file = true;
  static constexpr int vgpr_file_per_lane = 512;
  static constexpr int agpr_file_per_lane = 0;
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
  // gfx940 adds packed bf16 add and flat fp32 add; the "returning" forms use sc0 instead of glc.
  static constexpr bool atomic_add_f32 = true;         // global_atomic_add_f32 (also flat_)
  static constexpr bool atomic_add_f32_returns = true;
  static constexpr bool atomic_add_f16x2 = true;       // global_atomic_pk_add_f16
  static constexpr bool atomic_add_bf16x2 = true;      // global_atomic_pk_add_bf16
  static constexpr bool atomic_add_f64 = true;
  static constexpr bool lds_atomic_add_f32 = true;     // ds_add_f32 (and ds_pk_add_f16)
  static constexpr bool has_mfma = true;
  static constexpr bool has_mfma_bf16_1k = true;       // spelled v_mfma_f32_32x32x8_bf16 etc. here
  static constexpr bool has_mfma_bf16_legacy = false;  // 32x32x4bf16 (2 per lane) was removed
  static constexpr bool has_mfma_f64 = true;
};
static_assert(target_description<amd_gfx940>);

}  // namespace tg::arch
