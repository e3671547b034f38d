// The depthwise pipeline: GEMM batches of one column per group, C[g, m] = sum_k A[g, m, k] * B[g, k],
// with a short reduction (the filter's taps), many rows and the groups one element apart in A and C
// (channels-last depthwise backward data and forward: the window of dy or x times the filter). On
// matrix cores such a GEMM uses 1/64 of each tile; here it is the pooling gather with weights on the
// ordinary cores. A thread owns one 16-byte word of consecutive groups at 4 (3-d: 2) consecutive
// rows; its block's taps (B, as floats) and A's k entries are staged in shared memory once, then the
// block walks row tiles (persistent along the rows), so the staging is paid once per block. A tap's
// words of neighbouring rows overlap in memory (the window slides), so most loads hit L1. Each
// element of C is one thread's sum in k order: bit-identical run to run, no split-K.
// depthwise_choice.hpp decides which batches take it.
#pragma once
#include <string>
#include "lowering/gpu/depthwise_choice.hpp"
#include "lowering/gpu/gemm_launch.hpp"

namespace tg {
namespace gpu_gemm {
struct depthwise_args {
  const void *a_ks, *b_ks;  // A's and B's k entries, k_stride per GEMM of the batch (k_entries_kernel)
  index_t k_stride;
  index_t row_tiles;  // tiles of tile_rows rows
  int lanes;          // group words side by side per row
};

// Rows r < real_rows of C's word of groups g .. g + GV - 1 through the epilogue, from the rows' entries
// e (group 0) and the column's guards `box`: one 16-byte store where all GV groups are real and the
// address is aligned, else element by element (C's groups are one element apart: unit_groups).
template <int R, int GV, class CV>
__device__ void store_group_words(const CV& c, const typename affine_split<CV>::entry* e, index_t g, int real_rows, int groups,
                                  index_t col_off, const affine_tile_guards<CV>& box, const float (&acc)[R][GV], gemm_epilogue ep) {
  using E = elem_t<CV>;
  TG_UNROLL for (int r = 0; r < R; ++r) {
    if (r >= real_rows || !box.holds(e[r])) continue;
    E* const at = c.data + e[r].off + col_off + g;
    const bool word = groups == GV && (reinterpret_cast<std::uintptr_t>(at) & 15u) == 0;
    gpu_fast::pack<E, GV> out{};
    if (ep.op == epilogue_op::accumulate) {
      if (word) out = gpu_fast::load_pack<E, GV>(at);
      else TG_UNROLL for (int q = 0; q < GV; ++q) if (q < groups) out.v[q] = at[q];
    }
    // The hardware conversion: from_float's bit twiddling was 35% of the instructions with a 3x3 filter.
    TG_UNROLL for (int q = 0; q < GV; ++q) out.v[q] = arch::cvt_from_float<E>(ep.apply(acc[r][q], arch::cvt_to_float(out.v[q])));
    if (word) gpu_fast::store_pack<E, GV>(at, out);
    else TG_UNROLL for (int q = 0; q < GV; ++q) if (q < groups) at[q] = out.v[q];
  }
}

// Two blocks per multiprocessor on NVIDIA (128 registers), two waves per SIMD on AMD (gfx908's 3-d
// kernel took 154 VGPRs, one wave, without the bound; with it 127 and 28 AGPRs, no scratch).
// Shared memory: A's k entries | the block's taps, [k][group] as floats | its groups' row entries of B |
// two tiles' row entries of A | of C.
template <class Batch>
__global__ void TG_VENDOR_LAUNCH_BOUNDS((depthwise_threads, 2), (depthwise_threads, 2)) gemm_depthwise_kernel(Batch batch, gemm_epilogue ep, depthwise_args da) {
  using V = decltype(batch.views(0));
  using A = decltype(V::a);
  using CV = decltype(V::c);
  using EA = typename affine_split<A>::entry;
  using EC = typename affine_split<CV>::entry;
  constexpr int GV = 16 / sizeof(elem_t<A>), R = depthwise_rows<A>;
  extern __shared__ __align__(16) unsigned char depthwise_smem[];
  // The GEMM's views in shared memory, built once per block: held in registers they took ~40 of the
  // thread's 128 (a col2im class's views hold its divisors), and the k loop spilled.
  __shared__ __align__(alignof(V)) unsigned char view_bytes[sizeof(V)];
  if (threadIdx.x == 0) new (view_bytes) V(batch.views(blockIdx.z));
  __syncthreads();
  const V& v = *reinterpret_cast<const V*>(view_bytes);
  const index_t G = v.groups(), M = v.m(), K = v.k();
  const int tid = threadIdx.x, GB = da.lanes * GV, slots = depthwise_slots(da.lanes), tile_rows = slots * R;
  const index_t g0 = blockIdx.x * static_cast<index_t>(GB);
  using EB = typename affine_split<decltype(V::b)>::entry;
  EA* const ks = reinterpret_cast<EA*>(depthwise_smem);
  float* const taps = reinterpret_cast<float*>(depthwise_smem + (K * sizeof(EA) + 15) / 16 * 16);
  EB* const b_rows = reinterpret_cast<EB*>(taps + K * GB);
  EA* const a_rows = reinterpret_cast<EA*>(b_rows + GB);  // two tiles' worth: [2][tile_rows]
  EC* const c_rows = reinterpret_cast<EC*>(a_rows + 2 * tile_rows);
  // A tile's row entries, made once for the block (each lane's thread made them again before: 8x the
  // divisions, most of the time with a 3x3 filter), double-buffered so that one barrier per tile
  // separates making tile t + 1's from reading tile t's.
  auto make_row_entries = [&](index_t t, int buf) {
    const index_t m_first = t * tile_rows;
    for (int i = tid; i < tile_rows; i += depthwise_threads) {
      const index_t m = m_first + i < M ? m_first + i : M - 1;
      a_rows[buf * tile_rows + i] = affine_entry<1>(v.a, 0, 1, m);  // group 0 (unit_groups: group g's is g elements on)
      c_rows[buf * tile_rows + i] = affine_entry<1>(v.c, 0, 1, m);
    }
  };
  auto tile_real = [&](index_t t) { return t < da.row_tiles && t * tile_rows < M; };  // uniform
  // The block's taps, [k][group] (zero past G), from B's k entries and its groups' row entries.
  for (index_t k = tid; k < K; k += depthwise_threads) ks[k] = static_cast<const EA*>(da.a_ks)[blockIdx.z * da.k_stride + k];
  for (int i = tid; i < GB; i += depthwise_threads) b_rows[i] = affine_entry<1>(v.b, g0 + i < G ? g0 + i : 0, 1, 0);
  if (tile_real(blockIdx.y)) make_row_entries(blockIdx.y, 0);
  __syncthreads();
  const EB* const b_ks = static_cast<const EB*>(da.b_ks) + blockIdx.z * da.k_stride;
  for (index_t i = tid; i < K * GB; i += depthwise_threads) {
    const index_t k = i / GB;
    const int j = static_cast<int>(i % GB);
    const EB bk = b_ks[k];
    taps[i] = g0 + j < G && affine_valid(v.b, b_rows[j], bk) ? arch::cvt_to_float(v.b.data[b_rows[j].off + bk.off]) : 0.0f;
  }
  const int lane = tid % da.lanes, slot = tid / da.lanes;
  const index_t g = g0 + lane * GV;
  const bool active = slot < slots && g < G;  // idle threads still make row entries and meet the barriers
  const int groups = G - g < GV ? static_cast<int>(G - g) : GV;
  using rows_t = small_rows<R, A, GV>;
  const typename rows_t::guards a_base(v.a, EA{});
  const EC col = affine_entry<1>(v.c, 0, 2, 0);  // C's one column, relative to the origin (the rows carry it)
  const affine_tile_guards<CV> c_box(v.c, col);
  __syncthreads();
  // Whether every k entry keeps 16-byte words aligned (channels a multiple of the word: then the
  // loads need no alignment test, issue_whole_groups).
  bool k_aligned = true;
  for (index_t k = 0; k < K; ++k) k_aligned = k_aligned && ks[k].off % GV == 0;
  const float* const my_taps = taps + lane * GV;
  int buf = 0;
  for (index_t t = blockIdx.y; tile_real(t); t += gridDim.y, buf ^= 1) {
    if (tile_real(t + gridDim.y)) make_row_entries(t + gridDim.y, buf ^ 1);
    const index_t left = M - t * tile_rows - slot * R;
    const int real_rows = left < R ? static_cast<int>(left) : R;
    if (active && real_rows > 0) {
      const rows_t rows(v.a, a_rows + buf * tile_rows + slot * R, g, real_rows, groups, a_base);
      float acc[R][GV] = {};
      // The R words of a k are in flight together; other warps hide their latency (the next k's words
      // in flight as well took 16 more registers: 16-bit types spilled under two blocks per SM).
      auto products = [&](auto issue) {
        for (index_t k = 0; k < K; ++k) {
          const auto words = issue(ks[k]);
          const auto b = gpu_fast::load_pack<float, GV>(my_taps + k * GB);  // 16-byte shared loads
          TG_UNROLL for (int r = 0; r < R; ++r) {
            float a[GV];
            rows.group_values(words, r, a);
            TG_UNROLL for (int q = 0; q < GV; ++q) acc[r][q] += a[q] * b.v[q];
          }
        }
      };
      if (k_aligned && rows.whole_words()) products([&](const EA& k) { return rows.issue_whole_groups(k); });
      else products([&](const EA& k) { return rows.issue_groups(k); });
      store_group_words<R, GV>(v.c, c_rows + buf * tile_rows + slot * R, g, real_rows, groups, col.off, c_box, acc, ep);
    }
    __syncthreads();  // tile t + 1's entries are made, tile t's read
  }
}

// Runs the batch through the depthwise pipeline where choose_depthwise takes it; else false and why.
template <class Batch>
bool launch_depthwise(gpu_backend& be, const Batch& batch, gemm_epilogue ep, std::string& why) {
  if constexpr (!depthwise_views_ok<Batch>()) {
    why = "views not affine-split";
    return false;
  } else {
    using V = decltype(batch.views(0));
    using EA = typename affine_split<decltype(V::a)>::entry;
    using EB = typename affine_split<decltype(V::b)>::entry;
    const depthwise_facts f = depthwise_facts_of(batch);
    const depthwise_plan p = choose_depthwise(f);
    if (!p.ok) {
      why = p.why;
      return false;
    }
    depthwise_args da{nullptr, nullptr, f.max_k, ceil_div(f.max_m, index_t{p.tile_rows}), p.lanes};
    const index_t gx = ceil_div(f.groups, index_t{p.lanes} * f.group_word);
    // One wave of blocks, each walking several row tiles, so that its staging (taps, k entries) is paid
    // once for them. How many fit depends on the plan's shared memory: asked once per KiB of it.
    static int resident_at[depthwise_smem_limit / 1024 + 1] = {};
    const std::size_t kib = (p.smem + 1023) / 1024;
    int& resident = resident_at[kib];
    if (resident == 0) resident = arch::resident_blocks(&gemm_depthwise_kernel<Batch>, depthwise_threads, kib * 1024);
    const index_t want = ceil_div(index_t{resident} * be.processors(), gx * batch.count());
    const index_t gy = da.row_tiles < want ? da.row_tiles : want;
    scratch_carve sc;
    const std::size_t at_ea = sc.add<EA>(batch.count() * f.max_k), at_eb = sc.add<EB>(batch.count() * f.max_k);
    unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
    EA* const ea = reinterpret_cast<EA*>(base + at_ea);
    make_k_entries(be, batch, f.max_k, ea, reinterpret_cast<EB*>(base + at_eb));
    da.a_ks = ea;
    da.b_ks = base + at_eb;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy > 0 ? gy : 1), static_cast<unsigned>(batch.count()));
    TG_LAUNCH((gemm_depthwise_kernel<Batch>), grid, depthwise_threads, p.smem, be.stream, batch, ep, da);
    why = "depthwise gemm: " + std::to_string(p.lanes) + " words of groups x " + std::to_string(p.tile_rows) +
          " rows per block, taps in shared memory";
    return true;
  }
}
}  // namespace gpu_gemm
}  // namespace tg
