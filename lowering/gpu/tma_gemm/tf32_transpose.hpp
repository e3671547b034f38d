// The transposers of the MN-major tf32 tile (plan.hpp: mn_tf32_tile): the consumer threads, or warps
// 1-3 of the producer warpgroup (launch_args::consumers_transpose), turn each landed k-tile of MN-major
// boxes ([k][32 rows] per 128-byte-swizzled 4 KB box, as the TMA writes them) into the K-major stage
// tf32 wgmma reads ([rows][32 k], the same swizzle), so that the consumers and the epilogue are
// `tile`'s.
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
// written here in closed form in unsigned 32-bit arithmetic (shifts and masks, not the sign fix-ups of
// signed division) for the transposers' loop (host-tested equal over whole tiles). Byte offset of (k, row) in a k-tile of 32 fp32 k as the TMA lands MN-major boxes: box row / 32,
// 128-byte line k, its 16-byte chunk (row % 32) / 4 xor-ed with k % 8 (the 128-byte swizzle).
TG_HD constexpr int tf32_mn_major_byte(unsigned k, unsigned row) {
  return static_cast<int>((row / 32) * 4096 + k * 128 + ((((row % 32) / 4) ^ (k % 8)) * 16) + (row % 4) * 4);
}
// ... and in the K-major stage: line row, chunk k / 4 xor-ed with row % 8.
TG_HD constexpr int tf32_k_major_byte(unsigned k, unsigned row) { return static_cast<int>(row * 128 + (((k / 4) ^ (row % 8)) * 16) + (k % 4) * 4); }

// Block t of a tile's 8 x rows / 4 blocks: its k block (k 4 kb..) and row block (rows 4 rc..).
struct tf32_block {
  int kb, rc;
};
TG_HD constexpr tf32_block tf32_block_of(unsigned t) {
  const unsigned p = t % 8, g = t / 8;
  return {static_cast<int>((p + g) % 8), static_cast<int>((g / 8) * 8 + p)};
}
template <int Rows>
constexpr int tf32_blocks = 8 * Rows / 4;

// Block i of a k-tile's walk (A's blocks, then B's): its first read (k 4 kb, rows 4 rc..) and first
// write (row 4 rc, k 4 kb..) as byte offsets in the landing slot and in the stage, where B's lines
// follow A's BM lines of 128 bytes in both.
struct tf32_move {
  int read, write;
};
template <int BM>
TG_HD constexpr tf32_move tf32_move_of(unsigned i) {
  constexpr unsigned na = tf32_blocks<BM>;
  const int op = i < na ? 0 : BM * 128;
  const tf32_block b = tf32_block_of(i < na ? i : i - na);
  return {op + tf32_mn_major_byte(4u * b.kb, 4u * b.rc), op + tf32_k_major_byte(4u * b.kb, 4u * b.rc)};
}
// The block's j-th read (k 4 kb + j) or write (row 4 rc + j) from its first: a block's 4 k (4 rows)
// share the top bit of k % 8 (row % 8), so the swizzle's xor differs from the first's by j, in the
// chunk's two low bits.
TG_HD constexpr int tf32_nth(int first, int j) { return (first + 128 * j) ^ (16 * j); }

#if defined(TG_NV_WGMMA)
// Thread t (of Threads: the transposer warps' 96 or the consumers' 256) moves blocks t, t + Threads, ...
// of every k-tile's walk (so that every thread moves the same number where they divide: 256x128, 8 or
// 3 each; A's block count and Threads are multiples of 8, so each 8-lane phase stays within one
// operand): 4 LDS + 4 STS and ~20 integer operations a block. (In signed arithmetic, with each of a
// block's 8 offsets from the byte maps, ~120 instructions a block had the transposers bound by their
// latency, one warp per scheduler: session 38's profile. All 8 blocks' offsets held in registers
// spilled under the producer warpgroup's 56.)
template <class E, class P, unsigned Threads>
__device__ inline void transpose_tf32_stage(const unsigned char* landed, unsigned char* stage, unsigned t) {
  constexpr unsigned n = tf32_blocks<P::BM> + tf32_blocks<P::BN>;
  static_assert(tf32_blocks<P::BM> % 8 == 0 && Threads % 8 == 0, "a phase of 8 lanes within one operand");
  static_assert(P::a_bytes == P::BM * 128, "B's lines right after A's (tf32_move_of)");
  TG_UNROLL_BY(2) for (unsigned i = t; i < n; i += Threads) {
    const tf32_move m = tf32_move_of<P::BM>(i);
    float4 v[4];  // [k], rows in x..w
    TG_UNROLL for (int j = 0; j < 4; ++j) v[j] = *reinterpret_cast<const float4*>(landed + tf32_nth(m.read, j));
    *reinterpret_cast<float4*>(stage + tf32_nth(m.write, 0)) = float4{v[0].x, v[1].x, v[2].x, v[3].x};
    *reinterpret_cast<float4*>(stage + tf32_nth(m.write, 1)) = float4{v[0].y, v[1].y, v[2].y, v[3].y};
    *reinterpret_cast<float4*>(stage + tf32_nth(m.write, 2)) = float4{v[0].z, v[1].z, v[2].z, v[3].z};
    *reinterpret_cast<float4*>(stage + tf32_nth(m.write, 3)) = float4{v[0].w, v[1].w, v[2].w, v[3].w};
  }
}

// One landed k-tile into the stage at r (free once the consumers released its last k-tile), Threads
// threads sharing it; then (after the async-proxy fence: wgmma reads what these generic stores wrote)
// the stage is full and the landing slot free. Advances the landing ring; the caller advances r.
template <class E, class P, unsigned Threads>
__device__ inline void transpose_k_tile(const smem<E, P>& s, ring<P::landing_slots>& l, const ring<P::stages>& r, unsigned t) {
  arch::mbarrier_wait(s.land_full(l.stage), l.phase);
  arch::mbarrier_wait(s.empty(r.stage), r.phase ^ 1);
  transpose_tf32_stage<E, P, Threads>(reinterpret_cast<const unsigned char*>(s.land_a(l.stage)), reinterpret_cast<unsigned char*>(s.a(r.stage)), t);
  arch::fence_async_shared();
  arch::mbarrier_arrive(s.land_empty(l.stage));
  arch::mbarrier_arrive(s.full(r.stage));
  l.advance();
}

// The transposer warps' role: the producer's walk of units and k-tiles, each landed k-tile into the next
// stage.
template <class E, class P, class A>
__device__ inline void transpose_stages(const A& a, const smem<E, P>& s, int t) {
  ring<P::landing_slots> l;
  ring<P::stages> r;
  for (long long u = blockIdx.x; u < a.units; u += gridDim.x) {
    const work k = work_of(a, u);
    for (long long kt = k.kb; kt < k.ke; ++kt, r.advance()) transpose_k_tile<E, P, transposer_threads>(s, l, r, static_cast<unsigned>(t));
  }
}

// The consumers' share instead (launch_args::consumers_transpose): before waiting for a stage, each
// consumer thread moves its blocks of the k-tile into it, while the warpgroup's previous batch runs on
// the tensor cores, which waited for three warps' transposition half of the time (performance.md
// section 42). The landing ring runs on across units, as the stage ring does. A no-op where off.
template <class E, class P>
struct consumer_transposer {
  bool on;
  unsigned t;  // the consumer thread: threadIdx.x - 128
  ring<P::landing_slots> l;
  __device__ void operator()(const smem<E, P>& s, const ring<P::stages>& r) {
    if (on) transpose_k_tile<E, P, 128u * P::consumers>(s, l, r, t);
  }
};
#endif
}  // namespace tg::tma_gemm
