// GPU implicit GEMM: global -> shared memory -> per-lane fragments -> matrix-core atoms -> epilogue.
// The schedule (block tile, warp grid) comes from gemm_table.hpp; the atom from arch::default_atom
// of the element type, so the same kernel is mma.sync on NVIDIA (warp 32) and MFMA on AMD (wave 64).
// Every load goes through the view's descriptor (padding reads zero), so any im2col / col2im view
// works; one launch covers all groups, split-K chunks and col2im classes (grid z).
#pragma once
#include <type_traits>
#include "arch/fragment_distribution.hpp"
#include "arch/mma.hpp"
#include "dsl/tile_window.hpp"
#include "dsl/transform/xor_swizzle.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/split_view.hpp"

namespace tg {
namespace gpu_gemm {
template <int BM_, int BN_, int BK_, int WarpsM_, int WarpsN_>
struct tile_policy {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WarpsM = WarpsM_, WarpsN = WarpsN_;
};

template <class View>
using elem_t = std::remove_const_t<typename View::value_type>;

// A shared-memory tile [Rows, Cols] with no padding: the 16-byte chunks of each row are permuted by
// an xor with the row's index among the rows of different 128-byte bank lines, so the eight rows a
// fragment read touches fall in distinct banks. Every access goes through this one descriptor.
template <index_t Rows, index_t Cols, class E>
TG_FN auto smem_tile_desc() {
  constexpr index_t vec = 16 / sizeof(E), chunks = Cols / vec;
  constexpr index_t per_line = 128 / (Cols * sizeof(E)) > 0 ? 128 / (Cols * sizeof(E)) : 1;  // rows in one 128-byte line
  static_assert(Cols % vec == 0 && (chunks & (chunks - 1)) == 0 && Rows % per_line == 0, "swizzled tile shape");
  const auto phys = make_naive_descriptor(tg::make_tuple(number<Rows / per_line>{}, number<per_line>{}, number<chunks>{}, number<vec>{}),
                                          tg::make_tuple(number<per_line * Cols>{}, number<Cols>{}, number<vec>{}, n_<1>));
  const auto swizzled = transform(phys, tg::make_tuple(xor_swizzle<number<Rows / per_line>, number<chunks>>{}, pass_through<number<per_line>>{},
                                                       pass_through<number<vec>>{}),
                                  tg::make_tuple(seq<0, 2>{}, seq<1>{}, seq<3>{}), tg::make_tuple(seq<0, 2>{}, seq<1>{}, seq<3>{}));
  return transform(swizzled, tg::make_tuple(merge<tuple<number<Rows / per_line>, number<per_line>>>{}, merge<tuple<number<chunks>, number<vec>>>{}),
                   tg::make_tuple(seq<0, 1>{}, seq<2, 3>{}), tg::make_tuple(seq<0>{}, seq<1>{}));
}

template <class View>
__device__ inline elem_t<View> load_raw(const View& v, index_t g, index_t i, index_t k) {
  const multi_index<3> c{{g, i, k}};
  return v.desc.is_valid(c) ? v.data[v.desc.offset(c)] : from_float<elem_t<View>>(0.0f);
}

// The parts of the separable top stage (split_view.hpp) of `Count` consecutive coordinates along top
// dimension `dim` (1: rows, 2: k) of a [G, rows, K] view, as 32-bit values (they are coordinates).
template <int Count, int N, class View>
__device__ inline void tabulate_parts(int (&out)[Count][N], const View& v, index_t g, int dim, index_t base, int tid, int threads) {
  for (int r = tid; r < Count; r += threads) {
    const auto l = top_part(v, dim == 1 ? multi_index<3>{{g, base + r, 0}} : multi_index<3>{{g, 0, base + r}});
    TG_UNROLL for (int j = 0; j < N; ++j) out[r][j] = static_cast<int>(l[j]);
  }
}

// Global -> shared for one operand: the [Rows, BK] tile at (r0, k0) of a [G, R, K] view, walked along
// whichever dimension is contiguous in memory; padding and out-of-range elements read zero.
template <int Rows, int BK, int Threads, class View, class Tile, class E, class RowParts, class KParts>
__device__ inline void fill_operand(E* smem, const Tile& tile, const View& v, index_t g, index_t r0, index_t R, index_t k0, index_t K,
                                    bool rows_fast, int tid, const RowParts& rows, const KParts& ks, const typename split_view<View>::parts& gp) {
  for (int e = tid; e < Rows * BK; e += Threads) {
    const int rr = rows_fast ? e % Rows : e / BK, kk = rows_fast ? e / Rows : e % BK;
    E x = from_float<E>(0.0f);
    if (r0 + rr < R && k0 + kk < K) {
      if constexpr (split_view<View>::on) x = load_split(v, [&](int d, int j) -> index_t { return d == 1 ? rows[rr][j] : d == 2 ? ks[kk][j] : gp[j]; });
      else x = load_raw(v, g, r0 + rr, k0 + kk);
    }
    smem[tile.offset({{rr, kk}})] = x;
  }
}

struct launch_args {
  int splits;
  bool a_m_fast, b_n_fast;  // which GEMM dimension is contiguous in memory, for coalesced tile loads
  split_k_mode mode;
  float* workspace;         // [splits, G, M, N] partial sums (deterministic split-K)
};

template <class Policy, class Views>
constexpr int threads_of() {
  return Policy::WarpsM * Policy::WarpsN * arch::default_atom<elem_t<decltype(Views::a)>>::lanes;
}

// A variable, not an expression in the attribute: clang HIP sees std::declval in __launch_bounds__ as a
// host call from device code, and HIP's __launch_bounds__ macro splits its argument at commas.
template <class Policy, class Batch>
inline constexpr int threads_of_batch = threads_of<Policy, decltype(std::declval<Batch>().views(0))>();
// AMD: HIP's second argument is the least waves per SIMD; 2 keeps gfx908 (256 ArchVGPRs) at two waves.
#if defined(__HIP__)
#define TG_GEMM_LAUNCH_BOUNDS(threads) __launch_bounds__((threads), 2)
#else
#define TG_GEMM_LAUNCH_BOUNDS(threads)  // nvcc picks registers better without a bound here (it spilled with one)
#endif

template <class Policy, class Batch>
__global__ void TG_GEMM_LAUNCH_BOUNDS((threads_of_batch<Policy, Batch>))
gemm_kernel(Batch batch, gemm_epilogue ep, launch_args la) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::a)>;
  using Atom = arch::default_atom<E>;
  constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK;
  constexpr int WM = BM / Policy::WarpsM, WN = BN / Policy::WarpsN;  // warp tile
  constexpr int TM = WM / Atom::M, TN = WN / Atom::N;                // atoms per warp tile
  constexpr int threads = threads_of<Policy, V>();
  static_assert(WM % Atom::M == 0 && WN % Atom::N == 0 && BK % Atom::K == 0, "tile must be a multiple of the atom");
  // Two stages: one is filled from global memory while the other feeds the matrix cores.
  __shared__ E As[2][BM * BK];
  __shared__ E Bs[2][BN * BK];
  const auto a_tile = smem_tile_desc<BM, BK, E>();  // [m, k]
  const auto b_tile = smem_tile_desc<BN, BK, E>();  // [n, k]
  const auto a_frag = arch::fragment_distribution<Atom>::a();
  const auto b_frag = arch::fragment_distribution<Atom>::b();
  const auto c_frag = arch::fragment_distribution<Atom>::c();
  const auto b_smem_desc = reorder(b_tile, seq<1, 0>{});  // fragments index B as [k, n]
  using SA = split_view<decltype(V::a)>;
  using SB = split_view<decltype(V::b)>;
  // The separable top stage's parts (digits of the merges: coordinates, < 2^31) per row and per k.
  __shared__ int a_rows[SA::on ? BM : 1][SA::n1], a_ks[2][SA::on ? BK : 1][SA::n1];
  __shared__ int b_rows[SB::on ? BN : 1][SB::n1], b_ks[2][SB::on ? BK : 1][SB::n1];

  const V v = batch.views(blockIdx.z);
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
  typename SA::parts a_g{};
  typename SB::parts b_g{};
  if constexpr (SA::on) {
    a_g = top_part(v.a, {{g, 0, 0}});
    tabulate_parts(a_rows, v.a, g, 1, m0, tid, threads);
  }
  if constexpr (SB::on) {
    b_g = top_part(v.b, {{g, 0, 0}});
    tabulate_parts(b_rows, v.b, g, 1, n0, tid, threads);
  }
  float acc[TM][TN][Atom::c_per_lane];
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) acc[i][j][e] = 0.0f;

  // The k parts of k-tile kt into stage st.
  auto fill_ks = [&](int st, index_t kt) {
    if constexpr (SA::on) tabulate_parts(a_ks[st], v.a, g, 2, kt * BK, tid, threads);
    if constexpr (SB::on) tabulate_parts(b_ks[st], v.b, g, 2, kt * BK, tid, threads);
  };
  // Global -> shared: k-tile kt into stage st, through the views' descriptors (padding reads zero).
  auto fill_tile = [&](int st, index_t kt) {
    fill_operand<BM, BK, threads>(&As[st][0], a_tile, v.a, g, m0, M, kt * BK, K, la.a_m_fast, tid, a_rows, a_ks[st], a_g);
    fill_operand<BN, BK, threads>(&Bs[st][0], b_tile, v.b, g, n0, N, kt * BK, K, la.b_n_fast, tid, b_rows, b_ks[st], b_g);
  };
  // Shared -> fragments -> matrix cores, for the k-tile in stage st.
  auto compute = [&](int st) {
    const auto a_smem = make_view(&As[st][0], a_tile);
    const auto b_smem = make_view(&Bs[st][0], b_smem_desc);
    TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
      distributed_tensor<E, Atom::a_per_lane> fa[TM];
      distributed_tensor<E, Atom::b_per_lane> fb[TN];
      TG_UNROLL for (int i = 0; i < TM; ++i) fa[i] = load_tile<Atom::a_per_lane>(make_tile_window(a_smem, {{wm * WM + i * Atom::M, ks}}), a_frag, lane);
      TG_UNROLL for (int j = 0; j < TN; ++j) fb[j] = load_tile<Atom::b_per_lane>(make_tile_window(b_smem, {{ks, wn * WN + j * Atom::N}}), b_frag, lane);
      TG_UNROLL for (int i = 0; i < TM; ++i)
        TG_UNROLL for (int j = 0; j < TN; ++j) arch::mma<Atom>(acc[i][j], fa[i].data, fb[j].data);
    }
  };

  // Pipeline, one barrier per k-tile. At the top of iteration kt: stage cur holds tile kt, and the k
  // parts of tile kt+1 are in stage nxt. Filling stage nxt overlaps (across warps) with computing cur.
  if (kt0 < kt1) {
    fill_ks(0, kt0);
    if (kt0 + 1 < kt1) fill_ks(1, kt0 + 1);
    __syncthreads();
    fill_tile(0, kt0);
    __syncthreads();
  }
  for (index_t kt = kt0; kt < kt1; ++kt) {
    const int cur = static_cast<int>((kt - kt0) & 1), nxt = cur ^ 1;
    if (kt + 1 < kt1) fill_tile(nxt, kt + 1);
    compute(cur);
    if (kt + 2 < kt1) fill_ks(cur, kt + 2);  // stage cur's k parts were last read by fill_tile one iteration ago
    __syncthreads();
  }

  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
        const auto rc = c_frag.coord(lane, e);
        const index_t m = m0 + wm * WM + i * Atom::M + rc[0], n = n0 + wn * WN + j * Atom::N + rc[1];
        if (m >= M || n >= N) continue;
        const multi_index<3> c{{g, m, n}};
        if (la.splits == 1) {
          v.c.store(c, ep.apply(acc[i][j][e], ep.op == epilogue_op::accumulate ? v.c.load(c) : 0.0f));
        } else if (la.mode == split_k_mode::deterministic) {
          la.workspace[((s * G + g) * M + m) * N + n] = acc[i][j][e];
        } else if constexpr (std::is_same_v<elem_t<decltype(V::c)>, float>) {
          atomicAdd(&v.c.data[v.c.desc.offset(c)], ep.alpha * acc[i][j][e]);
        }
      }
}

// Deterministic split-K: partial sums added in chunk order, then the epilogue.
template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) splitk_reduce_kernel(Batch batch, gemm_epilogue ep, const float* ws, int splits, array<int, 3> order) {
  const auto v = batch.views(0);
  const multi_index<3> len{{v.groups(), v.m(), v.n()}};
  const index_t total = len[0] * len[1] * len[2];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const multi_index<3> c = index_in_order(l, len, order);
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += ws[((s * len[0] + c[0]) * len[1] + c[1]) * len[2] + c[2]];
    v.c.store(c, ep.apply(acc, ep.op == epilogue_op::accumulate ? v.c.load(c) : 0.0f));
  }
}

template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) fill_kernel(Batch batch, float value, array<int, 3> order) {
  const auto v = batch.views(0);
  const multi_index<3> len{{v.groups(), v.m(), v.n()}};
  const index_t total = len[0] * len[1] * len[2];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x)
    v.c.store(index_in_order(l, len, order), value);
}

template <class Desc>
bool unit_step(const Desc& d, int dim) {
  multi_index<3> e{};
  e[dim] = 1;
  return d.length(dim) > 1 && d.offset(e) - d.offset(multi_index<3>{}) == 1;
}

template <class Policy, class Batch>
void launch(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, index_t max_tiles, index_t G) {
  using V = decltype(batch.views(0));
  const V v0 = batch.views(0);
  launch_args la{1, unit_step(v0.a.desc, 1), unit_step(v0.b.desc, 1), pol.mode, nullptr};
  const index_t KT = (v0.k() + Policy::BK - 1) / Policy::BK;
  index_t want = pol.k_splits;
  if (want <= 0) {  // automatic: enough blocks for two waves, each chunk at least 8 k-tiles long
    const index_t blocks = max_tiles * G, target = 2 * be.processors();
    want = blocks >= target ? 1 : ceil_div(target, blocks);
    want = want < KT / 8 ? want : (KT / 8 > 1 ? KT / 8 : 1);
  }
  if (batch.count() == 1 && want > 1 && KT > 1) la.splits = static_cast<int>(want < KT ? want : KT);
  constexpr bool c_is_float = std::is_same_v<elem_t<decltype(V::c)>, float>;
  if (la.mode == split_k_mode::atomic && (!c_is_float || ep.op != epilogue_op::store)) la.mode = split_k_mode::deterministic;
  const auto order = memory_order(v0.c.desc);
  if (la.splits > 1 && la.mode == split_k_mode::deterministic) la.workspace = be.template scratch<float>(la.splits * G * v0.m() * v0.n()).data();
  if (la.splits > 1 && la.mode == split_k_mode::atomic)
    TG_LAUNCH((fill_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, 0.0f, order);
  const dim3 grid(static_cast<unsigned>(max_tiles), static_cast<unsigned>(G * la.splits), static_cast<unsigned>(batch.count()));
  TG_LAUNCH((gemm_kernel<Policy, Batch>), grid, threads_of<Policy, V>(), 0, be.stream, batch, ep, la);
  if (la.workspace)
    TG_LAUNCH((splitk_reduce_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, ep, la.workspace, la.splits, order);
}
}  // namespace gpu_gemm

// The tile table: the schedule per problem shape, op and architecture. Entries are compile-time
// tile shapes (each one more instantiation of the kernel); the choice is made per problem here.
//   wide    64x64x32, 2x2 warps: the default.
//   narrow  32x64x32, 1x4 warps (1x2 waves of 64 on AMD: the same 128 threads): single GEMMs with at most 32 rows (grouped and depthwise backward
//           weight, M = K/G), where a 64-row tile would compute mostly padding. Only instantiated for
//           single GEMMs, to keep compile time down.
//   big     128x128x32, 2x2 warps: off (TG_GEMM_BIG_TILES); it doubles the nvcc time.
template <class Batch>
struct gemm_tile_table {
  using wide = gpu_gemm::tile_policy<64, 64, 32, 2, 2>;
#if defined(__HIP__)
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 2>;
#else
  using narrow = gpu_gemm::tile_policy<32, 64, 32, 1, 4>;
#endif
  using big = gpu_gemm::tile_policy<128, 128, 32, 2, 2>;
  static constexpr bool has_narrow = is_single_gemm<Batch>::value;
};

template <class Batch>
void gemm(gpu_backend& be, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  using table = gemm_tile_table<Batch>;
  index_t max_m = 0, max_n = 0, G = 0;
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    G = v.groups();
    max_m = v.m() > max_m ? v.m() : max_m;
    max_n = v.n() > max_n ? v.n() : max_n;
  }
  if (G == 0 || max_m == 0 || max_n == 0) return;
  auto tiles = [&](auto policy) {
    using P = decltype(policy);
    return ceil_div(max_m, P::BM) * ceil_div(max_n, P::BN);
  };
  if constexpr (table::has_narrow) {
    if (max_m <= table::narrow::BM) return gpu_gemm::launch<typename table::narrow>(be, batch, ep, pol, tiles(typename table::narrow{}), G);
  }
#if defined(TG_GEMM_BIG_TILES)
  if (tiles(typename table::big{}) * G * batch.count() >= 2 * be.processors())
    return gpu_gemm::launch<typename table::big>(be, batch, ep, pol, tiles(typename table::big{}), G);
#endif
  gpu_gemm::launch<typename table::wide>(be, batch, ep, pol, tiles(typename table::wide{}), G);
}
}  // namespace tg
