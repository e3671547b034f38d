// Deterministic split-K for the TMA GEMM. A tile's k-tiles are cut into `splits` units that run side
// by side (split is the fastest index of the unit walk, params.hpp). Each writes its fp32 partial sums
// to the workspace in the accumulators' own layout (thread-major 16-byte pieces: every store
// coalesced, no index arithmetic). Then, by the number of splits:
// - few (schedule's fused_split_max): each unit counts itself in on the tile's counter, and the one
//   that counts last adds the splits' partials from L2 (written microseconds before) and runs the
//   ordinary epilogue: no second kernel;
// - many (few tiles, a long reduction: backward weight): one unit reading them all would take longer
//   than the splits themselves, so split_sum_kernel adds them, its blocks sharing each tile's pieces
//   and its warps runs of the splits.
// Both add in a fixed order (the last split: split order from zero; split_sum_kernel: 8 runs of
// consecutive splits, each in order, then the runs in order), so C is bit-identical run to run, whoever
// finishes last.
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
  if constexpr (P::lean_consumers) return false;  // split_sum_kernel adds them (plan.hpp)
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

// Many splits: a tile's partials are splits x BM x BN floats (132 x 147 KB for the taps tile), too many
// for a few blocks that each walk all the splits of their pieces one load after another (measured: 40
// us for one 576x64 tile of 132 splits when blocks took whole columns). Block (tile, r) takes 32
// consecutive pieces of the partial (one 16-byte piece per lane; 32 consecutive consumer threads'
// piece q: split_piece_at's layout, so every load is coalesced) and its 8 warps take 8 consecutive runs
// of the splits, each added in split order, then warp 0 adds the 8 runs in order and stores through the
// epilogue's c_writer in the role of the consumer thread that held the piece. A fixed order whoever
// runs first: C is bit-identical run to run. Launched after the GEMM kernel (launch.hpp), for a single
// GEMM (class 0). (Blocks of 4 pieces a lane with all their loads in flight measured slower on 5 of 6
// layers: performance.md section 27.)
constexpr int split_sum_warps = 8;
template <class P>
constexpr int split_sum_blocks_per_tile() {  // 32 pieces a block
  return 128 * P::consumers * split_pieces<P>() / 32;
}
template <class E, class P, int C>
__global__ void __launch_bounds__(32 * split_sum_warps) split_sum_kernel(const __grid_constant__ args<C> a) {
  constexpr int T = 128 * P::consumers, J = P::BN / 8;
  __shared__ float4 runs[split_sum_warps][32];
  const long long tile = blockIdx.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int piece = blockIdx.y * 32 + lane, q = piece / T, ct = piece % T;  // T is a multiple of 32: one q a block
  const int per = (a.splits + split_sum_warps - 1) / split_sum_warps, s0 = warp * per, s1 = s0 + per < a.splits ? s0 + per : a.splits;
  const float4* const ws = reinterpret_cast<const float4*>(a.ws);
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  int s = s0;
  for (; s + 4 <= s1; s += 4) {  // four loads in flight, added in split order
    float4 x[4];
    TG_UNROLL for (int i = 0; i < 4; ++i) x[i] = ws[split_piece_at<P>(a, tile, s + i, q, ct)];
    TG_UNROLL for (int i = 0; i < 4; ++i) v.x += x[i].x, v.y += x[i].y, v.z += x[i].z, v.w += x[i].w;
  }
  for (; s < s1; ++s) {
    const float4 x = ws[split_piece_at<P>(a, tile, s, q, ct)];
    v.x += x.x, v.y += x.y, v.z += x.z, v.w += x.w;
  }
  runs[warp][lane] = v;
  __syncthreads();
  if (warp != 0) return;
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  TG_UNROLL for (int w = 0; w < split_sum_warps; ++w) {
    const float4 x = runs[w][lane];
    sum[0] += x.x, sum[1] += x.y, sum[2] += x.z, sum[3] += x.w;
  }
  const c_writer<E, P> out(a, a.cls[0], locate(a, tile * a.splits), ct / 128, ct % 128, q / J);
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b)  // the block by a constant index: the writer's rows stay in registers
    if (b == q / J) out.piece(b, q % J, sum);
}
}  // namespace tg::tma_gemm
