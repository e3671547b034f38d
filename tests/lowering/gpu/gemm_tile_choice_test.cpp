// The cp.async pipeline's tile choice (lowering/gpu/gemm_tile_choice.hpp) on representative problems,
// with the NVIDIA and AMD tables' numbers (gemm.hpp's gemm_tile_table).
#include <gtest/gtest.h>
#include "lowering/gpu/gemm_tile_choice.hpp"

namespace {
using tg::cp_async_tile;
using tg::choose_cp_async_tile;
// NVIDIA: the small-M kernel up to 8 rows; single GEMMs (backward weight) have the 32-row narrow
// tile, batches (backward data) the 64-column half_n tile.
constexpr tg::cp_async_table_facts nv_single{true, 8, true, 32, false, 128};
constexpr tg::cp_async_table_facts nv_batch{true, 8, false, 32, true, 64};
// AMD: the small-M kernel for one row only; half_n is main again (64 columns wide already).
constexpr tg::cp_async_table_facts amd_single{true, 1, true, 32, false, 64};
constexpr tg::cp_async_table_facts amd_batch{true, 1, false, 32, false, 64};

TEST(GemmTileChoice, Nvidia) {
  EXPECT_EQ(choose_cp_async_tile(1, 49 * 1, nv_single), cp_async_tile::small_one_row);      // depthwise backward weight
  EXPECT_EQ(choose_cp_async_tile(8, 9 * 8, nv_single), cp_async_tile::small_rows);         // resnext backward weight (K/G = 8)
  EXPECT_EQ(choose_cp_async_tile(16, 9 * 16, nv_single), cp_async_tile::narrow);           // grouped backward weight, 16 per group
  EXPECT_EQ(choose_cp_async_tile(256, 9 * 128, nv_single), cp_async_tile::main);           // dense backward weight (seed)
  EXPECT_EQ(choose_cp_async_tile(128 * 36 * 36, 128, nv_batch), cp_async_tile::main);      // backward data (seed)
  EXPECT_EQ(choose_cp_async_tile(64 * 56 * 56, 64, nv_batch), cp_async_tile::half_n);     // backward data with C = 64
  EXPECT_EQ(choose_cp_async_tile(16, 64, nv_batch), cp_async_tile::half_n);               // a batch has no narrow tile
}

TEST(GemmTileChoice, Amd) {
  EXPECT_EQ(choose_cp_async_tile(1, 49, amd_single), cp_async_tile::small_one_row);
  EXPECT_EQ(choose_cp_async_tile(8, 72, amd_single), cp_async_tile::narrow);  // no 8-row small-M kernel there
  EXPECT_EQ(choose_cp_async_tile(64 * 56 * 56, 64, amd_batch), cp_async_tile::main);
}

TEST(GemmTileChoice, ViewsWithoutTheSmallKernel) {
  tg::cp_async_table_facts t = nv_single;
  t.small_ok = false;  // views the small-M kernel does not take (not affine splits)
  EXPECT_EQ(choose_cp_async_tile(1, 49, t), cp_async_tile::narrow);
  EXPECT_EQ(choose_cp_async_tile(8, 72, t), cp_async_tile::narrow);
}
}  // namespace
