// The staged sliding pipeline (sm_90): channels-last depthwise backward weight with each tile's dy and
// x (with its halo) brought into shared memory by the Tensor Memory Accelerator, one box each, and the
// filter taps sliding over shared memory (staged_sliding_plan.hpp says which GEMMs and how they tile).
// The register-fed sliding pipeline (gemm_sliding.hpp) keeps every other GPU and what this one
// refuses; it was latency-bound (performance.md section 22: 12 warps per SM with two steps of loads
// in flight each), which whole boxes in flight are not.
//
// A block: 64 channels (a lane's pair of them) x a range of tiles; one thread issues a tile's two
// boxes onto a stage's barrier, `staged_stages` tiles ahead. Warps: a walker each (a chunk of taps, a
// unit, or for a 3x3 filter all three rows of it), times the residues of w that its slide needs, times
// slices of the tile's rows, times segments of w. Along a row a warp's taps slide: tap i + 1 at w is
// tap i at w + slide_w, so a step reads one dy pair and one x pair per unit for 2 x taps products
// each, the other taps' x kept as floats in a ring whose rotation is the unrolled step's index. The
// sums: each warp over its tiles in order, the slices of a walker in order, then the blocks of a
// channel block in order (sliding_sum_kernel): bit-identical run to run.
#pragma once
#include <string>
#include <vector>
#include "arch/convert.hpp"
#include "arch/nvidia_sm90.hpp"
#include "arch/tma_nvidia.hpp"
#include "lowering/gpu/gemm_sliding.hpp"
#include "lowering/gpu/staged_sliding_plan.hpp"
#include "lowering/gpu/tma_gemm/launch.hpp"
#include "lowering/gpu/tma_gemm/plan_cache.hpp"

namespace tg {
namespace gpu_gemm {
struct staged_args {
  arch::tensor_map x_map, y_map;  // B's tensor (x) and A's (dy)
  staged_geometry geo;
  index_t tiles_per_block;
  index_t groups, columns;  // G, N of the GEMM
  float* workspace;         // [blocks along y][G][N]
};

// A stage's smem bytes and its barrier follow the stages (the warps' sums reuse the stages at the end).
inline std::size_t staged_smem_bytes(const staged_geometry& g) {
  const std::size_t stages = static_cast<std::size_t>(staged_stages) * static_cast<std::size_t>(g.stage_bytes);
  const std::size_t sums = static_cast<std::size_t>(g.warps()) * 32 * static_cast<std::size_t>(g.group * g.taps) * 2 * sizeof(float);
  return (stages > sums ? stages : sums) + 64;
}

// One warp's walk along R rows of a tile at once (R independent chains of loads and products: the
// kernel is latency-bound with few warps, performance.md section 29), for O units at once (rows of
// taps at x offsets x_unit[o] apart; one dy pair serves them all): the window at w0 but its last tap
// first, then per step one dy pair per row and one x pair per row and unit, 2 x T products each, up to
// w1. Row r's words start at x_row[r] and y_row[r] (4-byte words, this lane's included).
struct staged_walk {
  int w0, w1, w_step, x_pitch_w, y_pitch_w, x_tap, last_tap, first, fake, spacing;
};
template <class E, int T, int O, int R>
__device__ __forceinline__ void staged_slide_rows(const std::uint32_t* xs, const std::uint32_t* ys, const int (&x_row)[R], const int (&y_row)[R],
                                                  const int (&x_unit)[O], const staged_walk& k, float (&acc)[R][O][T][2]) {
  float ring[R][O][T][2];
  TG_UNROLL for (int r = 0; r < R; ++r) TG_UNROLL for (int o = 0; o < O; ++o) TG_UNROLL for (int i = 0; i < T; ++i) {
    ring[r][o][i][0] = ring[r][o][i][1] = 0.0f;
    if (i >= k.fake && i < T - 1)
      arch::cvt_pair_to_operands<E>(xs[x_row[r] + x_unit[o] + k.w0 * k.x_pitch_w + (k.first + (i - k.fake) * k.spacing) * k.x_tap], ring[r][o][i][0],
                                    ring[r][o][i][1]);
  }
  // Step `step` of a group of T at ww (the ring's slot (T - 1 + step) % T takes the last tap's x).
  auto at = [&](int ww, int step) {
    float dy[R][2];
    TG_UNROLL for (int r = 0; r < R; ++r) {
      arch::cvt_pair_to_operands<E>(ys[y_row[r] + ww * k.y_pitch_w], dy[r][0], dy[r][1]);
      TG_UNROLL for (int o = 0; o < O; ++o) {
        float (&fresh)[2] = ring[r][o][(T - 1 + step) % T];
        arch::cvt_pair_to_operands<E>(xs[x_row[r] + x_unit[o] + ww * k.x_pitch_w + k.last_tap], fresh[0], fresh[1]);
      }
    }
    TG_UNROLL for (int r = 0; r < R; ++r) TG_UNROLL for (int o = 0; o < O; ++o) TG_UNROLL for (int i = 0; i < T; ++i) {
      acc[r][o][i][0] += dy[r][0] * ring[r][o][(i + step) % T][0];
      acc[r][o][i][1] += dy[r][1] * ring[r][o][(i + step) % T][1];
    }
  };
  int w = k.w0;
  for (; w + (T - 1) * k.w_step < k.w1; w += k.w_step * T)  // whole groups: no test per step
    TG_UNROLL for (int step = 0; step < T; ++step) at(w + step * k.w_step, step);
  TG_UNROLL for (int step = 0; step < T - 1; ++step) {  // the rest
    if (w + step * k.w_step >= k.w1) break;
    at(w + step * k.w_step, step);
  }
}

// O: units a warp walks at once (1, or 3 with T = 3); R: rows at once (1 or 2: the schedule's staged_rows).
template <class E, int T, int O, int R>
__global__ void __launch_bounds__(32 * staged_max_warps, 1) staged_sliding_kernel(const __grid_constant__ staged_args a) {
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  extern __shared__ __align__(1024) unsigned char smem[];
  const staged_geometry& g = a.geo;
  const std::size_t stage_area = static_cast<std::size_t>(staged_stages) * g.stage_bytes;
  const std::size_t sum_area = static_cast<std::size_t>(g.warps()) * 32 * O * T * 2 * sizeof(float);
  auto* const full = reinterpret_cast<std::uint64_t*>(smem + (stage_area > sum_area ? stage_area : sum_area));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const index_t c0 = blockIdx.x * index_t{staged_channels};
  const index_t t0 = blockIdx.y * a.tiles_per_block;
  const index_t t1 = t0 + a.tiles_per_block < g.tiles ? t0 + a.tiles_per_block : g.tiles;
  if (threadIdx.x == 0) {
    for (int s = 0; s < staged_stages; ++s) arch::mbarrier_init(&full[s], 1);
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  // The producer: tile t's boxes into stage s.
  auto issue = [&](index_t t, int s) {
    index_t start[boxes::max_digits];
    staged_tile_start(g, t, start);
    int cx[arch::tma_box::max_rank], cy[arch::tma_box::max_rank];
    staged_corner(g, true, start, c0, cx);
    staged_corner(g, false, start, c0, cy);
    unsigned char* const at = smem + static_cast<std::size_t>(s) * g.stage_bytes;
    arch::mbarrier_arrive_expect_tx(&full[s], static_cast<std::uint32_t>((g.x_elems + g.y_elems) * sizeof(E)));
    arch::tma_load(at, &a.x_map, &full[s], g.x_rank, cx[0], cx[1], cx[2], cx[3], cx[4]);
    arch::tma_load(at + g.y_at, &a.y_map, &full[s], g.y_rank, cy[0], cy[1], cy[2], cy[3], cy[4]);
  };
  if (threadIdx.x == 0)
    for (int s = 0; s < staged_stages && t0 + s < t1; ++s) issue(t0 + s, s);
  // This warp's walker (O units of taps), its segment of w, its residue of w and its slice of the rows.
  const int per_walker = g.slices();
  const int slice = warp % per_walker, walker = warp / per_walker;
  const int seg = slice / (g.slices_w * g.slices_h), w_res = slice / g.slices_h % g.slices_w, h_res = slice % g.slices_h;
  const staged_unit u = g.unit[walker * O];
  int x_unit[O];  // each unit's offset from the first's, in words
  TG_UNROLL for (int o = 0; o < O; ++o) x_unit[o] = (g.unit[walker * O + o].x_off - u.x_off) / 2;
  const int fake = T - u.count;  // the ring's first `fake` taps are not real: their sums are never stored
  // Offsets in 4-byte words (every pitch is a multiple of the 64 channels: halving is exact).
  staged_walk k{seg * g.seg_w + w_res, 0, g.slide_w, g.x_pitch_w / 2, g.y_pitch_w / 2, g.x_tap / 2, 0, u.first, fake, g.spacing};
  k.last_tap = (u.first + (u.count - 1) * g.spacing) * k.x_tap;
  float acc[R][O][T][2] = {};  // a sum per row in flight, added in order at the end
  for (index_t t = t0; t < t1; ++t) {
    const int s = static_cast<int>((t - t0) % staged_stages);
    arch::mbarrier_wait(&full[s], static_cast<std::uint32_t>(((t - t0) / staged_stages) & 1));
    int tw, th;
    staged_tile_extents(g, t, tw, th);
    // Pairs of channels: 4-byte words, lane `lane` of each row of 64 channels.
    const auto* const xs = reinterpret_cast<const std::uint32_t*>(smem + static_cast<std::size_t>(s) * g.stage_bytes) + lane;
    const auto* const ys = reinterpret_cast<const std::uint32_t*>(smem + static_cast<std::size_t>(s) * g.stage_bytes + g.y_at) + lane;
    const int seg_end = (seg + 1) * g.seg_w;
    k.w1 = tw < seg_end ? tw : seg_end;
    if (k.w0 < k.w1) {  // a short tile's last segments are empty
      int hh = h_res;
      for (; hh + (R - 1) * g.slices_h < th; hh += R * g.slices_h) {
        int x_row[R], y_row[R];
        TG_UNROLL for (int r = 0; r < R; ++r) x_row[r] = (u.x_off + (hh + r * g.slices_h) * g.x_pitch_h) / 2, y_row[r] = (hh + r * g.slices_h) * (g.y_pitch_h / 2);
        staged_slide_rows<E, T, O, R>(xs, ys, x_row, y_row, x_unit, k, acc);
      }
      if constexpr (R > 1) {  // a last row alone
        if (hh < th) {
          const int x_row[1] = {(u.x_off + hh * g.x_pitch_h) / 2}, y_row[1] = {hh * (g.y_pitch_h / 2)};
          staged_slide_rows<E, T, O, 1>(xs, ys, x_row, y_row, x_unit, k, reinterpret_cast<float (&)[1][O][T][2]>(acc[0]));
        }
      }
    }
    __syncthreads();  // every warp is done with stage s: its next tile may land there
    if (threadIdx.x == 0 && t + staged_stages < t1) issue(t + staged_stages, s);
  }
  // The slices of a walker in order (segment, w residue, row slice), into the workspace.
  float* const sums = reinterpret_cast<float*>(smem);
  __syncthreads();
  TG_UNROLL for (int o = 0; o < O; ++o) TG_UNROLL for (int i = 0; i < T; ++i) TG_UNROLL for (int q = 0; q < 2; ++q) {
    float sum = acc[0][o][i][q];
    TG_UNROLL for (int r = 1; r < R; ++r) sum += acc[r][o][i][q];
    sums[(((warp * 32 + lane) * O + o) * T + i) * 2 + q] = sum;
  }
  __syncthreads();
  if (slice != 0) return;
  float* const ws = a.workspace + blockIdx.y * a.groups * a.columns;
  for (int o = 0; o < O; ++o)
    for (int i = fake; i < T; ++i)
      for (int q = 0; q < 2; ++q) {
        const index_t c = c0 + 2 * lane + q;
        if (c >= a.groups) continue;
        float sum = 0.0f;
        for (int sl = 0; sl < per_walker; ++sl) sum += sums[((((warp + sl) * 32 + lane) * O + o) * T + i) * 2 + q];
        ws[c * a.columns + g.unit[walker * O + o].n0 + (i - fake) * g.spacing] = sum;
      }
#elif defined(__CUDA_ARCH__)
  arch::trap();  // a device pass without TMA (not sm_90a): never launched (staged_kernel_here checks the image)
#endif
}

// The kernel for (T, O, R) where this device runs its sm_90a image (a Hopper GPU and a build for 90a),
// with an sm_90 block's most shared memory; else null. The instances: T 3, 4, 7 or 8; O 3 only with
// T 3; R 2 not with T 7 (staged_rows_for).
template <class E, int T, int O, int R>
auto staged_kernel_if_here() -> void (*)(staged_args) {
  constexpr int most = arch::nvidia_sm90::lds_bytes_per_block;
  return tma_gemm::image_runs_here<&staged_sliding_kernel<E, T, O, R>, most>() ? &staged_sliding_kernel<E, T, O, R> : nullptr;
}
template <class E, int R>
auto staged_kernel_here_rows(int T, int O) -> void (*)(staged_args) {
  if (T == 3) return O == 3 ? staged_kernel_if_here<E, 3, 3, R>() : staged_kernel_if_here<E, 3, 1, R>();
  if (T == 7) {
    if constexpr (R == 1) return staged_kernel_if_here<E, 7, 1, 1>();
    return nullptr;
  }
  return T == 4 ? staged_kernel_if_here<E, 4, 1, R>() : staged_kernel_if_here<E, 8, 1, R>();
}
// Rows a warp walks at once: the schedule's, but one where a warp holds 7 or more taps (their ring
// and sums take the registers; H200, performance.md section 30: ConvNeXt's 7x7 rows 3-4% faster
// one at a time).
inline int staged_rows_for(const tma_gemm::schedule& sch, int T) { return sch.staged_rows == 2 && (T <= 4 || !sch.staged_tight) ? 2 : 1; }
template <class E>
auto staged_kernel_here(int T, int O, int R) -> void (*)(staged_args) {
  return R == 2 ? staged_kernel_here_rows<E, 2>(T, O) : staged_kernel_here_rows<E, 1>(T, O);
}

// The plan of a view's shape, made once (the views' digits and axes took about a microsecond of host
// time in every call): blocks per multiprocessor from the schedule, one where the filter needs more
// warps than a share of them or two would stage too much per product (`lim` says which). Keyed and
// kept as the TMA GEMM's plans are (plan_cache.hpp's shape_cache).
template <class V>
staged_plan staged_plan_cached(const V& v, int elem_bytes, staged_limits want, staged_limits& lim) {
  struct entry {
    staged_plan plan;
    staged_limits lim;
  };
  static tma_gemm::shape_cache<entry> cache;
  std::vector<long long> key = tma_gemm::plan_key(std::vector<V>{v});
  key.insert(key.end(), {want.blocks, want.tight, want.segments});
  const entry e = cache.get(std::move(key), [&] {
    entry made{staged_plan_of(v, elem_bytes, want), want};
    if (want.blocks > 1) {  // or one, where the plan for two refuses or stages too much per product
      staged_limits one = want;
      one.blocks = 1;
      staged_plan p1 = staged_plan_of(v, elem_bytes, one);
      if (staged_one_block_better(made.plan, p1)) made.plan = std::move(p1), made.lim = one;
    }
    return made;
  });
  lim = e.lim;
  return e.plan;
}

// Runs the batch through the staged sliding pipeline where it plans; else false and why.
template <class Batch>
bool launch_staged_sliding(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  using V = decltype(batch.views(0));
  using E = elem_t<decltype(V::b)>;
  constexpr bool b16 = std::is_same_v<E, half_t> || std::is_same_v<E, bf16_t>;
  if constexpr (!sliding_views_ok<Batch>() || !b16 || !std::is_same_v<E, elem_t<decltype(V::a)>>) {
    why = "not one 16-bit GEMM of affine-split views";
    return false;
  } else {
    const tma_gemm::schedule& sch = tma_gemm::sm90_schedule();
    if (!sch.staged_sliding) return why = "TG_STAGED_SLIDING=0", false;
    const V v = batch.views(0);
    staged_limits lim;
    const staged_plan p = staged_plan_cached(v, static_cast<int>(sizeof(E)), staged_limits{sch.staged_blocks, sch.staged_tight, sch.staged_segments}, lim);
    if (!p.ok) return why = p.why, false;
    const staged_geometry& g = p.geo;
    const int T = g.taps, R = staged_rows_for(sch, T);
    const std::size_t smem = staged_smem_bytes(g);
    auto* const kernel = staged_kernel_here<E>(T, g.group, R);
    if (kernel == nullptr) return why = "not an sm_90a GPU and build", false;
    if (smem > std::size_t{arch::nvidia_sm90::lds_bytes_per_block}) return why = "shared memory: " + std::to_string(smem) + " bytes", false;
    if (const char* no = tma_gemm::tma_refusal(p.x, v.b.data, sizeof(E), arch::tma_layout::plain)) return why = std::string("x's TMA box: ") + no, false;
    if (const char* no = tma_gemm::tma_refusal(p.y, v.a.data, sizeof(E), arch::tma_layout::plain)) return why = std::string("dy's TMA box: ") + no, false;
    const index_t G = v.groups(), N = v.n();
    const index_t channel_blocks = ceil_div(G, index_t{staged_channels});
    // lim.blocks per multiprocessor (the stages take their share of its shared memory), or the split
    // count asked for; the tiles split evenly.
    index_t want = be.processors() * lim.blocks / channel_blocks > 1 ? be.processors() * lim.blocks / channel_blocks : 1;
    if (pol.k_splits > 0) want = pol.k_splits;
    const index_t per = ceil_div(g.tiles, want < g.tiles ? want : g.tiles);
    const index_t splits = ceil_div(g.tiles, per);
    staged_args a{};
    const arch::tma_elem te = std::is_same_v<E, half_t> ? arch::tma_elem::f16 : arch::tma_elem::bf16;
    a.x_map = arch::encode_tma(p.x, v.b.data, te, 256, arch::tma_layout::plain);
    a.y_map = arch::encode_tma(p.y, v.a.data, te, 256, arch::tma_layout::plain);
    a.geo = g;
    a.tiles_per_block = per;
    a.groups = G, a.columns = N;
    a.workspace = be.template scratch<float>(splits * G * N).data();
    const dim3 grid(static_cast<unsigned>(channel_blocks), static_cast<unsigned>(splits));
    const int threads = 32 * g.warps();
    TG_LAUNCH(kernel, grid, threads, smem, be.stream, a);
    TG_LAUNCH((sliding_sum_kernel<Batch>), static_cast<unsigned>(ceil_div(G * N, index_t{32})), 256, 0, be.stream, batch, ep, a.workspace, splits,
              memory_order(v.c.desc));
    why = "staged sliding: " + std::to_string(channel_blocks) + " blocks of 64 channels x " + std::to_string(splits) + " ranges of " +
          std::to_string(per) + " tiles of " + std::to_string(g.ext[g.k_digits - 1]) + (g.k_digits > 1 ? "x" + std::to_string(g.ext[g.k_digits - 2]) : "") +
          " outputs, " + std::to_string(g.units) + " units of " + std::to_string(T) + " taps" + (g.group > 1 ? " walked " + std::to_string(g.group) + " at once" : "") +
          (g.segments > 1 ? ", rows in " + std::to_string(g.segments) + " segments" : "") + ", " + std::to_string(threads) + " threads, " + std::to_string(lim.blocks) + " per SM, " +
          std::to_string(R) + " rows per warp at once";
    return true;
  }
}
}  // namespace gpu_gemm
}  // namespace tg
