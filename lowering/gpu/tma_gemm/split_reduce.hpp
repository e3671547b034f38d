// Deterministic split-K inside the TMA GEMM kernel. A tile's k-tiles are cut into `splits` units that
// run side by side (split is the fastest index of the unit walk, params.hpp). Each writes its fp32
// partial sums to the workspace in the accumulators' own layout (thread-major 16-byte pieces: every
// store coalesced, no index arithmetic) and counts itself in on the tile's counter; the unit that
// counts last adds the splits' partials in split order (its own from registers, the others from L2,
// where they were written microseconds before) and runs the ordinary epilogue. The additions' order
// is fixed, so C is bit-identical whichever unit comes last; no second kernel reads the workspace.
#pragma once
#include "arch/block.hpp"
#include "arch/mbarrier_nvidia.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
// The workspace of a split tile: splits x (the consumers' threads x their accumulators) floats.
template <class P>
constexpr long long split_tile_floats() {
  return static_cast<long long>(P::BM) * P::BN;
}

#if defined(TG_NV_WGMMA)
// True where this unit finished the tile: acc then holds the whole sum. ct: the thread's index among
// the consumers (0 .. 128 x consumers - 1); last: a shared-memory word the consumers share.
template <class P>
__device__ inline bool reduce_split(const args& a, const unit& w, long long tile, float (&acc)[P::row_blocks][P::BN / 8][4], int ct,
                                    unsigned* last) {
  constexpr int T = 128 * P::consumers, Q = P::row_blocks * P::BN / 8;  // float4 pieces per thread
  static_assert(static_cast<long long>(T) * Q * 4 == split_tile_floats<P>(), "a tile's partial is every consumer's accumulators");
  float4* const ws = reinterpret_cast<float4*>(a.ws + tile * a.splits * split_tile_floats<P>());
  float4* const mine = ws + w.split * (T * Q);
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int j = 0; j < P::BN / 8; ++j)
    mine[(b * (P::BN / 8) + j) * T + ct] = make_float4(acc[b][j][0], acc[b][j][1], acc[b][j][2], acc[b][j][3]);
  arch::device_fence();                  // the partial before the count
  arch::named_barrier_sync(1, T);        // every consumer thread's partial written
  if (ct == 0) *last = arch::atomic_count(a.tile_done + tile) == static_cast<unsigned>(a.splits - 1);
  arch::named_barrier_sync(1, T);
  if (!*last) return false;
  arch::device_fence();                  // the count before the others' partials
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) {
    const int q = (b * (P::BN / 8) + j) * T + ct;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int s = 0; s < a.splits; ++s) {
      const float4 v = s == w.split ? make_float4(acc[b][j][0], acc[b][j][1], acc[b][j][2], acc[b][j][3]) : arch::load_l2(ws + s * (T * Q) + q);
      sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    acc[b][j][0] = sum.x, acc[b][j][1] = sum.y, acc[b][j][2] = sum.z, acc[b][j][3] = sum.w;
  }
  return true;
}
#endif
}  // namespace tg::tma_gemm
