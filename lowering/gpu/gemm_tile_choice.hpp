// Which entry of the cp.async pipeline's tile table (gemm.hpp) takes a batch: a function of the
// batch's largest M and N and of the table's numbers alone, never of which op runs (host-tested:
// tests/lowering/gpu/gemm_tile_choice_test.cpp).
#pragma once
#include "dsl/config.hpp"

namespace tg {
enum class cp_async_tile {
  small_one_row,  // the small-M kernel, one row per group (depthwise the sliding pipeline does not take)
  small_rows,     // the small-M kernel, up to small_max_m rows per group (resnext-like)
  narrow,         // single GEMMs with few rows (grouped backward weight)
  half_n,         // batches with at most half_n_bn columns (backward data with few channels)
  main,
};

// What the choice needs of a table (gemm_tile_table's entries, as numbers).
struct cp_async_table_facts {
  bool small_ok = false;  // the batch's views take the small-M kernel (gemm_launch.hpp: small_m_ok)
  int small_max_m = 1;
  bool has_narrow = false;
  int narrow_bm = 0;
  bool has_half_n = false;  // an entry of its own (not main again)
  int half_n_bn = 0;
};

constexpr cp_async_tile choose_cp_async_tile(index_t max_m, index_t max_n, const cp_async_table_facts& t) {
  if (t.small_ok) {
    if (max_m == 1) return cp_async_tile::small_one_row;
    if (t.small_max_m > 1 && max_m <= t.small_max_m) return cp_async_tile::small_rows;
  }
  if (t.has_narrow && max_m <= t.narrow_bm) return cp_async_tile::narrow;
  if (t.has_half_n && max_n <= t.half_n_bn) return cp_async_tile::half_n;
  return cp_async_tile::main;
}
}  // namespace tg
