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

// A view whose top stage is separable (group_dims: each transform reads one of g, row, k) and always
// valid: the kernel evaluates that stage, which holds all the merge divisions, once per tile row and
// once per k into shared memory, and each element walks only the stages below it.
template <class View>
struct split_top {
  using chain_t = typename View::desc_type::adaptor_type;
  using top_t = typename chain_t::template stage_t<0>;
  static constexpr bool on = top_t::separable && top_t::always_valid && chain_t::n_stages > 1;
  static constexpr int n1 = top_t::n_lower;
};

template <class View>
__device__ inline multi_index<split_top<View>::n1> top_part(const View& v, index_t g, index_t i, index_t k) {
  return get<0>(v.desc.chain.stages).lower(multi_index<3>{{g, i, k}});
}

template <class View, int N>
__device__ inline elem_t<View> load_split(const View& v, const int (&row)[N], const int (&kpart)[N], const multi_index<N>& gpart) {
  constexpr auto src = split_top<View>::top_t::lower_source();
  multi_index<N> l{};
  TG_UNROLL for (int j = 0; j < N; ++j) l[j] = src[j] == 1 ? row[j] : src[j] == 2 ? kpart[j] : gpart[j];
  const auto& ch = v.desc.chain;
  return ch.template valid_from<1>(l) ? v.data[ch.template bottom_from<1>(l)[0]] : from_float<elem_t<View>>(0.0f);
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
  using SA = split_top<decltype(V::a)>;
  using SB = split_top<decltype(V::b)>;
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
  multi_index<SA::n1> a_g{};
  multi_index<SB::n1> b_g{};
  if constexpr (SA::on) {
    a_g = top_part(v.a, g, 0, 0);
    for (int r = tid; r < BM; r += threads) {
      const auto l = top_part(v.a, g, m0 + r, 0);
      TG_UNROLL for (int j = 0; j < SA::n1; ++j) a_rows[r][j] = static_cast<int>(l[j]);
    }
  }
  if constexpr (SB::on) {
    b_g = top_part(v.b, g, 0, 0);
    for (int r = tid; r < BN; r += threads) {
      const auto l = top_part(v.b, g, n0 + r, 0);
      TG_UNROLL for (int j = 0; j < SB::n1; ++j) b_rows[r][j] = static_cast<int>(l[j]);
    }
  }
  float acc[TM][TN][Atom::c_per_lane];
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) acc[i][j][e] = 0.0f;

  // The k parts of k-tile kt into stage st.
  auto fill_ks = [&](int st, index_t kt) {
    if constexpr (SA::on || SB::on) {
      for (int kk = tid; kk < BK; kk += threads) {
        if constexpr (SA::on) { const auto l = top_part(v.a, g, 0, kt * BK + kk); TG_UNROLL for (int j = 0; j < SA::n1; ++j) a_ks[st][kk][j] = static_cast<int>(l[j]); }
        if constexpr (SB::on) { const auto l = top_part(v.b, g, 0, kt * BK + kk); TG_UNROLL for (int j = 0; j < SB::n1; ++j) b_ks[st][kk][j] = static_cast<int>(l[j]); }
      }
    }
  };
  // Global -> shared: k-tile kt into stage st, through the views' descriptors (padding reads zero).
  auto fill_tile = [&](int st, index_t kt) {
    for (int e = tid; e < BM * BK; e += threads) {
      const int mm = la.a_m_fast ? e % BM : e / BK, kk = la.a_m_fast ? e / BM : e % BK;
      const index_t m = m0 + mm, k = kt * BK + kk;
      E x = from_float<E>(0.0f);
      if (m < M && k < K) {
        if constexpr (SA::on) x = load_split(v.a, a_rows[mm], a_ks[st][kk], a_g);
        else x = load_raw(v.a, g, m, k);
      }
      As[st][a_tile.offset({{mm, kk}})] = x;
    }
    for (int e = tid; e < BN * BK; e += threads) {
      const int nn = la.b_n_fast ? e % BN : e / BK, kk = la.b_n_fast ? e / BN : e % BK;
      const index_t n = n0 + nn, k = kt * BK + kk;
      E x = from_float<E>(0.0f);
      if (n < N && k < K) {
        if constexpr (SB::on) x = load_split(v.b, b_rows[nn], b_ks[st][kk], b_g);
        else x = load_raw(v.b, g, n, k);
      }
      Bs[st][b_tile.offset({{nn, kk}})] = x;
    }
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
