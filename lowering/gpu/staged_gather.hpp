// The staged gather pipeline (sm_90): channels-last depthwise forward and backward data with each
// tile's window of A (x or dy, with its halo) brought into shared memory by the Tensor Memory
// Accelerator as one box, every input converted once per unit of taps it serves, and each output's
// taps summed in registers (staged_gather_plan.hpp says which GEMMs and how they tile). The depthwise
// pipeline (gemm_depthwise.hpp) keeps every other GPU and what this one refuses; it gathered each
// (output, tap) from global memory and converted each input once per tap (performance.md section 31).
//
// A block: a run of tiles of 64 channels (a lane's pair of them; a narrower last block puts several
// items on a warp), or of (tile, channel block) pairs where the last block is narrow (the plan's
// tap_sets); one thread issues a tile's box onto a stage's barrier, the plan's stages (2-4) tiles ahead.
// Warps take a tile's items in turn (a row, a residue of w, a group of J = 8 outputs:
// staged_gather_item); per unit of T taps (a class of a filter row) it converts
// the J + T - 1 inputs those outputs read (tap i of output j is tap 0 of output j + i) and adds J x T
// products to the J sums, the taps as floats from shared memory. An output is one thread's sum in
// unit and tap order, stored once: bit-identical run to run, no workspace.
#pragma once
#include <string>
#include <type_traits>
#include <vector>
#include "arch/convert.hpp"
#include "arch/nvidia_sm90.hpp"
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/gemm_launch.hpp"
#include "lowering/gpu/staged_gather_plan.hpp"
#include "lowering/gpu/tma_gemm/launch.hpp"
#include "lowering/gpu/tma_gemm/plan_cache.hpp"

namespace tg {
namespace gpu_gemm {
struct staged_gather_args {
  arch::tensor_map a_map;  // A's tensor (x or dy; C's own for a plan without products)
  staged_geometry geo;
  index_t groups;
  int tap_sets;            // channel blocks a block walks (their taps all in shared memory), or 1: blockIdx.x's only
  int last_lanes;          // lanes per item in the last channel block (32, or staged_gather_lanes of its channels)
  const void* b;           // the filter: group c's tap of unit u, i at b0 + c * b_group + tap_b[u * 8 + i]
  index_t b0, b_group;
  index_t tap_b[staged_max_units * gather_max_taps];
  void* c;                 // C: element base + sum of corner[a] * c_stride[a] + h * c_pitch_h + w * c_pitch_w + channel
  index_t c_base, c_stride[arch::tma_box::max_rank], c_pitch_h, c_pitch_w;
  gemm_epilogue ep;
};

// Shared memory: the stages | per tap set the taps [unit][T][64] as floats | each unit's first word, count | barriers | tile infos.
inline std::size_t staged_gather_smem(const staged_geometry& g, int tap_sets) {
  return static_cast<std::size_t>(g.stages) * g.stage_bytes + staged_gather_taps_bytes(g) * static_cast<std::size_t>(tap_sets) +
         128;  // + barriers and tile infos (4 x 24 bytes at most)
}

// J outputs of a row, slide_w apart from w, through every unit: per unit the J + T - 1 inputs, then
// J x T products (units' taps past their count are zero in shared memory and their inputs unread).
struct gather_row {
  int x_row;       // the row's first word in the stage (this lane's included)
  int step;        // words between one output's input and the next's (the slide)
  int x_pitch_w;   // words per unit of w
};
template <class E, int T, int J>
__device__ __forceinline__ void gather_outputs(const std::uint32_t* xs, const float* taps, const int* unit_word, const int* unit_count, int units,
                                               const gather_row& row, int w, int outputs, int lane, float (&acc)[J][2]) {
  TG_UNROLL for (int j = 0; j < J; ++j) acc[j][0] = acc[j][1] = 0.0f;
  for (int u = 0; u < units; ++u) {
    const std::uint32_t* const at = xs + row.x_row + unit_word[u] + w * row.x_pitch_w;
    const int real = outputs + unit_count[u] - 1;  // the inputs of the real outputs (a row's last group may hold fewer than J)
    float in[J + T - 1][2];
    constexpr int pixel = staged_channels / 2;  // words of one position of the box: the slide of a stride-1 row
    // Every input real, one or two pixels apart (stride 1, or a stride-2 forward; warp-uniform):
    // immediate offsets, no tests.
    auto whole = [&](auto step) { TG_UNROLL for (int e = 0; e < J + T - 1; ++e) arch::cvt_pair_to_operands<E>(at[e * step.value], in[e][0], in[e][1]); };
    if (real == J + T - 1 && row.step == pixel) {
      whole(std::integral_constant<int, pixel>{});
    } else if (real == J + T - 1 && row.step == 2 * pixel) {
      whole(std::integral_constant<int, 2 * pixel>{});
    } else {  // inputs past the real ones read the first again and count zero (selects, no divergent branches)
      TG_UNROLL for (int e = 0; e < J + T - 1; ++e) {
        arch::cvt_pair_to_operands<E>(at[(e < real ? e : 0) * row.step], in[e][0], in[e][1]);
        in[e][0] = e < real ? in[e][0] : 0.0f, in[e][1] = e < real ? in[e][1] : 0.0f;
      }
    }
    const float* const tu = taps + (u * T) * staged_channels + 2 * lane;
    TG_UNROLL for (int i = 0; i < T; ++i) {
      const float2 f = *reinterpret_cast<const float2*>(tu + i * staged_channels);
      TG_UNROLL for (int j = 0; j < J; ++j) {
        acc[j][0] += in[j + i][0] * f.x;
        acc[j][1] += in[j + i][1] * f.y;
      }
    }
  }
}

// Output j of J at w + j * slide_w through the epilogue: a lane's channel pair as one 4-byte word.
template <class E, int J>
__device__ __forceinline__ void gather_store(E* c, index_t at, int w_step, index_t c_pitch_w, int outputs, bool pair, bool one, gemm_epilogue ep,
                                             const float (&acc)[J][2]) {
  if (outputs == J && pair && ep.op == epilogue_op::store) {  // the common case (warp-uniform but for the last channels): no tests
    TG_UNROLL for (int j = 0; j < J; ++j) {
      const E lo = arch::cvt_from_float<E>(ep.alpha * acc[j][0]), hi = arch::cvt_from_float<E>(ep.alpha * acc[j][1]);
      *reinterpret_cast<std::uint32_t*>(c + at + static_cast<index_t>(j) * w_step * c_pitch_w) =
          static_cast<std::uint32_t>(lo.bits) | static_cast<std::uint32_t>(hi.bits) << 16;
    }
    return;
  }
  TG_UNROLL for (int j = 0; j < J; ++j) {
    E* const o = c + at + static_cast<index_t>(j) * w_step * c_pitch_w;
    if (j >= outputs) break;
    if (pair) {
      float old0 = 0.0f, old1 = 0.0f;
      if (ep.op == epilogue_op::accumulate) arch::cvt_pair_to_operands<E>(*reinterpret_cast<const std::uint32_t*>(o), old0, old1);
      const E lo = arch::cvt_from_float<E>(ep.apply(acc[j][0], old0)), hi = arch::cvt_from_float<E>(ep.apply(acc[j][1], old1));
      *reinterpret_cast<std::uint32_t*>(o) = static_cast<std::uint32_t>(lo.bits) | static_cast<std::uint32_t>(hi.bits) << 16;
    } else if (one) {
      o[0] = arch::cvt_from_float<E>(ep.apply(acc[j][0], ep.op == epilogue_op::accumulate ? arch::cvt_to_float(o[0]) : 0.0f));
    }
  }
}

template <class E, int T>
__global__ void __launch_bounds__(32 * staged_max_warps, 1) staged_gather_kernel(const __grid_constant__ staged_gather_args a) {
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  extern __shared__ __align__(1024) unsigned char smem[];
  const staged_geometry& g = a.geo;
  const int stages = g.stages;
  const int sets = a.tap_sets, set_floats = g.units * T * staged_channels;
  float* const taps = reinterpret_cast<float*>(smem + static_cast<std::size_t>(stages) * g.stage_bytes);
  int* const unit_word = reinterpret_cast<int*>(taps + sets * set_floats);
  int* const unit_count = unit_word + g.units;
  auto* const full = reinterpret_cast<std::uint64_t*>(
      smem + (static_cast<std::size_t>(stages) * g.stage_bytes + staged_gather_taps_bytes(g) * static_cast<std::size_t>(sets) + 7) / 8 * 8);
  // Each stage's tile as the producer worked it out (its 64-bit divisions once per tile, not per warp).
  struct tile_info {
    index_t c_off;  // C's element of the tile's first output and channel
    int tw, th, block;  // block: the channel block
  };
  auto* const info = reinterpret_cast<tile_info*>(full + stages);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // The block's run of pieces: tiles of channel block blockIdx.x, or (tile, channel block) pairs, tile-major.
  const staged_gather_run run = staged_gather_run_of(g.tiles * sets, gridDim.y, blockIdx.y);
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) arch::mbarrier_init(&full[s], 1);
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  // The producer: tile t's box of A into stage s, and where its outputs go. The consumers read the
  // latter after the barrier at the end of the tile before (or the one after the taps for the first
  // stages), which this thread passes after writing it.
  auto issue = [&](index_t piece, int s) {
    index_t t, cb;
    staged_gather_piece(piece, sets, blockIdx.x, t, cb);
    const index_t c0 = cb * staged_channels;
    info[s].block = static_cast<int>(cb);
    index_t start[boxes::max_digits];
    staged_tile_start(g, t, start);
    int cx[arch::tma_box::max_rank], cy[arch::tma_box::max_rank];
    staged_corner(g, true, start, c0, cx);
    staged_corner(g, false, start, c0, cy);
    index_t c_off = a.c_base;
    TG_UNROLL for (int x = 0; x < arch::tma_box::max_rank; ++x) if (x < g.y_rank) c_off += static_cast<index_t>(cy[x]) * a.c_stride[x];
    info[s].c_off = c_off;
    staged_tile_extents(g, t, info[s].tw, info[s].th);
    arch::mbarrier_arrive_expect_tx(&full[s], static_cast<std::uint32_t>(g.x_elems * sizeof(E)));
    arch::tma_load(smem + static_cast<std::size_t>(s) * g.stage_bytes, &a.a_map, &full[s], g.x_rank, cx[0], cx[1], cx[2], cx[3], cx[4]);
  };
  if (threadIdx.x == 0)
    for (int s = 0; s < stages && run.first + s < run.end; ++s) issue(run.first + s, s);
  // The block's taps, each set's (zero past a unit's count and past the channels) while the first boxes land.
  const E* const b = static_cast<const E*>(a.b);
  for (int i = threadIdx.x; i < sets * set_floats; i += blockDim.x) {
    const int set = i / set_floats, ch = i % staged_channels, slot = i % set_floats / staged_channels, u = slot / T, k = slot % T;
    const index_t c = (sets == 1 ? index_t{blockIdx.x} : set) * staged_channels + ch;
    taps[i] = k < g.unit[u].count && c < a.groups ? arch::cvt_to_float(b[a.b0 + c * a.b_group + a.tap_b[u * gather_max_taps + k]]) : 0.0f;
  }
  for (int u = threadIdx.x; u < g.units; u += blockDim.x)
    unit_word[u] = (g.unit[u].x_off + g.unit[u].first * g.x_tap) / 2, unit_count[u] = g.unit[u].count;
  __syncthreads();
  constexpr int J = staged_gather_outputs;
  gather_row row{0, g.slide_w * g.x_pitch_w / 2, g.x_pitch_w / 2};
  E* const c = static_cast<E*>(a.c);
  // The ring's stage and phase counted on, not two 64-bit divisions by the plan's stages per tile in
  // every thread (performance.md section 32).
  int s = 0;
  std::uint32_t phase = 0;
  for (index_t piece = run.first; piece < run.end; ++piece) {
    arch::mbarrier_wait(&full[s], phase);
    const int tw = info[s].tw, th = info[s].th, cb = info[s].block;
    // A block of fewer than 64 real channels: each warp takes 32 / L items at once, L lanes each (their
    // pixels share banks, so their loads take as many wavefronts as one item's did on 32 lanes, but the
    // block issues 32 / L times fewer instructions).
    const index_t c0 = index_t{cb} * staged_channels;
    const int lanes = c0 + staged_channels < a.groups ? 32 : a.last_lanes, cl = lane & (lanes - 1);
    const int vwarp = warp * (32 / lanes) + lane / lanes, vwarps = static_cast<int>(blockDim.x / 32) * (32 / lanes);
    const index_t ch = c0 + 2 * cl;
    const bool pair = ch + 1 < a.groups, one = ch < a.groups;
    const float* const set_taps = taps + (sets == 1 ? 0 : cb * set_floats);  // the block's taps: its set
    const index_t c_tile = info[s].c_off + 2 * cl;
    const auto* const xs = reinterpret_cast<const std::uint32_t*>(smem + static_cast<std::size_t>(s) * g.stage_bytes) + cl;
    const int items = staged_gather_items(g, tw, th);
    // Items in turn, staged_gather_item's order: rows counted on instead of divided out per item.
    const int groups = ((tw + g.slide_w - 1) / g.slide_w + J - 1) / J, per_row = g.slide_w * groups;
    int hh = vwarp / per_row, r = vwarp % per_row;
    for (int it = vwarp; it < items; it += vwarps, r += vwarps) {
      while (r >= per_row) r -= per_row, ++hh;
      const int res = g.slide_w == 1 ? 0 : r / groups, w = res + (r - res * groups) * J * g.slide_w;
      if (w >= tw) continue;
      const int left = g.slide_w == 1 ? tw - w : (tw - w + g.slide_w - 1) / g.slide_w, outputs = left < J ? left : J;
      row.x_row = hh * (g.x_pitch_h / 2);
      float acc[J][2];
      gather_outputs<E, T, J>(xs, set_taps, unit_word, unit_count, g.units, row, w, outputs, cl, acc);
      gather_store<E, J>(c, c_tile + hh * a.c_pitch_h + w * a.c_pitch_w, g.slide_w, a.c_pitch_w, outputs, pair, one, a.ep, acc);
    }
    __syncthreads();  // every warp is done with stage s: its next tile may land there
    if (threadIdx.x == 0 && piece + stages < run.end) issue(piece + stages, s);
    if (++s == stages) s = 0, phase ^= 1u;
  }
#elif defined(__CUDA_ARCH__)
  arch::trap();  // a device pass without TMA (not sm_90a): never launched (staged_gather_kernel_here checks the image)
#endif
}

// The kernel for a unit of T taps where this device runs its sm_90a image, else null.
template <class E, int T>
auto staged_gather_if_here() -> void (*)(staged_gather_args) {
  constexpr int most = arch::nvidia_sm90::lds_bytes_per_block;
  return tma_gemm::image_runs_here<&staged_gather_kernel<E, T>, most>() ? &staged_gather_kernel<E, T> : nullptr;
}
template <class E>
auto staged_gather_kernel_here(int T) -> void (*)(staged_gather_args) {
  return T == 3 ? staged_gather_if_here<E, 3>() : T == 4 ? staged_gather_if_here<E, 4>() : T == 7 ? staged_gather_if_here<E, 7>() : staged_gather_if_here<E, 8>();
}

// The plan of a view's shape, made once per shape (plan_cache.hpp's shape_cache, as the TMA GEMM's).
template <class V>
staged_gather_plan staged_gather_plan_cached(const V& v, int elem_bytes, staged_limits lim) {
  static tma_gemm::shape_cache<staged_gather_plan> cache;
  std::vector<long long> key = tma_gemm::plan_key(std::vector<V>{v});
  key.insert(key.end(), {lim.blocks, lim.tight, lim.segments, lim.stages, lim.pairs});
  return cache.get(std::move(key), [&] { return staged_gather_plan_chosen(v, elem_bytes, lim); });
}

// Runs the batch (one GEMM per stride class of dx, or one) through the staged gather where every GEMM
// of it plans; else false and why, before anything is launched.
template <class Batch>
bool launch_staged_gather(gpu_backend& be, const Batch& batch, gemm_epilogue ep, std::string& why) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::c)>;
  constexpr bool b16 = std::is_same_v<E, half_t> || std::is_same_v<E, bf16_t>;
  constexpr bool views_ok = affine_split<decltype(V::a)>::on && affine_split<decltype(V::b)>::on && affine_split<decltype(V::c)>::on;
  if constexpr (!views_ok || !b16 || !std::is_same_v<E, elem_t<decltype(V::a)>> || !std::is_same_v<E, elem_t<decltype(V::b)>>) {
    why = "not 16-bit GEMMs of affine-split views";
    return false;
  } else {
    const tma_gemm::schedule& sch = tma_gemm::sm90_schedule();
    if (!sch.staged_gather) return why = "TG_STAGED_GATHER=0", false;
    if (batch.count() > 27) return why = "more than 27 stride classes", false;
    if (batch.views(0).n() != 1) return why = "more than one column per group", false;  // before any plan: every dense GEMM asks
    staged_limits lim{sch.staged_gather_blocks, sch.staged_tight, sch.staged_segments};
    lim.stages = sch.staged_gather_stages;
    lim.pairs = sch.staged_gather_pairs;
    std::vector<V> vs;
    std::vector<staged_gather_plan> plans;
    for (index_t t = 0; t < batch.count(); ++t) {
      vs.push_back(batch.views(t));
      plans.push_back(staged_gather_plan_cached(vs.back(), static_cast<int>(sizeof(E)), lim));
      const staged_gather_plan& p = plans.back();
      if (!p.ok) return why = p.why, false;
      if (p.empty) continue;
      if (staged_gather_kernel_here<E>(p.tiles.geo.taps) == nullptr) return why = "not an sm_90a GPU and build", false;
      if (staged_gather_smem(p.tiles.geo, p.tap_sets) > std::size_t{arch::nvidia_sm90::lds_bytes_per_block}) return why = "shared memory", false;
      const void* const a_data = p.zero ? static_cast<const void*>(vs.back().c.data) : static_cast<const void*>(vs.back().a.data);
      if (const char* no = tma_gemm::tma_refusal(p.tiles.x, a_data, sizeof(E), arch::tma_layout::plain)) return why = std::string("A's TMA box: ") + no, false;
      if (reinterpret_cast<std::uintptr_t>(vs.back().c.data) % 4 != 0) return why = "C not 4-byte aligned", false;
    }
    // Lanes per item of the last channel block (every GEMM of the batch has the same groups).
    const index_t G = vs[0].groups(), tail = G % staged_channels;
    const int last_lanes = sch.staged_gather_narrow && tail != 0 ? staged_gather_lanes(tail) : 32;
    const arch::tma_elem te = std::is_same_v<E, half_t> ? arch::tma_elem::f16 : arch::tma_elem::bf16;
    index_t launched = 0, tiles = 0;
    int threads = 0;
    for (std::size_t t = 0; t < vs.size(); ++t) {
      const staged_gather_plan& p = plans[t];
      if (p.empty) continue;
      const V& v = vs[t];
      const staged_geometry& g = p.tiles.geo;
      const index_t channel_blocks = ceil_div(G, index_t{staged_channels});
      // A wave of the plan's blocks per multiprocessor per GEMM (a stride class's launch follows the last's on
      // the stream), the pieces (tiles of a channel block, or (tile, channel block) pairs) split evenly among them.
      const index_t columns = p.tap_sets > 1 ? 1 : channel_blocks, work = g.tiles * p.tap_sets;
      const index_t want = be.processors() * p.blocks / columns > 1 ? be.processors() * p.blocks / columns : 1;
      const index_t runs = want < work ? want : work;
      staged_gather_args a{};
      a.a_map = arch::encode_tma(p.tiles.x, p.zero ? static_cast<const void*>(v.c.data) : static_cast<const void*>(v.a.data), te, 256, arch::tma_layout::plain);
      a.geo = g;
      a.groups = G;
      a.tap_sets = p.tap_sets;
      a.last_lanes = last_lanes;
      a.b = v.b.data, a.b0 = p.b0, a.b_group = p.b_group;
      for (int i = 0; i < staged_max_units * gather_max_taps; ++i) a.tap_b[i] = p.tap_b[i];
      a.c = v.c.data, a.c_base = p.tiles.y.base;
      for (int x = 0; x < arch::tma_box::max_rank; ++x) a.c_stride[x] = x < p.tiles.y.rank ? p.tiles.y.stride[x] : 0;
      a.c_pitch_h = p.c_pitch_h, a.c_pitch_w = p.c_pitch_w;
      a.ep = ep;
      const dim3 grid(static_cast<unsigned>(columns), static_cast<unsigned>(runs));
      threads = 32 * g.warps();
      auto* const kernel = staged_gather_kernel_here<E>(g.taps);
      TG_LAUNCH(kernel, grid, threads, staged_gather_smem(g, p.tap_sets), be.stream, a);
      ++launched, tiles += g.tiles;
    }
    const staged_geometry& g0 = plans[0].tiles.geo;
    const std::string narrow = (last_lanes == 32 ? "" : " (the last " + std::to_string(tail) + " as " + std::to_string(32 / last_lanes) + " items per warp)") +
                             (plans[0].tap_sets > 1 ? ", blocks walking (tile, channel block) pairs" : "");
    why = "staged gather: " + std::to_string(launched) + (launched == 1 ? " launch, " : " launches (stride classes), ") + std::to_string(tiles) +
          " tiles of " + std::to_string(g0.ext[g0.k_digits - 1]) + (g0.k_digits > 1 ? "x" + std::to_string(g0.ext[g0.k_digits - 2]) : "") + " outputs x 64 channels" + narrow + ", " +
          std::to_string(g0.units) + " units of " + std::to_string(g0.taps) + " taps, " + std::to_string(g0.stages) + " stages, " + std::to_string(threads) + " threads, " +
          std::to_string(plans[0].blocks) + " per SM";
    return true;
  }
}
}  // namespace gpu_gemm
}  // namespace tg
