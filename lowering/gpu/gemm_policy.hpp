// The cp.async GEMM's schedule knobs: a tile policy (block tile, warps, stages, the k-entry ring, a
// wgmma batch kept in flight) and the -D switches of A/B builds (tools/gpu-variants.sh).
#pragma once
#include "dsl/config.hpp"

// TG_WGMMA_ASYNC=0 turns the policies' wgmma_async off everywhere (A/B trials, tools/gpu-variants.sh).
#ifndef TG_WGMMA_ASYNC
#define TG_WGMMA_ASYNC 1
#endif
#ifndef TG_SMALL_GROUP_WORDS
#define TG_SMALL_GROUP_WORDS 1
#endif

namespace tg {
namespace gpu_gemm {
// EntryRing: the k entries travel ahead through a shared-memory ring (entry_ring below) instead of
// being read from global memory by the fill. WgmmaAsync (tiles that take wgmma): a k-tile's wgmma
// batch stays in flight during the next fill (gemm_kernel's pipeline), tiles then requested S-2 ahead.
template <int BM_, int BN_, int BK_, int WarpsM_, int WarpsN_, int Stages_, bool EntryRing_ = false, bool WgmmaAsync_ = true>
struct tile_policy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WarpsM = WarpsM_, WarpsN = WarpsN_, Stages = Stages_;
  static constexpr bool entry_ring = EntryRing_, wgmma_async = WgmmaAsync_ && TG_WGMMA_ASYNC;
  static_assert(Stages >= 2, "a pipeline needs two stages at least");
};
}  // namespace gpu_gemm
}  // namespace tg
