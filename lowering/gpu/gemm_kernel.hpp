// The cp.async GEMM kernel: a ring of stages filled by gemm_fill.hpp, the matrix cores of the target
// (wgmma from the shared tiles, ldmatrix + mma.sync, or fragments through load_tile), the epilogue of
// gemm_drain.hpp or straight from registers. The body keeps the three matrix-core paths in one place:
// design.md says why.
#pragma once
#include "lowering/gpu/gemm_setup.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS((threads_of_batch<Policy, Batch>), 2)  // AMD: two waves per SIMD (gfx908: 256 VGPRs);
                                                                          // nvcc picks registers better without (with (256, 2) it spilled)
gemm_kernel(Batch batch, gemm_epilogue ep, launch_args la) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::a)>;
  using Atom = arch::default_atom<E>;
  using plan = smem_plan<Policy, V, shared_views<Batch>>;
  constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK, S = Policy::Stages;
  constexpr int threads = threads_of<Policy, V>();
  // The accumulators: acc[i][j] is a 16x8 block in mma.m16n8's C layout, at frag_row(i), frag_col(j).
  // mma.sync: the policy's warp grid, each warp a WM x WN tile of TM x TN atoms. wgmma: warpgroup w
  // takes rows w * BM / WG.., one m64 slice per i (its warps 16 rows each), all BN columns (j: n8 blocks).
  constexpr bool wg = wgmma_tile<Atom, Policy, threads>;
  constexpr bool ldm = ldmatrix_fragments<Atom> && !wg;
  constexpr int WG = threads / 128;
  // wgmma kept in flight across the next k-tile's fill (one batch pending, wg_async): the fill then
  // may only overwrite the stage read two k-tiles back, so tiles are requested D = S-2 ahead, else S-1.
  constexpr bool wg_async = wg && Policy::wgmma_async;
  constexpr int D = wg_async ? S - 2 : S - 1;
  static_assert(D >= 1, "an asynchronous wgmma pipeline needs three stages at least");
  constexpr int WM = BM / Policy::WarpsM, WN = BN / Policy::WarpsN;  // warp tile
  constexpr int TM = wg ? BM / (64 * WG) : WM / Atom::M, TN = wg ? BN / 8 : WN / Atom::N;
  static_assert(wg || (WM % Atom::M == 0 && WN % Atom::N == 0), "tile must be a multiple of the atom");
  static_assert(BK % Atom::K == 0, "tile must be a multiple of the atom");
  static_assert(!ldm || TN % 2 == 0, "ldmatrix reads B fragments in pairs of atoms");
  using SA = typename plan::SA;
  using SB = typename plan::SB;
  using SC = typename plan::SC;
  extern __shared__ __align__(gemm_smem_align) unsigned char smem[];
  static_assert(!wg || (plan::b_tiles % 1024 == 0 && BM * BK * sizeof(E) % 1024 == 0 && BN * BK * sizeof(E) % 1024 == 0),
                "every stage of A and B starts on a whole swizzle pattern (wgmma descriptors carry no base offset)");
#if defined(TG_NV_WGMMA)
  if constexpr (wg) {
    if (arch::smem_addr(smem) % 1024 != 0) arch::trap();  // ditto for the allocation
  }
#endif
  E* const As = reinterpret_cast<E*>(smem + plan::a_tiles);
  E* const Bs = reinterpret_cast<E*>(smem + plan::b_tiles);
  using EA = typename SA::entry;
  using EB = typename SB::entry;
  using EC = typename SC::entry;
  constexpr int VA = 16 / sizeof(E);
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
  // Shared tiles in either orientation, each indexed (row, k); the fragments read B as (k, n).
  const auto a_rk = smem_tile_desc<BM, BK, E>();
  const auto a_kr = reorder(smem_tile_desc<BK, BM, E>(), seq<1, 0>{});
  const auto b_rk = smem_tile_desc<BN, BK, E>();
  const auto b_kr = reorder(smem_tile_desc<BK, BN, E>(), seq<1, 0>{});

  // Shared tile orientations (uniform per launch; constant false where only [rows][k] is built).
  const bool a_rows_fast = tile_orientations && la.a.rows_fast, b_rows_fast = tile_orientations && la.b.rows_fast,
             c_rows_fast = tile_orientations && la.c.rows_fast;
  // The block's views. Batches of col2im classes: made once per launch by views_kernel and copied to
  // shared memory (a class costs ~50 divisions to build, as much as the rest of the block's set-up:
  // 1.24 -> 1.09 ms on the seed case). Single GEMMs build theirs here: read from shared memory, their
  // view's fields slowed the k-entry fill by 15-40% (performance.md 9).
  auto block_views = [&]() -> decltype(auto) {
    if constexpr (shared_views<Batch>) {
      static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0, "views are copied word by word");
      const auto* src = static_cast<const std::uint32_t*>(la.views) + blockIdx.z * (sizeof(V) / 4);
      auto* dst = reinterpret_cast<std::uint32_t*>(smem + plan::views);
      for (int i = threadIdx.x; i < static_cast<int>(sizeof(V) / 4); i += threads) dst[i] = src[i];
      __syncthreads();
      return static_cast<const V&>(*reinterpret_cast<const V*>(smem + plan::views));
    } else {
      return batch.views(blockIdx.z);
    }
  };
  const auto& v = block_views();
  const index_t M = v.m(), N = v.n(), K = v.k(), G = v.groups();
  const index_t tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
  const index_t tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
  if (tm >= tiles_m) return;  // classes of one launch differ in size
  const index_t m0 = tm * BM, n0 = tn * BN;
  const index_t g = blockIdx.y / la.splits;
  const int s = blockIdx.y % la.splits;
  const index_t KT = (K + BK - 1) / BK, per = (KT + la.splits - 1) / la.splits;
  const index_t kt0 = s * per, kt1 = kt0 + per < KT ? kt0 + per : KT;

  const int tid = threadIdx.x, lane = tid % Atom::lanes, warp = tid / Atom::lanes;
  const int wm = warp / Policy::WarpsN, wn = warp % Policy::WarpsN;
  auto frag_row = [&](int i) { return wg ? (warp / 4) * (BM / WG) + i * 64 + (warp % 4) * 16 : wm * WM + i * Atom::M; };
  auto frag_col = [&](int j) { return wg ? j * 8 : wn * WN + j * Atom::N; };
  if constexpr (SA::on) tabulate<BM, VA>(a_rows, v.a, g, 1, m0, tid, threads);
  if constexpr (SB::on) tabulate<BN, VA>(b_rows, v.b, g, 1, n0, tid, threads);
  float acc[TM][TN][Atom::c_per_lane];
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) acc[i][j][e] = 0.0f;

  // Global -> shared: k-tile kt into stage st (asynchronous where the pieces allow).
  // Relative k-tile u (of this block's chunk) into stage u % S, its k entries from ring slot u % R
  // (Policy::entry_ring) or from global memory.
  constexpr int R = plan::ring > 0 ? plan::ring : 1, RT = plan::kt_ring > 0 ? plan::kt_ring : 1;
  TA* const a_kts = reinterpret_cast<TA*>(smem + plan::a_kts);
  TB* const b_kts = reinterpret_cast<TB*>(smem + plan::b_kts);
  // Ring slots in 32 bits: u < the chunk's k-tiles (a 64-bit u % 3 cost ~12 instructions per k-tile).
  const auto slot_of = [](index_t u, int ring) { return static_cast<int>(static_cast<unsigned>(u) % static_cast<unsigned>(ring)); };
  auto fill_tile = [&](index_t u) {
    const int st = slot_of(u, S), slot = slot_of(u, R), ts = slot_of(u, RT);
    const EA* const ka = Policy::entry_ring ? a_ring + slot * BK : a_ks + (kt0 + u) * BK;
    const EB* const kb = Policy::entry_ring ? b_ring + slot * BK : b_ks + (kt0 + u) * BK;
    // The prologue's S-1 fills read their summaries from global memory: waiting for a ring copy there
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
  // Each lane's ldmatrix addresses within a stage, worked out once (the swizzled tile's index
  // arithmetic stays out of the main loop). Lane l addresses row l % 8 of 8x8 tile l / 8. A: tiles
  // (rows +0/+8) x (k +0/+8), the four registers of an m16k16 fragment; B: tiles (k +0/+8) x
  // (n +0/+8), two n8 fragments.
  constexpr int KS = BK / Atom::K;
  int a_ld[ldm ? TM : 1][KS], b_ld[ldm ? TN / 2 : 1][KS];
  if constexpr (ldm) {
    const int q = lane / 8, i8 = lane % 8;
    TG_UNROLL for (int ks = 0; ks < KS; ++ks) {
      TG_UNROLL for (int i = 0; i < TM; ++i) {
        const int r = wm * WM + i * Atom::M + (q & 1) * 8, k = ks * Atom::K + (q >> 1) * 8;
        a_ld[i][ks] = static_cast<int>(a_rows_fast ? a_kr.offset({{r, k + i8}}) : a_rk.offset({{r + i8, k}}));
      }
      TG_UNROLL for (int j = 0; j < TN; j += 2) {
        const int n = wn * WN + j * Atom::N + (q >> 1) * 8, k = ks * Atom::K + (q & 1) * 8;
        b_ld[j / 2][ks] = static_cast<int>(b_rows_fast ? b_kr.offset({{n, k + i8}}) : b_rk.offset({{n + i8, k}}));
      }
    }
  }
  // Waits for all but Pending wgmma batches, then marks the accumulators as written there.
  auto wgmma_done = [&]<int Pending>() {
#if defined(TG_NV_WGMMA)
    arch::wgmma_wait<Pending>();
    TG_UNROLL for (int i = 0; i < TM; ++i) arch::wgmma_pin(acc[i]);
#endif
  };
  // Shared -> fragments -> matrix cores, for the k-tile in stage st (wg_async: issued, not waited for).
  auto compute = [&](int st) {
    const E* a = As + st * BM * BK;
    const E* b = Bs + st * BN * BK;
    if constexpr (wg) {
#if defined(TG_NV_WGMMA)
      // Both operands by descriptor (wgmma_operand). The orientations are immediates of the
      // instruction, so the k-tile's loop is instantiated per orientation pair and chosen once here
      // (a choice per instruction made ptxas add a warpgroup.arrive before each). The batch is waited
      // for here: the next k-tile's fill overwrites this stage after the next barrier.
      const auto a_addr = arch::smem_addr(a), b_addr = arch::smem_addr(b);
      constexpr bool bf16 = Atom::input == arch::atom_input::bf16;
      auto run = [&](auto a_mn, auto b_mn) {
        constexpr bool AMn = decltype(a_mn)::value, BMn = decltype(b_mn)::value;
        // Each descriptor is the tile's plus a constant (wgmma_sub_offset): one add, not ~8 instructions.
        const std::uint64_t a_desc = wgmma_tile_desc<BM, BK, E, AMn>(a_addr) + wgmma_sub_offset<BM, BK, E, AMn>((warp / 4) * (BM / WG), 0);
        const std::uint64_t b_desc = wgmma_tile_desc<BN, BK, E, BMn>(b_addr);
        arch::wgmma_fence();
        TG_UNROLL for (int ks = 0; ks < BK; ks += 16)
          TG_UNROLL for (int i = 0; i < TM; ++i)
            arch::wgmma_m64k16<BN, bf16, AMn, BMn>(acc[i], a_desc + wgmma_sub_offset<BM, BK, E, AMn>(i * 64, ks),
                                                   b_desc + wgmma_sub_offset<BN, BK, E, BMn>(0, ks));
        arch::wgmma_commit();
        if constexpr (!wg_async) wgmma_done.template operator()<0>();
      };
      using yes = std::true_type;
      using no = std::false_type;
      if (a_rows_fast) b_rows_fast ? run(yes{}, yes{}) : run(yes{}, no{});
      else b_rows_fast ? run(no{}, yes{}) : run(no{}, no{});
#endif
    } else if constexpr (ldm) {
#if defined(TG_NV_LDMATRIX)
      TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
        std::uint32_t fa[TM][4], fb[TN][2];
        TG_UNROLL for (int i = 0; i < TM; ++i) {
          if (a_rows_fast) arch::ldmatrix_x4<true>(fa[i], a + a_ld[i][ks / Atom::K]);
          else arch::ldmatrix_x4<false>(fa[i], a + a_ld[i][ks / Atom::K]);
        }
        TG_UNROLL for (int j = 0; j < TN; j += 2) {
          std::uint32_t r4[4];
          if (b_rows_fast) arch::ldmatrix_x4<true>(r4, b + b_ld[j / 2][ks / Atom::K]);
          else arch::ldmatrix_x4<false>(r4, b + b_ld[j / 2][ks / Atom::K]);
          fb[j][0] = r4[0]; fb[j][1] = r4[1]; fb[j + 1][0] = r4[2]; fb[j + 1][1] = r4[3];
        }
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j) Atom::mma(acc[i][j], fa[i], fb[j]);
      }
#endif
    } else {
      const auto a_frag = arch::fragment_distribution<Atom>::a();
      const auto b_frag = arch::fragment_distribution<Atom>::b();
      auto run = [&](const auto& a_smem, const auto& b_smem) {
        TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
          distributed_tensor<E, Atom::a_per_lane> fa[TM];
          distributed_tensor<E, Atom::b_per_lane> fb[TN];
          TG_UNROLL for (int i = 0; i < TM; ++i) fa[i] = load_tile<Atom::a_per_lane>(make_tile_window(a_smem, {{wm * WM + i * Atom::M, ks}}), a_frag, lane);
          TG_UNROLL for (int j = 0; j < TN; ++j) fb[j] = load_tile<Atom::b_per_lane>(make_tile_window(b_smem, {{ks, wn * WN + j * Atom::N}}), b_frag, lane);
          TG_UNROLL for (int i = 0; i < TM; ++i)
            TG_UNROLL for (int j = 0; j < TN; ++j) arch::mma<Atom>(acc[i][j], fa[i].data, fb[j].data);
        }
      };
      // Fragments index B as (k, n).
      const bool ar = a_rows_fast, br = b_rows_fast;
      if (ar && br) run(make_view(a, a_kr), make_view(b, reorder(b_kr, seq<1, 0>{})));
      else if (ar) run(make_view(a, a_kr), make_view(b, reorder(b_rk, seq<1, 0>{})));
      else if (br) run(make_view(a, a_rk), make_view(b, reorder(b_kr, seq<1, 0>{})));
      else run(make_view(a, a_rk), make_view(b, reorder(b_rk, seq<1, 0>{})));
    }
  };

  // Pipeline of S stages, one barrier per k-tile. Before the loop the first D tiles are requested;
  // at iteration kt (after the barrier, tile kt has landed and every warp is done with the stage it
  // will fill): request tile kt+D, then compute tile kt. Each iteration commits one copy group
  // (possibly empty), so "all but D-1 groups done" means tile kt is in. The k entries and summaries
  // of tile u travel in the group of tile u-D (the first D tiles' before the prologue). wg_async
  // (D = S-2): wgmma of tile kt is issued before the fill of tile kt+D and waited for (one batch
  // left pending) after it, so the tensor cores run during the fill's instructions; the stage filled,
  // (kt-2) % S, was last read by the batch every warp waited for before this barrier.
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
#if defined(TG_NV_WGMMA)
    if constexpr (wg) arch::fence_proxy_async_shared();  // this thread's tile writes, before wgmma reads them
#endif
    __syncthreads();
    if constexpr (wg_async) compute(slot_of(i, S));
    if (i + D < nk) fill_tile(i + D);
    if (i + 2 * D < nk) fetch_entries(i + 2 * D);
    arch::async_commit();
    if constexpr (wg_async) wgmma_done.template operator()<1>();
    else compute(slot_of(i, S));
  }
  if constexpr (wg_async) wgmma_done.template operator()<0>();
  arch::async_wait<0>();
  __syncthreads();  // the tiles' space is reused for the C tile's entries below

  // Epilogue. The C tile's row and column entries are tabulated once. A plain store (one split, the
  // common case) stages the tile in shared memory and writes it out in 16-byte runs; accumulation and
  // split-K partial sums go element by element from the fragments.
  using EOut = elem_t<decltype(V::c)>;
  constexpr int VC = 16 / sizeof(EOut);
  EC* const c_rows = reinterpret_cast<EC*>(smem + plan::c_rows);
  EC* const c_cols = reinterpret_cast<EC*>(smem + plan::c_cols);
  if constexpr (SC::on) {
    tabulate<BM, VC>(c_rows, v.c, g, 1, m0, tid, threads);
    tabulate<BN, VC>(c_cols, v.c, g, 2, n0, tid, threads);
  }
  const auto c_frag = arch::fragment_distribution<Atom>::c();
  if constexpr (SC::on) {
    if (la.splits == 1 && ep.op == epilogue_op::store) {
      EOut* const ct = reinterpret_cast<EOut*>(smem + plan::c_tile);
      const auto c_rc = smem_tile_desc<BM, BN, EOut>();
      const auto c_cr = reorder(smem_tile_desc<BN, BM, EOut>(), seq<1, 0>{});
      auto stage = [&](const auto& tile) {
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j)
            TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
              const auto rc = c_frag.coord(lane, e);
              const int mm = frag_row(i) + static_cast<int>(rc[0]), nn = frag_col(j) + static_cast<int>(rc[1]);
              ct[tile.offset({{mm, nn}})] = arch::cvt_from_float<EOut>(ep.alpha * acc[i][j][e]);
            }
      };
      if (c_rows_fast) stage(c_cr); else stage(c_rc);
      __syncthreads();
      const auto cols = column_tile<BN, threads, decltype(V::c)>(c_cols, n0, N, tid);
      if (cols.uniform) {
        if (c_rows_fast) drain_uniform<true, BM, BN, threads>(ct, c_cr, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        else drain_uniform<false, BM, BN, threads>(ct, c_rc, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        return;
      }
      if (c_rows_fast) drain_tile<true, BM, BN, threads>(ct, c_cr, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      else drain_tile<false, BM, BN, threads>(ct, c_rc, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      return;
    }
    __syncthreads();
  }
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
        const auto rc = c_frag.coord(lane, e);
        const int mm = frag_row(i) + static_cast<int>(rc[0]), nn = frag_col(j) + static_cast<int>(rc[1]);
        const index_t m = m0 + mm, n = n0 + nn;
        if (m >= M || n >= N) continue;
        if (la.splits > 1 && la.mode == split_k_mode::deterministic) {
          la.workspace[((s * G + g) * M + m) * N + n] = acc[i][j][e];
          continue;
        }
        index_t off = -1;  // the element's offset in C, -1 where it is not stored (padding)
        if constexpr (SC::on) {
          off = affine_offset(v.c, c_rows[mm], c_cols[nn]);
        } else {
          const multi_index<3> c{{g, m, n}};
          if (v.c.desc.is_valid(c)) off = v.c.desc.offset(c);
        }
        if (off < 0) continue;
        if (la.splits == 1) {
          const float old = ep.op == epilogue_op::accumulate ? arch::cvt_to_float(v.c.data[off]) : 0.0f;
          v.c.data[off] = arch::cvt_from_float<EOut>(ep.apply(acc[i][j][e], old));
        } else if constexpr (std::is_same_v<EOut, float>) {
          arch::atomic_add(&v.c.data[off], ep.alpha * acc[i][j][e]);
        }
      }
}
}  // namespace gpu_gemm
}  // namespace tg
