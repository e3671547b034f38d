// The cp.async GEMM's schedule knobs: a tile policy (block tile, warps, stages, the k-entry ring, a
// wgmma batch kept in flight, the fill's unrolled passes), chosen per batch by gemm.hpp's table.
#pragma once
#include "dsl/config.hpp"

namespace tg {
namespace gpu_gemm {
// EntryRing: the k entries travel ahead through a shared-memory ring (entry_ring below) instead of
// being read from global memory by the fill. WgmmaAsync (tiles that take wgmma): a k-tile's wgmma
// batch stays in flight during the next fill (gemm_kernel's pipeline), tiles then requested S-2 ahead.
// FillUnroll: passes of the hoisted fill unrolled together where wgmma keeps the fragments out of
// registers (sm_90a; one elsewhere: sm_80's mma.sync tile spilled with eight, and AMD's tiles are
// bounded by two waves per SIMD).
template <int BM_, int BN_, int BK_, int WarpsM_, int WarpsN_, int Stages_, bool EntryRing_ = false, bool WgmmaAsync_ = true, int FillUnroll_ = 8>
struct tile_policy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WarpsM = WarpsM_, WarpsN = WarpsN_, Stages = Stages_;
  static constexpr bool entry_ring = EntryRing_, wgmma_async = WgmmaAsync_;
  static constexpr int fill_unroll = FillUnroll_;
  static_assert(Stages >= 2, "a pipeline needs two stages at least");
};
}  // namespace gpu_gemm
}  // namespace tg
