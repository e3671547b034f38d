// Deterministic split-K for the TMA GEMM. A tile's k-tiles are cut into `splits` units that run side
// by side (split is the fastest index of the unit walk, params.hpp). Each writes its fp32 partial sums
// to the workspace in the accumulators' own layout (thread-major 16-byte pieces: every store
// coalesced, no index arithmetic). Then, by the number of splits:
// - few (schedule's fused_split_max): each unit counts itself in on the tile's counter, and the one
//   that counts last adds the splits' partials from L2 (written microseconds before) and runs the
//   ordinary epilogue: no second kernel;
// - many (few tiles, a long reduction: backward weight): one unit reading them all would take longer
//   than the splits themselves, so split_sum_kernel adds them, its blocks sharing each tile's pieces.
// Both add in split order from zero, so C is bit-identical run to run, whoever finishes last.
#pragma once
#include "arch/block.hpp"
#include "arch/mbarrier_nvidia.hpp"
#include "lowering/gpu/tma_gemm/epilogue.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"
#include "lowering/gpu/tma_gemm/smem.hpp"

namespace tg::tma_gemm {
// A split tile's partial: every consumer thread's accumulators, BM x BN floats.
template <class P>
constexpr long long split_tile_floats() {
  return static_cast<long long>(P::BM) * P::BN;
}
template <class P>
constexpr int split_pieces() {  // 16-byte pieces per consumer thread
  return P::row_blocks * P::BN / 8;
}

// Split s's piece q of consumer thread ct within tile `tile`'s partials.
template <class P>
TG_HD inline long long split_piece_at(const launch_args& a, long long tile, long long s, int q, int ct) {
  constexpr int T = 128 * P::consumers;
  return ((tile * a.splits + s) * split_pieces<P>() + q) * T + ct;
}

// Writes this unit's partial; true where the unit then finished the tile (acc holds the whole sum and
// the epilogue follows). ct: the thread's index among the consumers; last: a shared word they share.
template <class P>
__device__ inline bool reduce_split(const launch_args& a, const unit& w, long long tile, float (&acc)[P::row_blocks][P::BN / 8][4], int ct,
                                    unsigned* last) {
  constexpr int T = 128 * P::consumers, J = P::BN / 8;
  float4* const ws = reinterpret_cast<float4*>(a.ws);
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int j = 0; j < J; ++j)
    ws[split_piece_at<P>(a, tile, w.split, b * J + j, ct)] = make_float4(acc[b][j][0], acc[b][j][1], acc[b][j][2], acc[b][j][3]);
  if (!a.fused_split) return false;      // split_sum_kernel adds them
  arch::device_fence();                  // the partial before the count
  arch::named_barrier_sync(1, T);        // every consumer thread's partial written
  if (ct == 0) *last = arch::atomic_count(a.tile_done + tile) == static_cast<unsigned>(a.splits - 1);
  arch::named_barrier_sync(1, T);
  if (!*last) return false;
  arch::device_fence();                  // the count before the others' partials
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int j = 0; j < J; ++j) TG_UNROLL for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
  for (int s = 0; s < a.splits; ++s)     // a split's pieces all in flight at once, then added
    TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) TG_UNROLL for (int j = 0; j < J; ++j) {
      const float4 v = arch::load_l2(ws + split_piece_at<P>(a, tile, s, b * J + j, ct));
      acc[b][j][0] += v.x, acc[b][j][1] += v.y, acc[b][j][2] += v.z, acc[b][j][3] += v.w;
    }
  return true;
}

// Many splits: block (tile, r) of 128 x consumers threads (thread ct in the role of consumer thread
// ct) adds the tile's pieces of columns r, r + gridDim.y, ... (in 8s) and stores them through the
// epilogue's c_writer. Launched after the GEMM kernel (launch.hpp), for a single GEMM (class 0).
// One block per multiprocessor assumed by the bound (a handful of tiles' blocks run at once): without
// it ptxas aimed at full occupancy and spilled 4-8 bytes in the 256-row tiles' kernels (fp16 and bf16).
template <class E, class P, int C>
__global__ void __launch_bounds__(128 * P::consumers, 1) split_sum_kernel(const __grid_constant__ args<C> a) {
  constexpr int J = P::BN / 8;
  const long long tile = blockIdx.x;
  const int ct = threadIdx.x;
  const gemm_class& c = a.cls[0];
  const unit w = locate(a, tile * a.splits);  // the tile's first split
  const c_writer<E, P> out(a, c, w, ct / 128, ct % 128);
  const float4* const ws = reinterpret_cast<const float4*>(a.ws);
  for (int j = blockIdx.y; j < J; j += gridDim.y) TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) {
    const int q = b * J + j;
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int s = 0;
    for (; s + 4 <= a.splits; s += 4) {  // four loads in flight, added in split order
      float4 x[4];
      TG_UNROLL for (int i = 0; i < 4; ++i) x[i] = ws[split_piece_at<P>(a, tile, s + i, q, ct)];
      TG_UNROLL for (int i = 0; i < 4; ++i) v[0] += x[i].x, v[1] += x[i].y, v[2] += x[i].z, v[3] += x[i].w;
    }
    for (; s < a.splits; ++s) {
      const float4 x = ws[split_piece_at<P>(a, tile, s, q, ct)];
      v[0] += x.x, v[1] += x.y, v[2] += x.z, v[3] += x.w;
    }
    out.piece(b, j, v);
  }
}
}  // namespace tg::tma_gemm
