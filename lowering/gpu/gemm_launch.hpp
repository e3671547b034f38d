// The cp.async GEMM's host side: each operand's staging mode, the launch's scratch in one carved
// request, split-K, and the launches of the main kernel and of the small-M kernel (gemm_small.hpp).
#pragma once
#include "lowering/gpu/gemm_support_kernels.hpp"

namespace tg {
namespace gpu_gemm {
// How far one step along top dimension `dim` of a [G, rows, K] view moves in memory (affine views).
template <class Desc>
index_t step_along(const Desc& d, int dim) {
  multi_index<3> e{};
  e[dim] = 1;
  return d.offset(e) - d.offset(multi_index<3>{});
}
template <class Desc>
bool unit_step(const Desc& d, int dim) {
  return d.length(dim) > 1 && step_along(d, dim) == 1;
}

// The affine_split k entries of every view of the batch, [batch][k_stride], made on the device
// (k_entries_kernel); null for an operand that is not an affine split.
// Several scratch arrays of one launch carved from a single arena request (each 256-byte aligned):
// scratch_arena reuses its memory when a request does not fit, which is safe between launches (it
// drains the stream first) but not between two requests of one launch whose kernels have not run yet.
struct scratch_carve {
  std::size_t bytes = 0;
  template <class T>
  std::size_t add(index_t n) {
    const std::size_t at = bytes;
    bytes += (static_cast<std::size_t>(n) * sizeof(T) + 255) / 256 * 256;
    return at;
  }
};

// The affine_split k entries of every view of the batch, [batch][k_stride], made on the device
// (k_entries_kernel) into `a` and `b` (scratch the caller carved; unused for an operand that is not an
// affine split), in the reduction order `order`.
template <class Batch, class EA, class EB>
void make_k_entries(gpu_backend& be, const Batch& batch, index_t k_stride, EA* a, EB* b, k_order order = {}) {
  using V = decltype(batch.views(0));
  if constexpr (affine_split<decltype(V::a)>::on || affine_split<decltype(V::b)>::on) {
    constexpr int VA = 16 / sizeof(elem_t<decltype(V::a)>);
    TG_LAUNCH((k_entries_kernel<VA, Batch, EA, EB>), grid_for(batch.count() * k_stride, 256), 256, 0, be.stream, batch, a, b, k_stride, order);
  }
}

// An operand's staging: rows-fast when the rows step through memory by one; 16-byte pieces when the
// view is an affine split (its entries find the runs) and the pointer is 16-byte aligned.
template <class View>
operand_mode mode_of(const View& v) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0;
  return {unit_step(v.desc, 1), affine_split<View>::on && aligned};
}

template <class Policy, class Batch>
void launch(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, index_t max_tiles, index_t G) {
  using V = decltype(batch.views(0));
  using SA = affine_split<decltype(V::a)>;
  using SB = affine_split<decltype(V::b)>;
  using EA = typename SA::entry;
  using EB = typename SB::entry;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  constexpr bool tables = SA::on || SB::on;
  const V v0 = batch.views(0);
  launch_args la{1, mode_of(v0.a), mode_of(v0.b), mode_of(v0.c), nullptr, nullptr, nullptr, nullptr, nullptr, 0, pol.mode, nullptr};
  for (index_t t = 0; t < batch.count(); ++t) la.k_stride = batch.views(t).k() > la.k_stride ? batch.views(t).k() : la.k_stride;
  // Rounded up to whole k-tiles: the last tile's fill reads entries past K (and ignores them).
  la.k_stride = ceil_div(la.k_stride, Policy::BK) * Policy::BK;
  const index_t KT = (v0.k() + Policy::BK - 1) / Policy::BK;
  constexpr std::size_t shared = smem_plan<Policy, V, shared_views<Batch>>::bytes;
  static const int resident = [] {  // once per kernel
    arch::allow_dynamic_shared(&gemm_kernel<Policy, Batch>, shared);
    return arch::resident_blocks(&gemm_kernel<Policy, Batch>, threads_of<Policy, V>(), shared);
  }();
  index_t want = pol.k_splits;
  if (want <= 0)  // automatic: waves of resident blocks filled (split_k_chunks), each chunk at least 8 k-tiles
    want = split_k_chunks(max_tiles * G, static_cast<index_t>(resident) * be.processors(), KT / 8);
  if (batch.count() == 1 && want > 1 && KT > 1) la.splits = static_cast<int>(want < KT ? want : KT);
  constexpr bool c_is_float = std::is_same_v<elem_t<decltype(V::c)>, float>;
  if (la.mode == split_k_mode::atomic && (!c_is_float || ep.op != epilogue_op::store)) la.mode = split_k_mode::deterministic;
  const bool workspace = la.splits > 1 && la.mode == split_k_mode::deterministic;

  // The launch's scratch, one request: k entries, k-tile summaries, views, split-K workspace.
  const index_t n_entries = tables ? batch.count() * la.k_stride : 0, n_tiles = tables ? batch.count() * (la.k_stride / Policy::BK) : 0;
  scratch_carve sc;
  const std::size_t at_ea = sc.add<EA>(n_entries), at_eb = sc.add<EB>(n_entries), at_ta = sc.add<TA>(n_tiles), at_tb = sc.add<TB>(n_tiles);
  const std::size_t at_views = sc.add<V>(shared_views<Batch> ? batch.count() : 0);
  const std::size_t at_ws = sc.add<float>(workspace ? la.splits * G * v0.m() * v0.n() : 0);
  unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
  if constexpr (shared_views<Batch>) {
    V* views = reinterpret_cast<V*>(base + at_views);
    TG_LAUNCH((views_kernel<Batch>), grid_for(batch.count(), 64), 64, 0, be.stream, batch, views);
    la.views = views;
  }
  if constexpr (tables) {
    EA* ea = reinterpret_cast<EA*>(base + at_ea);
    EB* eb = reinterpret_cast<EB*>(base + at_eb);
    TA* ta = reinterpret_cast<TA*>(base + at_ta);
    TB* tb = reinterpret_cast<TB*>(base + at_tb);
    // Single GEMMs whose operands both have contiguous rows (channels-last backward weight) walk the
    // reduction with its outermost coordinate fastest, so that their k-tiles are uniform (k_order.hpp).
    k_order order{};
    if constexpr (is_single_gemm<Batch>::value && SA::on && SB::on)
      if (la.a.rows_fast && la.b.rows_fast) order = reduction_order<Policy::BK>(v0.a, v0.b);
    make_k_entries(be, batch, la.k_stride, ea, eb, order);
    TG_LAUNCH((k_tiles_kernel<Policy::BK, Batch, EA, EB, TA, TB>), grid_for(n_tiles, 256), 256, 0, be.stream, batch, ea, eb, ta, tb, la.k_stride);
    la.a_ks = ea;
    la.b_ks = eb;
    la.a_kt = ta;
    la.b_kt = tb;
  }
  if (workspace) la.workspace = reinterpret_cast<float*>(base + at_ws);
  const auto order = memory_order(v0.c.desc);
  if (la.splits > 1 && la.mode == split_k_mode::atomic)
    TG_LAUNCH((fill_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, 0.0f, order);
  const dim3 grid(static_cast<unsigned>(max_tiles), static_cast<unsigned>(G * la.splits), static_cast<unsigned>(batch.count()));
  TG_LAUNCH((gemm_kernel<Policy, Batch>), grid, threads_of<Policy, V>(), shared, be.stream, batch, ep, la);
  if (la.workspace)
    TG_LAUNCH((splitk_reduce_kernel<Batch>), grid_for(G * v0.m() * v0.n(), 256), 256, 0, be.stream, batch, ep, la.workspace, la.splits, order);
}

// Small-M GEMMs (gemm_small.hpp): a single GEMM of affine-split operands with few rows per group
// (gemm_tile_table::small_max_m).
template <class Batch>
constexpr bool small_m_ok() {
  using V = decltype(std::declval<Batch>().views(0));
  return is_single_gemm<Batch>::value && affine_split<decltype(V::a)>::on && affine_split<decltype(V::b)>::on;
}
template <int MR, int NR, class Batch>
void launch_small_as(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, bool g_lanes) {
  using V = decltype(batch.views(0));
  const V v = batch.views(0);
  const index_t G = v.groups(), M = v.m(), N = v.n(), K = v.k();
  small_args sa{g_lanes, 1, K, nullptr, nullptr, nullptr};
  const index_t gx = sa.g_lanes ? ceil_div(G, index_t{small_lanes}) : G, ny = ceil_div(N, index_t{NR});
  const index_t step = sa.g_lanes ? small_threads / small_lanes : small_threads;
  index_t want = pol.k_splits;
  if (want <= 0) {  // about four blocks per multiprocessor in whole waves, each thread at least 16 k
    static const int resident = arch::resident_blocks(&gemm_small_kernel<MR, NR, V>, small_threads, 0);
    const index_t waves = resident < 4 ? ceil_div(index_t{4}, index_t{resident}) : 1;
    want = split_k_chunks(gx * ny, waves * resident * be.processors(), K / (16 * step));
  }
  want = want < K ? want : K;
  want = want < 65535 ? want : 65535;
  sa.chunk = want > 0 ? ceil_div(K, want) : 1;  // K = 0: one empty chunk, C = epilogue(0)
  sa.splits = K > 0 ? static_cast<int>(ceil_div(K, sa.chunk)) : 1;
  // The launch's scratch, one request (scratch_carve): k entries and split-K workspace.
  using EA = typename affine_split<decltype(V::a)>::entry;
  using EB = typename affine_split<decltype(V::b)>::entry;
  scratch_carve sc;
  const std::size_t at_ea = sc.add<EA>(K), at_eb = sc.add<EB>(K), at_ws = sc.add<float>(sa.splits * G * M * N);
  unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
  EA* ea = reinterpret_cast<EA*>(base + at_ea);
  EB* eb = reinterpret_cast<EB*>(base + at_eb);
  make_k_entries(be, batch, K, ea, eb);
  sa.a_ks = ea;
  sa.b_ks = eb;
  sa.workspace = reinterpret_cast<float*>(base + at_ws);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(ny), static_cast<unsigned>(sa.splits));
  TG_LAUNCH((gemm_small_kernel<MR, NR, V>), grid, small_threads, 0, be.stream, v, sa);
  TG_LAUNCH((splitk_reduce_kernel<Batch>), grid_for(G * M * N, 256), 256, 0, be.stream, batch, ep, sa.workspace, sa.splits,
            memory_order(v.c.desc));
}

// Lanes along the group when B's groups lie closer together in memory than its k; 8 columns (taps,
// or one tap's 8 channels) per thread.
template <int MR, class Batch>
void launch_small(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol) {
  using V = decltype(batch.views(0));
  const V v = batch.views(0);
  auto stride = [&](const auto& d, int dim) {
    const index_t s = step_along(d, dim);
    return s < 0 ? -s : s;
  };
  const bool g_lanes = v.groups() > 1 && v.k() > 1 && stride(v.b.desc, 0) < stride(v.b.desc, 2);
  launch_small_as<MR, 8>(be, batch, ep, pol, g_lanes);
}
}  // namespace gpu_gemm
}  // namespace tg
