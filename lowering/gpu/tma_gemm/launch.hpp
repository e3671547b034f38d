// Launching the TMA GEMM: plan each GEMM of the batch (class_plan.hpp), encode its tensor maps, choose
// split-K for single GEMMs where it pays (plan.hpp's estimate; reduced in the kernel, in a fixed order:
// split_reduce.hpp), and launch one persistent grid. Returns false, with the reason, where the batch cannot take this
// pipeline (not sm_90a, fp32, views that are not boxes, ...); the caller then runs the cp.async one.
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "lowering/gpu/gemm.hpp"
#include "lowering/gpu/tma_gemm/halo_kernel.hpp"
#include "lowering/gpu/tma_gemm/kernel.hpp"
#include "lowering/gpu/tma_gemm/plan_cache.hpp"

namespace tg::tma_gemm {
// Whether the current device runs a kernel's sm_90a image (a Hopper GPU and a build for 90a); gives it
// its shared memory.
template <auto Kernel, int SmemBytes>
bool image_runs_here() {
  static const bool ok = [] {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, arch::current_device()) != cudaSuccess || p.major != 9) return false;
    cudaFuncAttributes at{};
    if (cudaFuncGetAttributes(&at, Kernel) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    if (at.binaryVersion != 90) return false;
    arch::allow_dynamic_shared(Kernel, SmemBytes);
    return true;
  }();
  return ok;
}
template <class E, class P, bool AMn, bool BMn, bool Halo, int C>
bool kernel_runs_here() {
  if constexpr (Halo) return image_runs_here<&tma_halo_kernel<E, P, BMn>, P::smem_bytes>();
  else return image_runs_here<&tma_gemm_kernel<E, P, AMn, BMn, C>, P::smem_bytes>();
}

inline void set_operand(operand& o, const boxes::operand_boxes& b, const void* data, arch::tma_elem e) {
  o.map = arch::encode_tma(b.box, data, e, sm90_schedule().l2_promotion_bytes);
  o.rank = b.box.rank;
  o.load = boxes::loads_of(b);
  o.stack_shift = b.stack_shift;
  for (int x = 0; x < rank; ++x) o.base[x] = b.base[x], o.box_step[x] = b.box_step[x];
  std::memcpy(o.step, b.step, sizeof(o.step));
}

inline void set_c_boxes(c_boxes& cb, const c_store& st, const void* c, arch::tma_elem e) {
  cb.map = arch::encode_tma(st.box, c, e);
  cb.axes = st.axes;
}

// A plan's A and B tensors (a transposed plan reads the view's B as its A).
template <class V>
std::pair<const void*, const void*> plan_operands(const class_plan& p, const V& v) {
  return p.transposed ? std::pair<const void*, const void*>{v.b.data, v.a.data} : std::pair<const void*, const void*>{v.a.data, v.b.data};
}

// Why the TMA cannot take box b over the tensor at `data` (elements of elem_bytes, laid out as `layout`):
// the driver's documented limits, checked by the same function that makes the tensor map's numbers
// (arch::tma_map_params_of); nullptr where it can. Asked before launching, so that a tensor the TMA
// cannot address (an origin or stride off 16 bytes) takes another pipeline instead.
inline const char* tma_refusal(const arch::tma_box& b, const void* data, int elem_bytes, arch::tma_layout layout = arch::tma_layout::swizzle128) {
  arch::tma_map_params p;
  return arch::tma_map_params_of(b, elem_bytes, data, layout == arch::tma_layout::swizzle128, p);
}

template <class E, class P, bool AMn, bool BMn, int C>
void launch_as(gpu_backend& be, const args<C>& a, long long tiles) {
  const unsigned grid = static_cast<unsigned>(a.units < be.processors() ? a.units : be.processors());
  TG_LAUNCH((tma_gemm_kernel<E, P, AMn, BMn, C>), grid, P::threads, P::smem_bytes, be.stream, a);
  if (a.splits > 1 && !a.fused_split) {  // a block per 32 pieces of a tile's partial
    const dim3 g(static_cast<unsigned>(tiles), static_cast<unsigned>(split_sum_blocks_per_tile<P>()));
    TG_LAUNCH((split_sum_kernel<E, P, C>), g, 32 * split_sum_warps, 0, be.stream, a);
  }
}

// Plans every GEMM of the batch for tile P (plan_cache.hpp: planned once per shape), then the checks
// that depend on the pointers; false with the reason where one cannot take it. orient: a_mn * 2 +
// b_mn, the same for every GEMM that reads its operands (-1 where none does).
template <class P, bool T, halo_kind H, class V>
bool plan_batch(const std::vector<V>& vs, class_plan (&plans)[max_classes], int& orient, std::string& why) {
  for (const V& v : vs)
    if (v.c.data != vs[0].c.data) return why = "the batch writes more than one tensor", false;
  const batch_plan bp = plan_views_cached<P::BM, P::BN, T, H, P::BK>(vs);
  if (!bp.ok) return why = bp.why, false;
  orient = bp.orient;
  for (std::size_t t = 0; t < vs.size(); ++t) {
    plans[t] = bp.plans[t];
    if (!plans[t].ok || !plans[t].has_k) continue;
    const auto [a, b] = plan_operands(plans[t], vs[t]);
    constexpr int eb = sizeof(typename std::remove_cvref_t<decltype(V::a)>::value_type);
    if (const char* no = tma_refusal(plans[t].a.box, a, eb)) return why = std::string("A's TMA box: ") + no, false;
    if (const char* no = tma_refusal(plans[t].b.box, b, eb)) return why = std::string("B's TMA box: ") + no, false;
  }
  return true;
}

// The split-K count of a single GEMM's plan: the policy's, else plan.hpp's choice for its tiles.
inline long long splits_of(const gpu_backend& be, const class_plan& p, gemm_policy pol) {
  const long long kt = p.k.count, tiles = p.m.count * p.n.count * p.groups;
  const schedule& sc = sm90_schedule();
  const long long want = pol.k_splits > 0 ? pol.k_splits : choose_splits(tiles, be.processors(), kt, sc.fused_split_max, sc.split_cost);
  return want < 1 ? 1 : want > kt ? kt : want;
}

// Fills the kernel's arguments from the plans (tensor maps, digits, C, split-K) and launches.
template <class E, class P, bool AMn, bool BMn, bool Halo = false, class Batch, class V>
bool launch_plans(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol,
                  const class_plan (&plans)[max_classes], std::string& why) {
  // One GEMM's parameter where the batch's type (or the halo kernel) allows no more.
  constexpr int C = Halo || is_single_gemm<Batch>::value ? 1 : max_classes;
  if (batch.count() > C) return why = "more GEMMs than the kernel's parameter holds", false;
  if (!kernel_runs_here<E, P, AMn, BMn, Halo, C>()) return why = "not an sm_90a GPU and build", false;
  static_assert(P::BK * sizeof(E) == boxes::swizzle_bytes, "a tile's k-tile is one 128-byte row of E");
  const arch::tma_elem te = std::is_same_v<E, half_t> ? arch::tma_elem::f16 : std::is_same_v<E, bf16_t> ? arch::tma_elem::bf16 : arch::tma_elem::f32;
  const V& v0 = vs[0];
  args<C> a{};
  a.classes = static_cast<int>(batch.count());
  a.alpha = ep.alpha;
  a.c = v0.c.data;
  a.c_vectors = true;
  a.release_early = sm90_schedule().release_early;
  a.stage_tx = P::stage_bytes;
  if (P::landing_slots > 0 && plans[0].ok && plans[0].has_k)
    a.consumers_transpose = consumers_transpose(sm90_schedule(), P::BN, boxes::loads_of(plans[0].a).loads + boxes::loads_of(plans[0].b).loads);
  if constexpr (P::k_halo) {  // A brings the halo's rows, not the tile's
    a.k_halo = plans[0].k_halo;
    a.stage_tx = static_cast<std::uint32_t>(a.k_halo.rows) * 128u + P::b_bytes;
  }
  if constexpr (Halo) {  // whole tiles: split-K chunks would cut the channel blocks the halos are loaded by
    a.k_chunk = plans[0].k.count;
    a.halo = plans[0].halo;
    a.block_runs = P::resident && plans[0].groups > 1;  // a resident B per group: runs of units cross few groups
  } else if (batch.count() == 1 && plans[0].ok && plans[0].has_k) {  // split-K where the tiles alone cannot fill the GPU
    const long long kt = plans[0].k.count;
    a.k_chunk = ceil_div(kt, splits_of(be, plans[0], pol));
    a.splits = static_cast<int>(ceil_div(kt, a.k_chunk));
    a.fused_split = !P::lean_consumers && a.splits > 1 && a.splits <= sm90_schedule().fused_split_max;
  } else {
    for (index_t t = 0; t < batch.count(); ++t) a.k_chunk = plans[t].k.count > a.k_chunk ? plans[t].k.count : a.k_chunk;
  }
  for (index_t t = 0; t < batch.count(); ++t) {
    const class_plan& p = plans[t];
    gemm_class& c = a.cls[t];
    c.unit0 = a.units;
    if (!p.ok) continue;  // an empty GEMM
    if (pow2_rows<P> && !(p.m.pow2 && p.n.pow2)) return why = "the kernel's tile takes power-of-two extents only", false;
    const V& v = vs[t];
    c.m = p.m, c.n = p.n, c.k = p.k;
    c.groups = p.groups;
    c.has_k = p.has_k;
    if (p.has_k) {
      const auto [da, db] = plan_operands(p, v);
      set_operand(c.a, p.a, da, te);
      set_operand(c.b, p.b, db, te);
    }
    c.c_off0 = p.c_off0, c.c_g = p.c_g;
    for (int q = 0; q < nd; ++q) c.c_m[q] = p.c_m[q], c.c_n[q] = p.c_n[q];
    c.units = static_cast<long long>(p.groups) * a.splits * p.m.count * p.n.count;
    a.units += c.units;
    a.c_vectors = a.c_vectors && c_columns_vector<E>(p, v.c.data);
  }
  const char* c_why = nullptr;  // why C is not stored as TMA boxes where the schedule asks for them
  if constexpr (!P::lean_consumers && pow2_rows<P> && P::BN % c_box_cols == 0 && sizeof(E) == 2) {  // C as TMA store boxes where every class's is
    a.c_tma = a.c_vectors && sm90_schedule().tma_store;
    c_store st[C];
    const index_t n = batch.count() < C ? batch.count() : C;  // (checked above; GCC's -Wstringop-overflow cannot see it)
    for (index_t t = 0; a.c_tma && t < n; ++t)
      if (plans[t].ok && !(st[t] = plan_c_store(plans[t], P::BN, static_cast<int>(sizeof(E)))).ok) a.c_tma = false, c_why = st[t].why;
    for (index_t t = 0; a.c_tma && t < n; ++t)
      if (plans[t].ok) set_c_boxes(a.cls[t].cb, st[t], v0.c.data, te);
  }
  why = "tma_gemm " + std::to_string(P::BM) + "x" + std::to_string(P::BN) + "x" + std::to_string(P::BK) + ", " + std::to_string(P::stages) +
        " stages, A " + (AMn ? "MN" : "K") + "-major, B " + (BMn ? "MN" : "K") + "-major, " + std::to_string(a.units) + " units" + (plans[0].transposed ? " (C^T = B^T A^T)" : "") +
        (plans[0].a.step_digit >= 0 || plans[0].b.step_digit >= 0 ? ", boxes stepping along a tap" : "") +
        (plans[0].a.stack_shift > 0 || plans[0].b.stack_shift > 0 ? ", stacked boxes" : "") +
        (Halo ? ", A as halos (" + std::to_string(a.halo.taps) + " taps, " + std::to_string(a.halo.rows) + " rows)" : std::string()) +
        (P::k_halo ? ", A as a halo per k-tile (" + std::to_string(a.k_halo.rows) + " rows)" : std::string()) +
        (P::resident ? a.block_runs ? ", B resident per group (runs of units)" : ", B resident" : "") +
        (P::landing_slots > 0 ? ", MN-major boxes transposed to K-major stages (" + std::to_string(P::landing_slots) + " landing slots, by the " +
                                     (a.consumers_transpose ? "consumers)" : "transposer warps)") : std::string()) + ", split-K " +
        std::to_string(a.splits) + (a.splits > 1 ? a.fused_split ? " (added by the last split)" : " (added by split_sum_kernel)" : "") +
        (a.c_tma ? ", C by TMA stores" : c_why ? std::string(", C by the threads (TMA stores: ") + c_why + ")" : std::string()) +
        (a.release_early ? ", early release" : "");
  if (a.units == 0) return true;
  const index_t tiles = static_cast<index_t>(plans[0].groups) * plans[0].m.count * plans[0].n.count;
  if (a.splits > 1) {  // one request (the arena may hand out a second one's memory again): partials, then counters
    const index_t floats = tiles * a.splits * split_tile_floats<P>();
    a.ws = be.template scratch<float>(floats + (a.fused_split ? tiles : 0)).data();
    if (a.fused_split) {  // the last split of a tile is found by counting: counters zeroed per launch
      a.tile_done = reinterpret_cast<unsigned*>(a.ws + floats);
      arch::zero_bytes_async(a.tile_done, static_cast<std::size_t>(tiles) * sizeof(unsigned), be.stream);
    }
  }
  if constexpr (Halo) {
    const unsigned grid = static_cast<unsigned>(a.units < be.processors() ? a.units : be.processors());
    TG_LAUNCH((tma_halo_kernel<E, P, BMn>), grid, P::threads, P::smem_bytes, be.stream, a);
  } else {
    launch_as<E, P, AMn, BMn>(be, a, tiles);
  }
  return true;
}

// The halo kernel for tile P in the plans' orientation (A is K-major: orient 0 or 1).
template <class E, class P, class Batch, class V>
bool launch_halo(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol,
                 const class_plan (&plans)[max_classes], int orient, std::string& why) {
  if constexpr (sizeof(E) == 2) {  // tf32 halos: K-major B only
    if (orient == 1) return launch_plans<E, P, false, true, true>(be, batch, vs, ep, pol, plans, why);
  }
  if (orient == 0) return launch_plans<E, P, false, false, true>(be, batch, vs, ep, pol, plans, why);
  return why = "a halo needs K-major A", false;
}

// A single GEMM with K-major A over filter taps (a stride-1 convolution's forward or backward data) on
// the halo kernel with 256 x BN tiles, or why not: planned once (the resident tile shares the plan), B
// resident where one N tile of few k-tiles serves every tile of a group and a block's run of units
// crosses into another group at most about every other unit (packed narrow groups: group_packing.hpp).
template <class E, int BN, class Batch, class V>
bool run_halo(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  using P = halo_tile<256, BN, false, static_cast<int>(sizeof(E))>;
  class_plan plans[max_classes];
  int orient;
  if (!plan_batch<P, false, halo_kind::rows>(vs, plans, orient, why)) return false;
  const class_plan& p = plans[0];
  if (!p.ok || !p.has_k || p.halo.taps < 2) return why = "no taps to share a halo", false;
  const long long halo_tiles = static_cast<long long>(p.groups) * p.m.count * p.n.count,
                  box_tiles = static_cast<long long>(p.groups) * ((vs[0].m() + P::BM - 1) / P::BM) * p.n.count;
  if (!halo_tiles_fill(halo_tiles, box_tiles, be.processors()))
    return why = "halo tiles too empty (" + std::to_string(halo_tiles) + " against the boxes' " + std::to_string(box_tiles) + ")", false;
  if constexpr (BN == 64 && sizeof(E) == 2) {
    using R = halo_tile<256, 64, true>;
    const long long units = static_cast<long long>(p.groups) * p.m.count, run = (units + be.processors() - 1) / be.processors();
    if (p.n.count == 1 && (p.groups == 1 || p.m.count >= 2 * run) && p.k.count <= R::stages && p.halo.rows <= R::halo_rows)
      return launch_halo<E, R>(be, batch, vs, ep, pol, plans, orient, why);
  }
  return launch_halo<E, P>(be, batch, vs, ep, pol, plans, orient, why);
}

// Whether a batch can be backward weight's GEMM (dy, im2col(x)) by its views' types: one GEMM, A
// without padding guards, B with them. Only such batches instantiate the k-halo kernels (the forward
// and backward data units would compile them for nothing).
template <class Batch>
constexpr bool k_halo_views() {
  using V = decltype(std::declval<const Batch&>().views(0));
  if constexpr (!is_single_gemm<Batch>::value || !affine_split<decltype(V::a)>::on || !affine_split<decltype(V::b)>::on) return false;
  else return affine_split<decltype(V::a)>::n_guards == 0 && affine_split<decltype(V::b)>::n_guards > 0;
}

// Backward weight of a stride-1 convolution (both operands MN-major), planned as dW^T = im2col(x)^T dy
// so that a tile's m64 blocks are filter taps: A as one halo per k-tile (k_halo_plan.hpp) on the taps
// tile (a 3x3 filter plane per tile) where it plans, else on 256x64 tiles, or why not.
// The taps tile is refused where its splits would be chunks of fewer than taps_tile_min_chunk k-tiles
// (few positions: ResNeXt's C1024 7x7 layer, 16 tiles x 16 splits of 4 k-tiles, took 34 us plus 56 us
// of split_sum_kernel on 37.7 MB of partials against 96 us on 256x64 tiles: performance.md section 27).
constexpr long long taps_tile_min_chunk = 8;
template <class E, class P, class Batch, class V>
bool run_k_halo_on(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  class_plan plans[max_classes];
  int orient;
  if (!plan_batch<P, true, halo_kind::k>(vs, plans, orient, why)) return false;
  if (orient != 3 || !plans[0].ok || !plans[0].has_k) return why = "no reduction to share halos over", false;
  if constexpr (std::is_same_v<P, k_halo_taps_tile>) {
    const long long splits = splits_of(be, plans[0], pol);
    if (pol.k_splits <= 0 && splits > 1 && plans[0].k.count / splits < taps_tile_min_chunk)
      return why = "the taps tile's split-K chunks would be under " + std::to_string(taps_tile_min_chunk) + " k-tiles", false;
    pol.k_splits = static_cast<int>(splits);  // chosen once: launch_plans takes it as given
  }
  return launch_plans<E, P, true, true>(be, batch, vs, ep, pol, plans, why);
}
// columns: the GEMM's output channels (M before transposing); 256x64 only where they fit one tile (more
// were not measured faster than the untransposed boxes: section 24).
template <class E, class Batch, class V>
bool run_k_halo(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol, index_t columns, std::string& why) {
  if (sm90_schedule().k_halo_taps && run_k_halo_on<E, k_halo_taps_tile>(be, batch, vs, ep, pol, why)) return true;
  using P = k_halo_tile<256, 64>;
  if (columns > P::BN) return why += "; 256x64 k-halo tiles: at most 64 output channels", false;
  return run_k_halo_on<E, P>(be, batch, vs, ep, pol, why);
}

template <class E, class P, bool T = false, class Batch, class V>
bool run_tile(gpu_backend& be, const Batch& batch, const std::vector<V>& vs, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  class_plan plans[max_classes];
  int orient;
  if (!plan_batch<P, T, halo_kind::none>(vs, plans, orient, why)) return false;
  if constexpr (sizeof(E) == 4 && P::landing_slots > 0) {  // tf32 with both operands MN-major: transposed in shared memory
    if (orient != 3) return why = "the MN-major tf32 tile takes both operands MN-major", false;
    return launch_plans<E, P, false, false>(be, batch, vs, ep, pol, plans, why);  // the stages the consumers read are K-major
  } else if constexpr (sizeof(E) == 4) {  // tf32: K-major operands only
    if (orient > 0) return why = "tf32 tiles read K-major operands only", false;
    return launch_plans<E, P, false, false>(be, batch, vs, ep, pol, plans, why);
  } else if constexpr (T) {  // instantiated for backward weight's orientation only (run below)
    if (orient != 3) return why = "no transposed tile for this orientation", false;
    return launch_plans<E, P, true, true>(be, batch, vs, ep, pol, plans, why);
  } else if constexpr (P::BN < 128) {  // instantiated where A is K-major only (plan.hpp)
    if (orient == 3) return why = "no 64-column tile for this orientation", false;
    if (orient == 0) return launch_plans<E, P, false, false>(be, batch, vs, ep, pol, plans, why);
  } else {
    if (orient == 3) return launch_plans<E, P, true, true>(be, batch, vs, ep, pol, plans, why);
    if (orient == 0) return launch_plans<E, P, false, false>(be, batch, vs, ep, pol, plans, why);
  }
  if constexpr (sizeof(E) == 2) return launch_plans<E, P, false, true>(be, batch, vs, ep, pol, plans, why);  // also a batch that reads nothing
}

// Runs the batch on the TMA pipeline, or says why not.
template <class Batch>
bool run(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  using V = decltype(batch.views(0));
  using E = gpu_gemm::elem_t<decltype(V::a)>;
  constexpr bool b16 = std::is_same_v<E, half_t> || std::is_same_v<E, bf16_t>, f32 = std::is_same_v<E, float>;
  if constexpr (!(b16 || f32) || !std::is_same_v<E, gpu_gemm::elem_t<decltype(V::b)>> || !std::is_same_v<E, gpu_gemm::elem_t<decltype(V::c)>>) {
    why = "element type: the TMA pipeline takes fp16, bf16 and fp32 (as tf32)";
    return false;
  } else {
    if (f32 && !sm90_schedule().tf32) return why = "fp32 on tf32 TMA tiles is off (TG_TMA_TF32=0)", false;
    if (ep.op != epilogue_op::store) return why = "an accumulating epilogue", false;
    if (batch.count() > max_classes) return why = "more than " + std::to_string(max_classes) + " GEMMs in the batch", false;
    const std::vector<V> vs = views_of(batch);  // built once: col2im views cost microseconds each
    index_t max_m = 0, max_n = 0;
    for (const V& v : vs) {
      max_m = v.m() > max_m ? v.m() : max_m;
      max_n = v.n() > max_n ? v.n() : max_n;
    }
    if (max_m < min_rows || max_n < min_rows) return why = "a narrow GEMM (M or N under " + std::to_string(min_rows) + ")", false;
    // The orientation first (from the views' axes: it does not depend on the tile), then the tile from
    // the table, then one plan for that tile (run_tile).
    int orient = -1;
    for (std::size_t t = 0; t < vs.size() && orient < 0; ++t)
      if (vs[t].m() > 0 && vs[t].n() > 0 && vs[t].k() > 0) orient = orientation_of<boxes::row_elems(static_cast<int>(sizeof(E)))>(vs[t]);
    std::string why256;
    const schedule& sched = sm90_schedule();
    // A stride-1 convolution's single GEMM whose K-major A runs over filter taps: one halo per channel
    // block instead of a box per tap (halo_plan.hpp), 256-row tiles, unless split-K was asked for.
    if (sched.halo && !sched.force_tile && pol.k_splits <= 1 && vs.size() == 1 && (orient == 0 || orient == 1) && max_m >= 256) {
      if (max_n <= 64 ? run_halo<E, 64>(be, batch, vs, ep, pol, why256) : run_halo<E, 128>(be, batch, vs, ep, pol, why256)) return why = why256, true;
    }
    // Backward weight at stride 1 with at most 128 output channels (schedule): the taps of a tile share
    // one halo of x per k-tile (transposed: the taps tile, a 3x3 filter plane per tile, or 256x64). With
    // more, each 64-column tile brings its own halo and the untransposed 256x128 boxes are faster
    // (performance.md section 27: C256 14x14 108 against 100 us, C512 7x7 191 against 119).
    if constexpr (k_halo_views<Batch>() && b16) {
      if (sched.k_halo && !sched.force_tile && orient == 3 && vs.size() == 1 && max_m <= sched.k_halo_max_columns && run_k_halo<E>(be, batch, vs, ep, pol, max_m, why256))
        return why = why256, true;
    }
    // A single GEMM with both operands MN-major (backward weight) whose M fills at most a 64-column
    // tile while N fills 256-row ones: run as C^T = B^T A^T with 256x64 tiles instead of a half-empty
    // 128-row tile re-reading A for every one of N's tiles.
    if constexpr (b16) {
      if (sched.transpose_narrow && !sched.force_tile && orient == 3 && vs.size() == 1 && max_m <= 64 && max_n >= 256) {
        if (run_tile<E, tile<256, 64>, true>(be, batch, vs, ep, pol, why256)) return why = why256, true;
      }
    }
    // fp32 with both operands MN-major (backward weight channels-last: the channels contiguous on both
    // sides): the MN-major tf32 tiles, whose transposers make the stages K-major; transposed (C^T = B^T
    // A^T on 256x64) where M fills at most 64 columns and the transposed tiles are mostly real, as the
    // 16-bit tiles are, else 256x128 or 128x128 (TG_TMA_TILE=128x128 forces the latter). Only batches
    // that can be backward weight's GEMM instantiate them.
    if constexpr (f32 && k_halo_views<Batch>()) {
      if (sched.tf32_transpose && orient == 3) {
        const bool force128 = sched.force_tile && sched.tile == tile_kind::m128n128;
        if (!force128 && sched.transpose_narrow && max_m <= 64 && max_n >= 256 && run_tile<E, mn_tf32_tile<256, 64>, true>(be, batch, vs, ep, pol, why256))
          return why = why256, true;
        if (!force128 && max_m >= 256 && run_tile<E, mn_tf32_tile<256, 128>>(be, batch, vs, ep, pol, why256)) return why = why256, true;
        return run_tile<E, mn_tf32_tile<128, 128>>(be, batch, vs, ep, pol, why);
      }
    }
    switch (sched.force_tile ? sched.tile : choose_tile(max_m, max_n, orient >= 2)) {
      case tile_kind::m256n64:
        if (run_tile<E, elem_tile<E, 256, 64>>(be, batch, vs, ep, pol, why256)) return why = why256, true;
        [[fallthrough]];
      case tile_kind::m128n64:
        return run_tile<E, elem_tile<E, 128, 64>>(be, batch, vs, ep, pol, why);
      case tile_kind::m256n128:
        if (run_tile<E, elem_tile<E, 256, 128>>(be, batch, vs, ep, pol, why256)) return why = why256, true;
        [[fallthrough]];
      default:
        return run_tile<E, elem_tile<E, 128, 128>>(be, batch, vs, ep, pol, why);
    }
  }
}
}  // namespace tg::tma_gemm
