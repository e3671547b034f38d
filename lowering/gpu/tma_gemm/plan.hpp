// The schedule of the TMA GEMM pipeline on sm_90a, in one table: tile shape, ring depth and the
// register split between the producer warpgroup and the two consumer warpgroups. Chosen per problem
// by lowering/gpu/tma_gemm/launch.hpp from the problem's traits (never from which op runs).
#pragma once

namespace tg::tma_gemm {
template <int BN_, int Stages_>
struct tile {
  static constexpr int BM = 128;              // two consumer warpgroups of 64 rows (wgmma m64)
  static constexpr int BN = BN_;              // wgmma n
  static constexpr int BK = 64;               // one 128-byte swizzled row of 16-bit elements
  static constexpr int stages = Stages_;
  static constexpr int consumers = 2;
  static constexpr int threads = 128 * (1 + consumers);
  static constexpr int producer_regs = 40;    // one thread issues the copies
  static constexpr int consumer_regs = 232;   // accumulators (BN/2 per thread) and the epilogue
  static constexpr int a_bytes = BM * BK * 2, b_bytes = BN * BK * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  static constexpr int staging_pitch = BN + 8;  // epilogue rows padded by 16 bytes: no bank conflicts
  static constexpr int staging_bytes = consumers * 64 * staging_pitch * 2;
  static constexpr int row_bytes = consumers * 64 * 2 * 8;  // per row: C offset and merged m index
  static constexpr int barrier_bytes = 2 * stages * 8;
  static constexpr int smem_bytes = 1024 /* alignment slack */ + stages * stage_bytes + staging_bytes + row_bytes + barrier_bytes;
};

// sm_90 (H100/H200: 227 KB of shared memory per block): 128x128x64 tiles in 5 stages.
using sm90_tile = tile<128, 5>;
}  // namespace tg::tma_gemm
