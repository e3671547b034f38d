// The transposers of the MN-major tf32 tile (plan.hpp: mn_tf32_tile): warps 1-3 of the producer
// warpgroup turn each landed k-tile of MN-major boxes ([k][32 rows] per 128-byte-swizzled 4 KB box, as
// the TMA writes them) into the K-major stage tf32 wgmma reads ([rows][32 k], the same swizzle), so
// that the consumers and the epilogue are `tile`'s.
//
// The work is 4 x 4 blocks of (k, row): a thread reads a block as four 16-byte rows of 4 rows at one k
// and writes it as four 16-byte rows of 4 k at one row. A 16-byte access is served 8 lanes at a time;
// the 8 lanes of each such phase take the blocks (k block (p + g) % 8, row block 8 (g / 8) + p) for
// lane p and phase g, a diagonal whose 8 chunks fall on distinct 16-byte bank groups both when read
// (chunk = row block ^ k % 8) and when written (chunk = k block ^ row % 8): no bank conflict on
// either side (host-tested over every block of every tile: tf32_transpose_test.cpp).
#pragma once
#include "arch/wgmma_nvidia.hpp"
#include "dsl/config.hpp"
#include "lowering/gpu/tma_gemm/plan.hpp"
#if defined(TG_NV_WGMMA)
#include <cstdint>
#include "arch/mbarrier_nvidia.hpp"
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"
#endif

namespace tg::tma_gemm {
// The two layouts are smem_tile_desc<32, rows, float> and smem_tile_desc<rows, 32, float> (smem_tile.hpp),
// written here in closed form in 32-bit arithmetic for the transposers' loop (host-tested equal over
// whole tiles). Byte offset of (k, row) in a k-tile of 32 fp32 k as the TMA lands MN-major boxes: box row / 32,
// 128-byte line k, its 16-byte chunk (row % 32) / 4 xor-ed with k % 8 (the 128-byte swizzle).
TG_HD constexpr int tf32_mn_major_byte(int k, int row) { return (row / 32) * 4096 + k * 128 + ((((row % 32) / 4) ^ (k % 8)) * 16) + (row % 4) * 4; }
// ... and in the K-major stage: line row, chunk k / 4 xor-ed with row % 8.
TG_HD constexpr int tf32_k_major_byte(int k, int row) { return row * 128 + (((k / 4) ^ (row % 8)) * 16) + (k % 4) * 4; }

// Block t of a tile's 8 x rows / 4 blocks: its k block (k 4 kb..) and row block (rows 4 rc..).
struct tf32_block {
  int kb, rc;
};
TG_HD constexpr tf32_block tf32_block_of(int t) {
  const int p = t % 8, g = t / 8;
  return {(p + g) % 8, (g / 8) * 8 + p};
}
template <int Rows>
constexpr int tf32_blocks = 8 * Rows / 4;

#if defined(TG_NV_WGMMA)
// One 4 x 4 block of a k-tile: four 16-byte reads at its 4 k, four writes at its 4 rows.
__device__ inline void transpose_tf32_block(const unsigned char* landed, unsigned char* stage, int t) {
  const tf32_block b = tf32_block_of(t);
  float v[4][4];  // [k][row]
  TG_UNROLL for (int j = 0; j < 4; ++j) {
    const float4 q = *reinterpret_cast<const float4*>(landed + tf32_mn_major_byte(4 * b.kb + j, 4 * b.rc));
    v[j][0] = q.x, v[j][1] = q.y, v[j][2] = q.z, v[j][3] = q.w;
  }
  TG_UNROLL for (int r = 0; r < 4; ++r)
    *reinterpret_cast<float4*>(stage + tf32_k_major_byte(4 * b.kb, 4 * b.rc + r)) = float4{v[0][r], v[1][r], v[2][r], v[3][r]};
}

// Thread t (of transposer_threads) moves blocks t, t + 96, ... of the k-tile's A blocks followed by its
// B blocks (one walk, so that every thread moves the same number where they divide: 256x128, 8 each).
// A's block count is a multiple of 8, so each 8-lane phase stays within one operand.
template <class E, class P>
__device__ inline void transpose_tf32_stage(const smem<E, P>& s, int slot, int stage, int t) {
  constexpr int na = tf32_blocks<P::BM>, n = na + tf32_blocks<P::BN>;
  static_assert(na % 8 == 0, "a phase of 8 lanes within one operand");
  const auto* la = reinterpret_cast<const unsigned char*>(s.land_a(slot));
  const auto* lb = reinterpret_cast<const unsigned char*>(s.land_b(slot));
  auto* a = reinterpret_cast<unsigned char*>(s.a(stage));
  auto* b = reinterpret_cast<unsigned char*>(s.b(stage));
  for (int i = t; i < n; i += transposer_threads) {
    if (i < na) transpose_tf32_block(la, a, i);
    else transpose_tf32_block(lb, b, i - na);
  }
}

// The transposers' role: the producer's walk of units and k-tiles; each landed k-tile into the next free
// stage, then (after the async-proxy fence: wgmma reads what these generic stores wrote) the stage is
// full and the landing slot free.
template <class E, class P, class A>
__device__ inline void transpose_stages(const A& a, const smem<E, P>& s, int t) {
  ring<P::landing_slots> l;
  ring<P::stages> r;
  for (long long u = blockIdx.x; u < a.units; u += gridDim.x) {
    const work k = work_of(a, u);
    for (long long kt = k.kb; kt < k.ke; ++kt) {
      arch::mbarrier_wait(s.land_full(l.stage), l.phase);
      arch::mbarrier_wait(s.empty(r.stage), r.phase ^ 1);
      transpose_tf32_stage(s, l.stage, r.stage, t);
      arch::fence_async_shared();
      arch::mbarrier_arrive(s.land_empty(l.stage));
      arch::mbarrier_arrive(s.full(r.stage));
      l.advance();
      r.advance();
    }
  }
}
#endif
}  // namespace tg::tma_gemm
