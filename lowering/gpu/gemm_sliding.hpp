// The sliding-window pipeline: single GEMMs of one row per group, C[g, 0, n] = sum_k A[g, 0, k] *
// B[g, n, k], with the groups one element apart in A and B and a long reduction (channels-last
// depthwise backward weight: A is dy, B the im2col of x, n the filter taps, k every output position).
// A thread owns one 16-byte word of groups and a tile of up to 4 columns (sliding_choice.hpp) and walks
// a contiguous range of k. Where the tile's columns are consecutive taps of a filter row, the window
// slides: at k + 1 (the next output position) column j is what column j + 1 was at k, so a step loads
// one word of x and one of dy for 4 x 8 products, the other columns stay in registers as floats (a
// ring whose rotation is the unrolled step's index, so nothing moves). Along an output row the k
// entries move by the k step, so they are stepped by adds (sliding_entries_kernel marks where rows
// start); a step that starts a row reads its entries and loads the whole window. Loads run
// arch::sliding_steps_in_flight steps ahead of the products. Sums: the threads of a block's k chunk in
// order (shared memory), then the chunks in order (sliding_sum_kernel): bit-identical run to run.
// Measured and its limits: performance.md section 22.
#pragma once
#include <string>
#include "lowering/gpu/gemm_launch.hpp"
#include "lowering/gpu/gemm_small.hpp"
#include "lowering/gpu/sliding_choice.hpp"

namespace tg {
namespace gpu_gemm {
template <class EA, class EB>
struct sliding_args {
  const EA* a_ks;               // the k entries of A and B (sliding_entries_kernel)
  const EB* b_ks;
  const unsigned* moved;        // bit k % 32 of word k / 32: k's entries are k - 1's moved by the k step
  EA a_step;                    // the k step: entry of k = 1 minus that of k = 0
  EB b_step;
  float* workspace;             // [splits][G][N]
  index_t words, pairs, chunk;  // words of groups, (word, tile) pairs, k per block
  int pairs_per_block, subs;
  sliding_tile tiles[sliding_max_tiles];  // the column tiles
};

// The k entries of A and B (relative to the origin, as affine_entry) and which of them are the entry
// before moved by the k step: within an output row each is, at a row's start not. The kernel then
// steps its entries along a row with adds (no load, no wait), and reads them where a row starts.
template <class Views, class EA, class EB>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) sliding_entries_kernel(Views v, EA* a, EB* b, unsigned* moved, index_t K, EA a_step, EB b_step) {
  __shared__ EA sa[257];
  __shared__ EB sb[257];
  __shared__ unsigned char bit[256];
  const int tid = threadIdx.x;
  const index_t k0 = blockIdx.x * index_t{256};
  for (int i = tid; i < 257; i += 256) {  // entry k0 - 1 + i
    const index_t k = k0 - 1 + i;
    if (k < 0 || k >= K) continue;
    sa[i] = affine_entry<1>(v.a, 0, 2, k);
    sb[i] = affine_entry<1>(v.b, 0, 2, k);
  }
  __syncthreads();
  const index_t k = k0 + tid;
  bit[tid] = k > 0 && k < K && moved_by<EA, affine_split<decltype(v.a)>::n_guards>(sa[tid], sa[tid + 1], a_step) &&
             moved_by<EB, affine_split<decltype(v.b)>::n_guards>(sb[tid], sb[tid + 1], b_step);
  if (k < K) a[k] = sa[tid + 1], b[k] = sb[tid + 1];
  __syncthreads();
  if (tid < 8 && k0 + tid * 32 < K) {
    unsigned w = 0;
    for (int i = 0; i < 32; ++i) w |= static_cast<unsigned>(bit[tid * 32 + i]) << i;
    moved[k0 / 32 + tid] = w;
  }
}

// Steps whose loads are in flight while one is multiplied: a choice per target (arch/codegen.hpp).
constexpr int sliding_depth = arch::sliding_steps_in_flight;

// Three blocks of 128 threads per multiprocessor on NVIDIA (168 registers: the accumulators and the
// window are 64 of them with 16-bit types; two blocks of 256 spilled 100-500 bytes), two waves per SIMD on AMD.
template <class Views, int D>
__global__ void TG_VENDOR_LAUNCH_BOUNDS((sliding_max_threads, 2), (sliding_max_threads, 3)) gemm_sliding_kernel(Views v, sliding_args<typename affine_split<decltype(Views::a)>::entry, typename affine_split<decltype(Views::b)>::entry> sa) {
  using A = decltype(v.a);
  using B = decltype(v.b);
  using EA = typename affine_split<A>::entry;
  using EB = typename affine_split<B>::entry;
  constexpr int NGA = affine_split<A>::n_guards;
  constexpr int GV = 16 / sizeof(elem_t<B>), NW = sliding_columns, NG = affine_split<B>::n_guards;
  static_assert(NW % D == 0, "the steps in flight cycle with the window");
  __shared__ float partial[sliding_max_threads][NW * GV];
  const index_t G = v.groups(), N = v.n(), K = v.k();
  const int tid = threadIdx.x, pl = tid % sa.pairs_per_block, sub = tid / sa.pairs_per_block;
  const index_t pair = blockIdx.x * static_cast<index_t>(sa.pairs_per_block) + pl;
  const bool active = sub < sa.subs && pair < sa.pairs;
  const index_t g = pair % sa.words * GV;
  // This thread's k range: its share of the block's chunk.
  const index_t kb0 = blockIdx.y * sa.chunk, kb1 = kb0 + sa.chunk < K ? kb0 + sa.chunk : K;
  const index_t per = (kb1 - kb0 + sa.subs - 1) / sa.subs;
  const index_t k0 = kb0 + sub * per, k1 = k0 + per < kb1 ? k0 + per : kb1;
  const sliding_tile tile = sa.tiles[active ? pair / sa.words : 0];
  // The block's bits of sa.moved, read per step from shared memory: a register refilled from global
  // memory every 32 steps waited, through a scoreboard it shared with the data loads, for those.
  __shared__ unsigned moved_bits[sliding_max_chunk / 32 + 2];
  const index_t w0 = kb0 >> 5;
  for (index_t w = w0 + tid; w < (kb1 + 31) >> 5; w += blockDim.x) moved_bits[w - w0] = sa.moved[w];
  __syncthreads();
  float acc[NW][GV] = {};
  if (active && k0 < k1) {
    using E = elem_t<B>;
    static_assert(std::is_same_v<E, elem_t<A>>, "one element type");
    const small_rows<1, A, GV> ra(v.a, g, 0, 1, G);
    int cols[NW];
    TG_UNROLL for (int j = 0; j < NW; ++j) cols[j] = tile.n[j];
    using rows_b = small_rows<NW, B, GV>;
    const rows_b rb(v.b, g, cols, NW - tile.count, G);
    const bool slides = tile.slides != 0;
    // Whole 16-byte words where every group of the word is real and the rows' pointers are aligned
    // (then a step's words are aligned iff its dy and last-column addresses are: column offsets and k
    // offsets are multiples of the word).
    const bool whole = ra.whole_words() && rb.whole_words();
    // A step's state: the k part of B's guards and the addresses of its dy word and of its last
    // column's x word. Along an output row they move by the k step (sa.moved; tile columns that slide
    // are that step apart: sliding_tiles), with adds; where a row starts they come from its entries.
    EA ka{};
    EB kb{};
    const E *pa = nullptr, *pb = nullptr;
    // The parameters the steps read, as locals: a lambda that captured `sa` took its address, and AMD
    // then copied the whole parameter block (1.4 KiB) to scratch.
    const EA* const a_ks = sa.a_ks;
    const EB* const b_ks = sa.b_ks;
    const EA a_step = sa.a_step;
    const EB b_step = sa.b_step;
    const int n = static_cast<int>(k1 - k0), at0 = static_cast<int>(k0 - (w0 << 5));  // k0's bit in moved_bits
    // In flight: the next D steps' dy words and last columns' x words, and whether each slid (then its
    // other columns are the window's; else they are loaded when it runs).
    gpu_fast::word16 a_raw[D], b_raw[D];
    bool slid[D] = {};
    auto issue = [&](int t, int at) {  // step t (k = k0 + t) into slot at = t % D (a constant where unrolled)
      const bool step = t > 0 && ((moved_bits[(at0 + t) >> 5] >> ((at0 + t) & 31)) & 1u);
      if (step) {
        pa += a_step.off;
        pb += b_step.off;
        TG_UNROLL for (int i = 0; i < NGA; ++i) ka.guard[i] += a_step.guard[i];
        TG_UNROLL for (int i = 0; i < NG; ++i) kb.guard[i] += b_step.guard[i];
      } else {
        ka = a_ks[k0 + t];
        kb = b_ks[k0 + t];
        pa = ra.ptr[0] + ka.off;
        pb = rb.ptr[NW - 1] + kb.off;
      }
      slid[at] = slides && step;
      const bool aligned = whole && ((reinterpret_cast<std::uintptr_t>(pa) | reinterpret_cast<std::uintptr_t>(pb)) & 15u) == 0;
      // Both validity tests before either load (one scoreboard wait, not one per load).
      const bool a_ok = ra.valid(0, ka), b_ok = rb.valid(NW - 1, kb);
      a_raw[at] = ra.group_word(pa, a_ok, aligned);
      b_raw[at] = rb.group_word(pb, b_ok, aligned);
    };
    float ring[NW][GV];  // column j of step u (mod NW) in ring[(j + u) % NW]: the window slides, nothing moves
    TG_UNROLL for (int d = 0; d < D; ++d) if (d < n) issue(d, d);
    for (int t = 0; t < n; t += NW) {
      TG_UNROLL for (int u = 0; u < NW; ++u) {
        if (t + u >= n) break;
        const int at = u % D;  // (t + u) % D: t is a multiple of NW, NW of D
        // This step's words as floats (the columns the window does not hold read now, from the step's
        // entry: a new output row), then the loads of the step D on, then the products.
        float a[GV];
        rows_b::word_values(a_raw[at], a);
        if (!slid[at]) {
          const EB e = b_ks[k0 + t + u];
          const bool aligned = whole && (reinterpret_cast<std::uintptr_t>(rb.ptr[NW - 1] + e.off) & 15u) == 0;
          TG_UNROLL for (int j = 0; j < NW - 1; ++j) rows_b::word_values(rb.group_word(rb.ptr[j] + e.off, rb.valid(j, e), aligned), ring[(j + u) % NW]);
        }
        rows_b::word_values(b_raw[at], ring[(NW - 1 + u) % NW]);
        if (t + u + D < n) issue(t + u + D, at);
        TG_UNROLL for (int j = 0; j < NW; ++j) TG_UNROLL for (int q = 0; q < GV; ++q) acc[j][q] += a[q] * ring[(j + u) % NW][q];
      }
    }
  }
  // The block's threads of one pair add their ranges' sums in k order.
  TG_UNROLL for (int j = 0; j < NW; ++j) TG_UNROLL for (int q = 0; q < GV; ++q) partial[tid][j * GV + q] = acc[j][q];
  __syncthreads();
  if (active && sub == 0) {
    const int groups = G - g < GV ? static_cast<int>(G - g) : GV;
    float* const ws = sa.workspace + blockIdx.y * G * N;
    TG_UNROLL for (int j = 0; j < NW; ++j) {
      if (j < NW - tile.count) continue;  // right-aligned: not real
      for (int q = 0; q < groups; ++q) {  // rolled: shared memory only (clang 15 could not unroll it)
        float sum = 0.0f;
        for (int s = 0; s < sa.subs; ++s) sum += partial[s * sa.pairs_per_block + pl][j * GV + q];
        ws[(g + q) * N + tile.n[j]] = sum;
      }
    }
  }
}

// The k chunks' sums of each C element added in chunk order, then the epilogue: a block is 32
// elements x 8 lanes, lane l adding chunks l, l + 8, ... and lane 0 the 8 lanes' sums in order.
template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) sliding_sum_kernel(Batch batch, gemm_epilogue ep, const float* ws, index_t splits, array<int, 3> order) {
  __shared__ float lane_sum[8][33];
  const auto v = batch.views(0);
  const multi_index<3> len{{v.groups(), v.m(), v.n()}};
  const index_t total = len[0] * len[1] * len[2];
  const int e = threadIdx.x % 32, lane = threadIdx.x / 32;
  const index_t l = blockIdx.x * index_t{32} + e;
  multi_index<3> c{};
  index_t at = 0;
  if (l < total) {
    c = index_in_order(l, len, order);
    at = (c[0] * len[1] + c[1]) * len[2] + c[2];
  }
  float acc = 0.0f;
  if (l < total)
    for (index_t s = lane; s < splits; s += 8) acc += ws[s * total + at];
  lane_sum[lane][e] = acc;
  __syncthreads();
  if (lane == 0 && l < total) {
    float sum = 0.0f;
    TG_UNROLL for (int i = 0; i < 8; ++i) sum += lane_sum[i][e];
    v.c.store(c, ep.apply(sum, ep.op == epilogue_op::accumulate ? v.c.load(c) : 0.0f));
  }
}

// Runs the batch through the sliding pipeline where choose_sliding takes it; else false and why.
template <class Batch>
bool launch_sliding(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  if constexpr (!sliding_views_ok<Batch>()) {
    why = "not one GEMM of affine-split views";
    return false;
  } else {
    using V = decltype(batch.views(0));
    using EA = typename affine_split<decltype(V::a)>::entry;
    using EB = typename affine_split<decltype(V::b)>::entry;
    const V v = batch.views(0);
    const sliding_choice c = choose_sliding_for(v);
    if (!c.plan.ok) {
      why = c.plan.why;
      return false;
    }
    const index_t G = v.groups(), N = v.n(), K = v.k();
    // Blocks resident per multiprocessor at the plan's block size, asked once per size.
    static int resident_at[sliding_max_threads / 32 + 1] = {};
    int& resident = resident_at[c.plan.threads / 32];
    if (resident == 0) resident = arch::resident_blocks(&gemm_sliding_kernel<V, sliding_depth>, c.plan.threads, 0);
    const sliding_plan p = sliding_grid(c.plan, K, index_t{resident} * be.processors(), pol.k_splits);
    scratch_carve sc;
    const std::size_t at_ea = sc.add<EA>(K), at_eb = sc.add<EB>(K), at_m = sc.add<unsigned>(ceil_div(K, index_t{256}) * 8),
                      at_ws = sc.add<float>(p.splits * G * N);
    unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
    sliding_args<EA, EB> sa{reinterpret_cast<const EA*>(base + at_ea), reinterpret_cast<const EB*>(base + at_eb),
                            reinterpret_cast<const unsigned*>(base + at_m), k_step_entry(v.a), k_step_entry(v.b),
                            reinterpret_cast<float*>(base + at_ws), p.words, p.pairs, p.chunk, p.pairs_per_block, p.subs, {}};
    index_t sliding = 0;
    for (std::size_t t = 0; t < c.tiles.size(); ++t) sa.tiles[t] = c.tiles[t], sliding += c.tiles[t].slides;
    if (K > 0)
      TG_LAUNCH((sliding_entries_kernel<V, EA, EB>), static_cast<unsigned>(ceil_div(K, index_t{256})), 256, 0, be.stream, v,
                reinterpret_cast<EA*>(base + at_ea), reinterpret_cast<EB*>(base + at_eb), reinterpret_cast<unsigned*>(base + at_m), K, sa.a_step,
                sa.b_step);
    const dim3 grid(static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.splits));
    TG_LAUNCH((gemm_sliding_kernel<V, sliding_depth>), grid, p.threads, 0, be.stream, v, sa);
    TG_LAUNCH((sliding_sum_kernel<Batch>), static_cast<unsigned>(ceil_div(G * N, index_t{32})), 256, 0, be.stream, batch, ep, sa.workspace, p.splits,
              memory_order(v.c.desc));
    why = "sliding window: " + std::to_string(c.tiles.size()) + " tiles of taps (" + std::to_string(sliding) + " sliding) x " +
          std::to_string(p.words) + " words of groups, " + std::to_string(p.splits) + " k chunks";
    return true;
  }
}
}  // namespace gpu_gemm
}  // namespace tg
