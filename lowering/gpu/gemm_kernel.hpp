// The cp.async GEMM kernel: all threads fill a ring of S stages (gemm_fill.hpp's fill_stage, in the
// fill_tile lambda below), the consumer of the target's matrix-core family (gemm_consumer.hpp)
// multiplies each stage, the epilogue (gemm_store.hpp) writes C. One barrier per k-tile. The fill
// stays two lambdas over the kernel's locals: as an object (the same code) it cost 36 more registers
// in the 3-d backward-data tiles and 16-20% of their time on an H200 (design.md, issue 20).
#pragma once
#include "lowering/gpu/gemm_consumer.hpp"
#include "lowering/gpu/gemm_store.hpp"

namespace tg {
namespace gpu_gemm {
// The block's views. Batches of col2im classes: made once per launch by views_kernel and copied to
// shared memory (a class costs ~50 divisions to build, as much as the rest of the block's set-up:
// 1.24 -> 1.09 ms on the seed case). Single GEMMs build theirs here: read from shared memory, their
// view's fields slowed the k-entry fill by 15-40% (performance.md 9).
template <class Batch, int Threads>
__device__ inline decltype(auto) block_views(const Batch& batch, const launch_args& la, unsigned char* shared) {
  using V = decltype(batch.views(0));
  if constexpr (shared_views<Batch>) {
    static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0, "views are copied word by word");
    const auto* src = static_cast<const std::uint32_t*>(la.views) + blockIdx.z * (sizeof(V) / 4);
    auto* dst = reinterpret_cast<std::uint32_t*>(shared);
    for (int i = threadIdx.x; i < static_cast<int>(sizeof(V) / 4); i += Threads) dst[i] = src[i];
    __syncthreads();
    return static_cast<const V&>(*reinterpret_cast<const V*>(shared));
  } else {
    return batch.views(blockIdx.z);
  }
}

template <class Policy, class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS((threads_of_batch<Policy, Batch>), 2)  // AMD: two waves per SIMD (gfx908: 256 VGPRs);
                                                                          // nvcc picks registers better without (with (256, 2) it spilled)
gemm_kernel(Batch batch, gemm_epilogue ep, launch_args la) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::a)>;
  using plan = smem_plan<Policy, V, shared_views<Batch>>;
  constexpr int BK = Policy::BK, S = Policy::Stages;
  constexpr int threads = threads_of<Policy, V>();
  using consumer = gemm_consumer<Policy, E, threads>;
  // An asynchronous consumer keeps a batch in flight across the next k-tile's fill: the fill then may
  // only overwrite the stage read two k-tiles back, so tiles are requested D = S-2 ahead, else S-1.
  constexpr int D = consumer::async ? S - 2 : S - 1;
  static_assert(D >= 1, "an asynchronous consumer needs three stages at least");
  extern __shared__ __align__(gemm_smem_align) unsigned char smem[];
  consumer::check_shared(smem);
  // The producer's shared tiles, row entries, rings of k entries and k-tile summaries, and its global
  // tables of k entries and summaries (gemm_setup.hpp's smem_plan and launch_args).
  using SA = typename plan::SA;
  using SB = typename plan::SB;
  E* const As = reinterpret_cast<E*>(smem + plan::a_tiles);
  E* const Bs = reinterpret_cast<E*>(smem + plan::b_tiles);
  using EA = typename SA::entry;
  using EB = typename SB::entry;
  constexpr int VA = 16 / sizeof(E);
  constexpr int BM = Policy::BM, BN = Policy::BN;
  EA* const a_rows = reinterpret_cast<EA*>(smem + plan::a_rows);
  EB* const b_rows = reinterpret_cast<EB*>(smem + plan::b_rows);
  EA* const a_ring = reinterpret_cast<EA*>(smem + plan::a_ring);
  EB* const b_ring = reinterpret_cast<EB*>(smem + plan::b_ring);
  const EA* const a_ks = static_cast<const EA*>(la.a_ks) + blockIdx.z * la.k_stride;
  const EB* const b_ks = static_cast<const EB*>(la.b_ks) + blockIdx.z * la.k_stride;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  const TA* const a_kt = static_cast<const TA*>(la.a_kt) + blockIdx.z * (la.k_stride / BK);
  const TB* const b_kt = static_cast<const TB*>(la.b_kt) + blockIdx.z * (la.k_stride / BK);
  // Shared tile orientations (uniform per launch; constant false where only [rows][k] is built).
  const bool a_rows_fast = tile_orientations && la.a.rows_fast, b_rows_fast = tile_orientations && la.b.rows_fast,
             c_rows_fast = tile_orientations && la.c.rows_fast;
  const auto& v = block_views<Batch, threads>(batch, la, smem + plan::views);
  const index_t M = v.m(), N = v.n(), K = v.k(), G = v.groups();
  const index_t tiles_n = (N + Policy::BN - 1) / Policy::BN, tiles_m = (M + Policy::BM - 1) / Policy::BM;
  const index_t tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
  if (tm >= tiles_m) return;  // classes of one launch differ in size
  const index_t m0 = tm * Policy::BM, n0 = tn * Policy::BN;
  const index_t g = blockIdx.y / la.splits;
  const int s = blockIdx.y % la.splits;
  const index_t KT = (K + BK - 1) / BK, per = (KT + la.splits - 1) / la.splits;
  const index_t kt0 = s * per, kt1 = kt0 + per < KT ? kt0 + per : KT;
  const int tid = threadIdx.x;

  if constexpr (SA::on) tabulate<BM, VA>(a_rows, v.a, g, 1, m0, tid, threads);
  if constexpr (SB::on) tabulate<BN, VA>(b_rows, v.b, g, 1, n0, tid, threads);
  typename consumer::accumulators acc;
  TG_UNROLL for (int i = 0; i < consumer::TM; ++i)
    TG_UNROLL for (int j = 0; j < consumer::TN; ++j)
      TG_UNROLL for (int e = 0; e < consumer::Atom::c_per_lane; ++e) acc[i][j][e] = 0.0f;
  // Global -> shared: relative k-tile u (of this block's chunk) into stage u % S, its k entries from
  // ring slot u % R (Policy::entry_ring) or from global memory.
  constexpr int R = plan::ring > 0 ? plan::ring : 1, RT = plan::kt_ring > 0 ? plan::kt_ring : 1;
  TA* const a_kts = reinterpret_cast<TA*>(smem + plan::a_kts);
  TB* const b_kts = reinterpret_cast<TB*>(smem + plan::b_kts);
  // Ring slots in 32 bits: u < the chunk's k-tiles (a 64-bit u % 3 cost ~12 instructions per k-tile).
  const auto slot_of = [](index_t u, int ring) { return static_cast<int>(static_cast<unsigned>(u) % static_cast<unsigned>(ring)); };
  auto fill_tile = [&](index_t u) {
    const int st = slot_of(u, S), slot = slot_of(u, R), ts = slot_of(u, RT);
    const EA* const ka = Policy::entry_ring ? a_ring + slot * BK : a_ks + (kt0 + u) * BK;
    const EB* const kb = Policy::entry_ring ? b_ring + slot * BK : b_ks + (kt0 + u) * BK;
    // The prologue's D fills read their summaries from global memory: waiting for a ring copy there
    // would put an L2 round trip into every block's set-up.
    const bool ring_in = plan::kt_ring > 0 && u >= D;
    fill_stage<BM, BK, threads, shared_views<Batch>, Policy::fill_unroll>(As + st * BM * BK, a_rows_fast, v.a, g, m0, M, kt0 + u, K, la.a.vectors, tid, a_rows, ka,
                                                     ring_in ? a_kts + ts : a_kt + kt0 + u);
    fill_stage<BN, BK, threads, shared_views<Batch>, Policy::fill_unroll>(Bs + st * BN * BK, b_rows_fast, v.b, g, n0, N, kt0 + u, K, la.b.vectors, tid, b_rows, kb,
                                                     ring_in ? b_kts + ts : b_kt + kt0 + u);
  };
  // The k entries (where the policy has their ring) and the k-tile summaries of relative k-tile u into
  // their ring slots (asynchronous copies, in the open group; the summaries by the last threads).
  auto fetch_entries = [&](index_t u) {
    if constexpr (Policy::entry_ring) {
      const int slot = static_cast<int>(u % R);
      if constexpr (SA::on) copy_entries<BK, threads>(a_ring + slot * BK, a_ks + (kt0 + u) * BK, tid);
      if constexpr (SB::on) copy_entries<BK, threads>(b_ring + slot * BK, b_ks + (kt0 + u) * BK, tid);
    }
    if constexpr (plan::kt_ring > 0) {
      const int ts = static_cast<int>(u % RT);
      constexpr int pa = sizeof(TA) / 16, pb = sizeof(TB) / 16;
      if constexpr (SA::on) copy_entries<1, threads>(a_kts + ts, a_kt + kt0 + u, tid, threads - pa - pb);
      if constexpr (SB::on) copy_entries<1, threads>(b_kts + ts, b_kt + kt0 + u, tid, threads - pb);
    }
  };
  const consumer mma(tid, a_rows_fast, b_rows_fast);

  // The stage ring. Before the loop the first D tiles are requested; at iteration kt (after the
  // barrier, tile kt has landed and every warp is done with the stage it will fill): request tile
  // kt+D, then multiply tile kt. Each iteration commits one copy group (possibly empty), so "all but
  // D-1 groups done" means tile kt is in. The k entries and summaries of tile u travel in the group of
  // tile u-D (the first D tiles' before the prologue). An asynchronous consumer's batch of tile kt is
  // issued before the fill of tile kt+D and waited for (one batch left pending) after it, so the matrix
  // cores run during the fill's instructions; the stage filled, (kt-2) % S, was last read by the batch
  // every warp waited for before this barrier.
  const index_t nk = kt1 - kt0;
  if constexpr (Policy::entry_ring) {  // the first D tiles' k entries (their summaries come from global)
    for (int u = 0; u < D && u < nk; ++u) fetch_entries(u);
    arch::async_commit();
    arch::async_wait<0>();
  }
  __syncthreads();  // the row entries (and the first k entries)
  for (int st = 0; st < D; ++st) {
    if (st < nk) fill_tile(st);
    if (st + D < nk) fetch_entries(st + D);
    arch::async_commit();
  }
  for (index_t i = 0; i < nk; ++i) {
    arch::async_wait<D - 1>();
    consumer::before_barrier();
    __syncthreads();
    const int st = slot_of(i, S);
    if constexpr (consumer::async) mma.multiply(acc, As + st * BM * BK, Bs + st * BN * BK);
    if (i + D < nk) fill_tile(i + D);
    if (i + 2 * D < nk) fetch_entries(i + 2 * D);
    arch::async_commit();
    if constexpr (consumer::async) mma.template wait<1>(acc);
    else mma.multiply(acc, As + st * BM * BK, Bs + st * BN * BK);
  }
  if constexpr (consumer::async) mma.template wait<0>(acc);
  arch::async_wait<0>();
  __syncthreads();  // the tiles' space is reused for the C tile's entries
  store_c<Policy, threads, plan>(v, ep, la, smem, mma, acc, c_rows_fast, g, s, m0, n0, M, N, G, tid);
}
}  // namespace gpu_gemm
}  // namespace tg
