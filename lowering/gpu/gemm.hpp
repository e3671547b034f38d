// GPU implicit GEMM: global -> shared memory (a multi-stage pipeline of 16-byte asynchronous copies
// where the view's memory runs allow, element loads where not) -> matrix cores: wgmma straight from
// the shared tiles on sm_90a (16-bit tiles of whole warpgroups), else per-lane fragments (ldmatrix on
// NVIDIA, load_tile through the atom's fragment distribution elsewhere) and the atom -> epilogue. The schedule (block tile, warps, stages) comes from gemm_tile_table below; the atom from
// arch::default_atom of the element type, so the same kernel is mma.sync on NVIDIA (warp 32) and MFMA
// on AMD (wave 64). Any im2col / col2im view works (padding reads zero); one launch covers all groups,
// split-K chunks and col2im classes (grid z).
#pragma once
#include "lowering/gpu/gemm_launch.hpp"
#include "lowering/gpu/gemm_tile_choice.hpp"

// The pipeline in parts: gemm_policy.hpp (schedule knobs), gemm_fill.hpp (operand tiles to shared
// memory), gemm_consumer.hpp (the matrix-core family: gemm_consumer_wgmma.hpp,
// gemm_consumer_ldmatrix.hpp, gemm_consumer_fragments.hpp), gemm_store.hpp and gemm_drain.hpp (the
// epilogue), gemm_kernel.hpp (the kernel that strings them), gemm_support_kernels.hpp (k entries,
// summaries, split-K reduction), gemm_launch.hpp (host side); here the tile table and the entry.
namespace tg {
// The tile table: the schedule per problem shape, op and architecture. Entries are compile-time
// tile shapes (each one more instantiation of the kernel); the choice is made per problem here.
// NVIDIA (cp.async pipeline; wgmma from the shared tiles on sm_90a for 16-bit main and half_n tiles,
// ldmatrix fragments and mma.sync otherwise):
//   main    128x128x32, 4 stages (3 for fp32): 2x2 warps for 16-bit batches (backward data), 2x4
//           for single GEMMs (backward weight) and fp32; 16-bit batches take 128x128x64 in 3 stages.
//           wgmma tiles keep each k-tile's batch in flight during the next fill, except 16-bit batches.
//   narrow  32x64x32, 1x4 warps, 4 stages: single GEMMs with 9 to 32 rows (grouped backward weight,
//           M = K/G), where a wider tile would compute mostly padding. 1 to 8 rows (depthwise,
//           resnext): the small-M kernel on the ordinary cores (gemm_small.hpp), small_max_m.
//   half_n  128x64x32, 2x2 warps: batches with at most 64 columns (backward data, C <= 64).
// AMD (copies through registers, 64 KiB of LDS): wide 64x64x32 with 2x2 waves of 64, and narrow
// 32x64x32 with 1x2 waves, both two stages; the small-M kernel for one row only (its 8-row form needs
// 255 VGPRs plus AGPRs there, one wave per SIMD).
template <class Batch>
struct gemm_tile_table {
#if defined(__HIP__)
  using main = gpu_gemm::tile_policy<64, 64, 32, 2, 2, 2>;
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 2, 2>;
  using half_n = main;  // main is 64 columns wide already
  static constexpr int small_max_m = 1;
#else
  using E = gpu_gemm::elem_t<decltype(std::declval<Batch>().views(0).a)>;
  // Batches of GEMMs (col2im classes: backward data) 2x2 warps of 64x64 (half the shared-memory
  // traffic per mma); single GEMMs (backward weight: long split-K reductions, fill-bound) 2x4 warps of
  // 64x32, where 2x2 measured slower (performance.md v16).
  // fp32 (tf32 atoms: twice the fragment registers) keeps 2x4 everywhere: 2x2 needed stack on sm_80.
  // The k-entry ring (section 9 of performance.md) for single GEMMs (backward weight: B's k-tiles are
  // not uniform) where it measured faster: fp32 and the narrow tile; fp16's main tile went from 128
  // to 168 registers with it (one block per SM) and slower.
  static constexpr bool single = is_single_gemm<Batch>::value;
  // 16-bit batches: k-tiles of 64 in 3 stages, each wgmma batch waited for (BK 32 with the batch in
  // flight measured 9% slower on the seed case, 15% in NCHW: performance.md section 13).
  static constexpr bool b16_batch = !single && sizeof(E) == 2;
  using main = gpu_gemm::tile_policy<128, 128, b16_batch ? 64 : 32, 2, single || sizeof(E) != 2 ? 4 : 2, sizeof(E) == 2 ? (b16_batch ? 3 : 4) : 3,
                                     single && sizeof(E) != 2, !b16_batch>;
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 4, 4, true>;
  // Batches of GEMMs with at most 64 columns (backward data with C <= 64): 128x64, 2x2 warps of 64x32,
  // where main's 128 columns would be half padding.
  using half_n = gpu_gemm::tile_policy<128, 64, 32, 2, 2, sizeof(E) == 2 ? 4 : 3>;
  static constexpr int small_max_m = 8;  // most rows per group for the small-M kernel
#endif
  static constexpr bool has_narrow = is_single_gemm<Batch>::value;
  static constexpr bool has_half_n = !is_single_gemm<Batch>::value;
  static constexpr cp_async_table_facts facts{gpu_gemm::small_m_ok<Batch>(), small_max_m, has_narrow, narrow::BM,
                                              has_half_n && !std::is_same_v<half_n, main>, half_n::BN};
};

// The cp.async pipeline (AMD, sm_80, and what the TMA pipeline does not take: gemm_dispatch.hpp).
template <class Batch>
void gemm_cp_async(gpu_backend& be, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  using table = gemm_tile_table<Batch>;
  index_t max_m = 0, max_n = 0, G = 0;
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    G = v.groups();
    max_m = v.m() > max_m ? v.m() : max_m;
    max_n = v.n() > max_n ? v.n() : max_n;
  }
  if (G == 0 || max_m == 0 || max_n == 0) return;
  auto tiles = [&](auto policy) {
    using P = decltype(policy);
    return ceil_div(max_m, P::BM) * ceil_div(max_n, P::BN);
  };
  switch (choose_cp_async_tile(max_m, max_n, table::facts)) {  // each entry instantiated only where the table has it
    case cp_async_tile::small_one_row:
      if constexpr (table::facts.small_ok) return gpu_gemm::launch_small<1>(be, batch, ep, pol);
      break;
    case cp_async_tile::small_rows:
      if constexpr (table::facts.small_ok && table::small_max_m > 1) return gpu_gemm::launch_small<table::small_max_m>(be, batch, ep, pol);
      break;
    case cp_async_tile::narrow:
      if constexpr (table::has_narrow) return gpu_gemm::launch<typename table::narrow>(be, batch, ep, pol, tiles(typename table::narrow{}), G);
      break;
    case cp_async_tile::half_n:
      if constexpr (table::facts.has_half_n) return gpu_gemm::launch<typename table::half_n>(be, batch, ep, pol, tiles(typename table::half_n{}), G);
      break;
    case cp_async_tile::main:
      break;
  }
  gpu_gemm::launch<typename table::main>(be, batch, ep, pol, tiles(typename table::main{}), G);
}
}  // namespace tg
