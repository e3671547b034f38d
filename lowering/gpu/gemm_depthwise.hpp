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
#include <cstdlib>
#include <cstring>
#include <string>
#include "lowering/gpu/depthwise_choice.hpp"
#include "lowering/gpu/gemm_launch.hpp"

namespace tg {
namespace gpu_gemm {
constexpr int depthwise_threads = 256;
// Rows per thread: 4, but 2 for views with three guards (3-d), whose row entries spilled with 4 under
// two blocks per SM (ptxas: 64 bytes).
template <class Batch>
constexpr int depthwise_rows = affine_split<decltype(std::declval<Batch>().views(0).a)>::n_guards <= 2 ? 4 : 2;

struct depthwise_args {
  const void* a_ks;   // A's k entries, k_stride per GEMM of the batch (k_entries_kernel)
  index_t k_stride;
  index_t row_tiles;  // tiles of slots * depthwise_rows rows (slots = threads / lanes)
  int lanes;          // group words side by side per row
};

// Rows m0 .. m0 + R - 1 of C's word of groups g .. g + GV - 1 through the epilogue: one 16-byte store
// where all GV groups are real and the address is aligned, else element by element (the launch
// checked that C's groups are one element apart with shared guards: unit_groups).
template <int R, int GV, class CV>
__device__ void store_group_words(const CV& c, index_t g, index_t m0, index_t M, index_t G, const float (&acc)[R][GV], gemm_epilogue ep) {
  using E = elem_t<CV>;
  const auto col = affine_entry<1>(c, 0, 2, 0);
  const int groups = G - g < GV ? static_cast<int>(G - g) : GV;
  TG_UNROLL for (int r = 0; r < R; ++r) {
    if (m0 + r >= M) break;
    const auto row = affine_entry<1>(c, g, 1, m0 + r);
    if (!affine_valid(c, row, col)) continue;
    E* const at = c.data + row.off + col.off;
    const bool word = groups == GV && (reinterpret_cast<std::uintptr_t>(at) & 15u) == 0;
    gpu_fast::pack<E, GV> out{};
    if (ep.op == epilogue_op::accumulate) {
      if (word) out = gpu_fast::load_pack<E, GV>(at);
      else TG_UNROLL for (int q = 0; q < GV; ++q) if (q < groups) out.v[q] = at[q];
    }
    TG_UNROLL for (int q = 0; q < GV; ++q) out.v[q] = from_float<E>(ep.apply(acc[r][q], arch::cvt_to_float(out.v[q])));
    if (word) gpu_fast::store_pack<E, GV>(at, out);
    else TG_UNROLL for (int q = 0; q < GV; ++q) if (q < groups) at[q] = out.v[q];
  }
}

template <class Batch>
__global__ void TG_VENDOR_LAUNCH_BOUNDS((depthwise_threads), (depthwise_threads, 2)) gemm_depthwise_kernel(Batch batch, gemm_epilogue ep, depthwise_args da) {
  using V = decltype(batch.views(0));
  using A = decltype(V::a);
  using EA = typename affine_split<A>::entry;
  constexpr int GV = 16 / sizeof(elem_t<A>), R = depthwise_rows<Batch>;
  extern __shared__ __align__(16) unsigned char depthwise_smem[];
  // The GEMM's views in shared memory, built once per block: held in registers they took ~40 of the
  // thread's 128 (a col2im class's views hold its divisors), and the k loop spilled.
  __shared__ alignas(V) unsigned char view_bytes[sizeof(V)];
  if (threadIdx.x == 0) new (view_bytes) V(batch.views(blockIdx.z));
  __syncthreads();
  const V& v = *reinterpret_cast<const V*>(view_bytes);
  const index_t G = v.groups(), M = v.m(), K = v.k();
  const int tid = threadIdx.x, GB = da.lanes * GV;
  const index_t g0 = blockIdx.x * static_cast<index_t>(GB);
  // The block's staging: A's k entries, then the taps of its groups, [k][group] (zero past G).
  EA* const ks = reinterpret_cast<EA*>(depthwise_smem);
  float* const taps = reinterpret_cast<float*>(depthwise_smem + (K * sizeof(EA) + 15) / 16 * 16);
  for (index_t k = tid; k < K; k += depthwise_threads) ks[k] = static_cast<const EA*>(da.a_ks)[blockIdx.z * da.k_stride + k];
  for (index_t i = tid; i < K * GB; i += depthwise_threads) {
    const index_t g = g0 + i % GB;
    taps[i] = g < G ? v.b.load(multi_index<3>{{g, 0, i / GB}}) : 0.0f;
  }
  __syncthreads();
  const int lane = tid % da.lanes, slot = tid / da.lanes, slots = depthwise_threads / da.lanes;
  const index_t g = g0 + lane * GV;
  if (slot >= slots || g >= G) return;  // no barrier below
  const float* const my_taps = taps + lane * GV;
  // Whether every k entry keeps 16-byte words aligned (channels a multiple of the word: then each
  // thread's loads need no alignment test, issue_whole_groups).
  bool k_aligned = true;
  for (index_t k = 0; k < K; ++k) k_aligned = k_aligned && ks[k].off % GV == 0;
  for (index_t t = blockIdx.y; t < da.row_tiles; t += gridDim.y) {
    const index_t m0 = (t * slots + slot) * R;
    if (m0 >= M) break;  // rows only grow with t
    const small_rows<R, A, GV> rows(v.a, g, m0, M, G);
    float acc[R][GV] = {};
    // The R words of a k are in flight together; other warps hide their latency (16 warps per SM,
    // mostly L1 hits): a second k in flight cost 16 registers, which spilled under two blocks per SM.
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
    store_group_words<R, GV>(v.c, g, m0, M, G, acc, ep);
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
    using EB = typename affine_split<decltype(V::b)>::entry;  // made alongside A's (unused: B is read by view)
    if (const char* env = std::getenv("TG_GEMM_PIPELINE"); env && std::strcmp(env, "cp_async") == 0) return why = "TG_GEMM_PIPELINE=cp_async", false;
    const depthwise_facts f = depthwise_facts_of(batch);
    const depthwise_plan p = choose_depthwise(f);
    if (!p.ok) {
      why = p.why;
      return false;
    }
    depthwise_args da{nullptr, f.max_k, 0, p.lanes};
    const index_t slots = depthwise_threads / p.lanes, gx = ceil_div(f.groups, index_t{p.lanes} * f.group_word);
    da.row_tiles = ceil_div(f.max_m, slots * depthwise_rows<Batch>);
    // Persistent along the rows: about four waves of blocks (fewer where the rows run out), each block
    // staging its taps once.
    static const int resident = arch::resident_blocks(&gemm_depthwise_kernel<Batch>, depthwise_threads, p.smem);
    const index_t want = ceil_div(index_t{4} * resident * be.processors(), gx * batch.count());
    const index_t gy = da.row_tiles < want ? da.row_tiles : want;
    scratch_carve sc;
    const std::size_t at_ea = sc.add<EA>(batch.count() * f.max_k), at_eb = sc.add<EB>(batch.count() * f.max_k);
    unsigned char* const base = be.template scratch<unsigned char>(static_cast<index_t>(sc.bytes)).data();
    EA* const ea = reinterpret_cast<EA*>(base + at_ea);
    make_k_entries(be, batch, f.max_k, ea, reinterpret_cast<EB*>(base + at_eb));
    da.a_ks = ea;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy > 0 ? gy : 1), static_cast<unsigned>(batch.count()));
    TG_LAUNCH((gemm_depthwise_kernel<Batch>), grid, depthwise_threads, p.smem, be.stream, batch, ep, da);
    why = "depthwise gemm: " + std::to_string(p.lanes) + " words of groups x " + std::to_string(slots * depthwise_rows<Batch>) +
          " rows per block, taps in shared memory";
    return true;
  }
}
}  // namespace gpu_gemm
}  // namespace tg
