// Host tests of the target descriptions (arch/nvidia_sm*.hpp, arch/amd_gfx*.hpp). The expected
// numbers were measured, not copied from the headers: occupancy is what clang-15 reports
// ("; Occupancy:") for kernels that clobber v0..v(V-1) and a0..a(A-1); instruction availability
// is what llvm-mc-15 / ptxas 13.0 accept for each target; sm_90 sizes are cudaGetDeviceProperties
// on an H200 (tests/arch/atoms_device_check.cu prints and checks them on any GPU).
#include <gtest/gtest.h>

#include "arch/amd_gfx908.hpp"
#include "arch/amd_gfx90a.hpp"
#include "arch/amd_gfx940.hpp"
#include "arch/nvidia_sm80.hpp"
#include "arch/nvidia_sm90.hpp"

namespace {
namespace ta = tg::arch;

struct occupancy_case {
  int vgprs, agprs, gfx908, gfx90a;  // gfx940 reports the same as gfx90a
};
// clang-15 -O3 --cuda-device-only -S, "; NumVgprs / NumAgprs / Occupancy".
const occupancy_case occupancy_cases[] = {
    {20, 0, 10, 8},  {64, 0, 4, 8},   {65, 0, 3, 7},    {100, 0, 2, 4},  {128, 0, 2, 4},
    {129, 0, 1, 3},  {256, 0, 1, 2},  {40, 40, 6, 6},   {64, 64, 4, 4},  {101, 60, 2, 3},
    {128, 128, 2, 2}, {30, 100, 2, 3}, {256, 256, 1, 1}, {13, 201, 1, 2},
};

TEST(ArchTarget, AmdOccupancyMatchesCompiler) {
  for (const auto& c : occupancy_cases) {
    EXPECT_EQ(ta::amd_gfx908::waves_per_simd(c.vgprs, c.agprs), c.gfx908) << c.vgprs << " v, " << c.agprs << " a";
    EXPECT_EQ(ta::amd_gfx90a::waves_per_simd(c.vgprs, c.agprs), c.gfx90a) << c.vgprs << " v, " << c.agprs << " a";
    EXPECT_EQ(ta::amd_gfx940::waves_per_simd(c.vgprs, c.agprs), c.gfx90a) << c.vgprs << " v, " << c.agprs << " a";
  }
}

TEST(ArchTarget, AmdCommonFacts) {
  static_assert(ta::amd_gfx908::wave_size == 64 && ta::amd_gfx90a::wave_size == 64 && ta::amd_gfx940::wave_size == 64);
  static_assert(ta::amd_gfx908::lds_bytes_per_block == 65536 && ta::amd_gfx90a::lds_bytes_per_block == 65536 &&
                ta::amd_gfx940::lds_bytes_per_block == 65536);
  static_assert(!ta::amd_gfx908::unified_vgpr_file && ta::amd_gfx90a::unified_vgpr_file &&
                ta::amd_gfx940::unified_vgpr_file);
  static_assert(ta::amd_gfx908::vgpr_file_per_lane + ta::amd_gfx908::agpr_file_per_lane == 512);
  static_assert(ta::amd_gfx90a::vgpr_file_per_lane == 512 && ta::amd_gfx940::vgpr_file_per_lane == 512);
  SUCCEED();
}

// llvm-mc-15: gfx908 accepts global_atomic_add_f32 / pk_add_f16 only without glc (no return);
// pk_add_bf16 only on gfx940; add_f64 on gfx90a and gfx940.
TEST(ArchTarget, AmdAtomics) {
  static_assert(ta::amd_gfx908::atomic_add_f32 && !ta::amd_gfx908::atomic_add_f32_returns);
  static_assert(ta::amd_gfx90a::atomic_add_f32_returns && ta::amd_gfx940::atomic_add_f32_returns);
  static_assert(ta::amd_gfx908::atomic_add_f16x2 && ta::amd_gfx90a::atomic_add_f16x2 && ta::amd_gfx940::atomic_add_f16x2);
  static_assert(!ta::amd_gfx908::atomic_add_bf16x2 && !ta::amd_gfx90a::atomic_add_bf16x2 &&
                ta::amd_gfx940::atomic_add_bf16x2);
  static_assert(!ta::amd_gfx908::atomic_add_f64 && ta::amd_gfx90a::atomic_add_f64 && ta::amd_gfx940::atomic_add_f64);
  SUCCEED();
}

// llvm-mc-15 / clang-15: which MFMA atoms each target can execute.
TEST(ArchTarget, AmdMfmaAvailability) {
  static_assert(ta::amd_gfx908::has_mfma && ta::amd_gfx90a::has_mfma && ta::amd_gfx940::has_mfma);
  static_assert(!ta::amd_gfx908::has_mfma_bf16_1k && ta::amd_gfx90a::has_mfma_bf16_1k && ta::amd_gfx940::has_mfma_bf16_1k);
  static_assert(ta::amd_gfx908::has_mfma_bf16_legacy && ta::amd_gfx90a::has_mfma_bf16_legacy &&
                !ta::amd_gfx940::has_mfma_bf16_legacy);
  static_assert(!ta::amd_gfx908::mfma_acc_in_vgprs && ta::amd_gfx90a::mfma_acc_in_vgprs);
  SUCCEED();
}

TEST(ArchTarget, Nvidia) {
  static_assert(ta::nvidia_sm80::warp_size == 32 && ta::nvidia_sm90::warp_size == 32);
  static_assert(ta::nvidia_sm90::lds_bytes_per_block == 232448 && ta::nvidia_sm90::lds_bytes_per_cu == 233472);
  static_assert(ta::nvidia_sm80::lds_bytes_per_block == 166912 && ta::nvidia_sm80::lds_bytes_per_cu == 167936);
  static_assert(ta::nvidia_sm90::registers_per_block == 65536);
  // ptxas 13.0: red.global.add.noftz.bf16x2 "requires .target sm_90 or higher"; f16x2 and f32 fine on sm_80.
  static_assert(!ta::nvidia_sm80::atomic_add_bf16x2 && ta::nvidia_sm90::atomic_add_bf16x2);
  static_assert(ta::nvidia_sm80::atomic_add_f16x2 && ta::nvidia_sm80::atomic_add_f32);
  static_assert(!ta::nvidia_sm80::has_wgmma && ta::nvidia_sm90::has_wgmma);
  SUCCEED();
}

}  // namespace
