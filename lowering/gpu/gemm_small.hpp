// GEMMs with few rows per group (grouped backward weight: M = K/G, 1 for depthwise, 8 for resnext) on
// the ordinary cores: a matrix-core tile of 32 rows would compute mostly padding there, and its
// shared-memory fill costs a k entry per 16-byte piece. C[g, m, n] = sum_k A[g, m, k] * B[g, n, k] over
// affine-split views; a thread holds the MR x NR products of one group (all its rows, an NR-column
// tile) over every (8th or 256th) k of its split-K chunk.
//
// Lanes run along whichever of the group and k steps through B's memory by the smaller stride (the
// larger operand: NR loads per k against MR): channels-last puts the groups next to each other (lanes
// over g, warps over k), channels-first puts the k (output positions) next to each other (lanes over
// k). A thread's rows that form a run of memory (16 bytes: channels-last resnext's 8 output channels
// of dy, 8 input channels of one tap of x) are read as one word, its other rows element by element.
// (Channels-last depthwise, one row per group with the groups one element apart, takes the sliding
// pipeline instead: gemm_sliding.hpp. small_rows' group words serve it and the depthwise pipeline.)
// The loop is software-pipelined (the next k's entries and values are read during this k's products):
// with one dependent pair of loads in flight it was latency-bound (performance.md sections 8, 11). Each block writes its fixed-order
// partial sums of one split-K chunk to a workspace that splitk_reduce_kernel adds in chunk order, so
// the result is reproducible (split_k_mode::atomic is served the same way).
#pragma once
#include "arch/convert.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/split_view.hpp"
#include "lowering/gpu/strided.hpp"

namespace tg {
namespace gpu_gemm {
constexpr int small_threads = 256, small_lanes = 32;  // lanes: threads that share a k (g-lanes mode)

struct small_args {
  bool g_lanes;             // lanes over groups (else over k)
  int splits;               // split-K chunks (grid z)
  index_t chunk;            // k per chunk
  const void *a_ks, *b_ks;  // the k entries of A and B (k_entries_kernel)
  float* workspace;         // [splits, G, M, N]
};

// R rows of one operand for one thread, ready for the k loop: a pointer per row (the data plus the
// row entry's offset) and the row's guards as boxes (affine_tile_guards with the row entry fixed), so
// an element (row r, k entry k) is at ptr[r] + k.off and valid iff (unsigned)(bias[r][i] + k.guard[i])
// < count[i] for every guard i. A row past the real ones (r0 + r >= rows) is marked by `real`. A run of
// V rows is read as one word where its first entry starts a memory run, its last row has the first's
// guards (one test covers all V) and all V are real, at the k entries where its address is 16-byte
// aligned.
// With GV > 1 (GV = V), each row's value is the word of groups g .. g+GV-1 (groups past G read as zero).
template <int R, class View, int GV = 1>
struct small_rows {
  using E = std::remove_const_t<typename View::value_type>;
  using entry = typename affine_split<View>::entry;
  using guards = affine_tile_guards<View>;
  static constexpr int V = 16 / sizeof(E), runs = GV == 1 && R % V == 0 ? R / V : 0, ng = affine_split<View>::n_guards;
  static_assert(GV == 1 || GV == V, "a group word is one 16-byte word");
  const E* ptr[R];
  int bias[R][guards::n];
  unsigned count[guards::n];  // the same for every row
  bool real[R];
  bool word[runs > 0 ? runs : 1];
  int groups;  // GV > 1: the real groups of the word (fewer at the end of G)

  __device__ small_rows(const View& v, index_t g, index_t r0, index_t rows, index_t G = 1) {
    fill(v, g, G, [&](int r) { return r0 + r < rows ? r0 + r : index_t{-1}; });
  }
  // Rows picked by index: row r is rows[r] from r = first on, none before it (the sliding pipeline's
  // right-aligned columns).
  __device__ small_rows(const View& v, index_t g, const int (&rows)[R], int first, index_t G) {
    fill(v, g, G, [&](int r) { return r >= first ? index_t{rows[r]} : index_t{-1}; });
  }

 private:
  // Row r is row_of(r) of the view, or none (-1: not real).
  template <class RowOf>
  __device__ void fill(const View& v, index_t g, index_t G, RowOf row_of) {
    groups = static_cast<int>(G - g < GV ? G - g : GV);
    TG_UNROLL for (int q = 0; q < runs; ++q) word[q] = true;
    TG_UNROLL for (int r = 0; r < R; ++r) {
      const index_t at = row_of(r);
      real[r] = at >= 0;
      const entry e = affine_entry<V>(v, g, 1, real[r] ? at : 0);
      const guards box(v, e);
      ptr[r] = v.data + e.off;
      TG_UNROLL for (int i = 0; i < guards::n; ++i) {
        bias[r][i] = box.bias[i];
        count[i] = box.count[i];
      }
      if (runs > 0 && r % V == 0) word[r / V] = word[r / V] && e.run;
      if (runs > 0 && r % V == V - 1) {
        TG_UNROLL for (int i = 0; i < ng; ++i) word[r / V] = word[r / V] && bias[r][i] == bias[r - V + 1][i];
        word[r / V] = word[r / V] && real[r];
      }
    }
  }

 public:
  // From row entries already made for group 0 (the launch checked unit_groups: group g's entry is g
  // elements on, with the same guards), the first real_rows of them real; `base` holds the guards of a
  // zero entry. No walk of the view per row: the depthwise pipeline makes a tile's entries once for
  // all its threads.
  __device__ small_rows(const View& v, const entry* e, index_t g, int real_rows, int groups_, const guards& base) {
    static_assert(GV > 1, "group words only");
    groups = groups_;
    TG_UNROLL for (int r = 0; r < R; ++r) {
      real[r] = r < real_rows;
      ptr[r] = v.data + e[r].off + g;
      TG_UNROLL for (int i = 0; i < guards::n; ++i) {
        bias[r][i] = e[r].guard[i] + base.bias[i];
        count[i] = base.count[i];
      }
    }
  }

  __device__ bool valid(int r, const entry& k) const {
    bool ok = real[r];
    TG_UNROLL for (int i = 0; i < ng; ++i) ok = ok && static_cast<unsigned>(bias[r][i] + k.guard[i]) < count[i];
    return ok;
  }

  // The R raw values at k entry k (zero in padding and past the real rows), loads issued and not yet
  // waited for: `values` converts them. The kernel issues both operands' loads of the next k before the
  // products of this one, so a thread has them in flight; words stay whole until then. Consuming each
  // value right after its load (unpacking a word, converting a half) had ptxas wait for every load in
  // turn, performance.md section 11.
  struct raw_values {
    gpu_fast::word16 w[runs > 0 ? runs : GV > 1 ? R : 1];
    bool as_word[runs > 0 ? runs : 1];
    E x[R];
  };
  // GV > 1 (the launch checked unit_groups: group g + t lies t elements after group g, with its
  // guards): row r's group word at k, one load where aligned and every group is real, else element by
  // element under the same guards.
  __device__ raw_values issue_groups(const entry& k) const {
    raw_values p;
    TG_UNROLL for (int r = 0; r < R; ++r) p.w[r] = issue_group(r, k);
    return p;
  }
  // Row r's word of issue_groups.
  __device__ gpu_fast::word16 issue_group(int r, const entry& k) const {
    if (!valid(r, k)) return gpu_fast::word16{0u, 0u, 0u, 0u};
    const E* const at = ptr[r] + k.off;
    return group_word(at, true, groups == GV && (reinterpret_cast<std::uintptr_t>(at) & 15u) == 0);
  }
  // The word of groups at `at`: zero where not `valid` (nothing read), one load where `whole` (every
  // group real, 16-byte aligned), else element by element.
  __device__ gpu_fast::word16 group_word(const E* at, bool valid, bool whole) const {
    if (!valid) return gpu_fast::word16{0u, 0u, 0u, 0u};
    if (whole) return *reinterpret_cast<const gpu_fast::word16*>(at);
    gpu_fast::pack<E, V> e{};
    TG_UNROLL for (int t = 0; t < GV; ++t) if (t < groups) e.v[t] = at[t];  // unrolled: a run-time index would put e on the stack
    return __builtin_bit_cast(gpu_fast::word16, e);
  }
  // issue_groups where every word is whole and 16-byte aligned (all GV groups real, the caller checked
  // the addresses once): a guard test and one load per row, no per-load alignment branch.
  __device__ raw_values issue_whole_groups(const entry& k) const {
    raw_values p;
    TG_UNROLL for (int r = 0; r < R; ++r)
      p.w[r] = valid(r, k) ? *reinterpret_cast<const gpu_fast::word16*>(ptr[r] + k.off) : gpu_fast::word16{0u, 0u, 0u, 0u};
    return p;
  }
  // Whether every row's pointer is 16-byte aligned and all GV groups are real (issue_whole_groups).
  __device__ bool whole_words() const {
    bool ok = groups == GV;
    TG_UNROLL for (int r = 0; r < R; ++r) ok = ok && (reinterpret_cast<std::uintptr_t>(ptr[r]) & 15u) == 0;
    return ok;
  }
  // Row r's group word as GV floats (converted when used, so that one row's values are live at a time;
  // they are only multiplied: cvt_to_operand).
  __device__ static void group_values(const raw_values& p, int r, float (&out)[GV]) { word_values(p.w[r], out); }
  // A word of groups as GV floats, for products (cvt_to_operand).
  __device__ static void word_values(const gpu_fast::word16& w, float (&out)[GV]) {
    const auto e = __builtin_bit_cast(gpu_fast::pack<E, V>, w);
    TG_UNROLL for (int t = 0; t < GV; ++t) out[t] = arch::cvt_to_operand(e.v[t]);
  }
  __device__ raw_values issue(const entry& k) const {
    raw_values p;
    TG_UNROLL for (int r = 0; r < R; ++r) p.x[r] = from_float<E>(0.0f);
    TG_UNROLL for (int q = 0; q < (runs > 0 ? runs : R); ++q) {
      if (runs > 0) {
        p.w[q] = gpu_fast::word16{0u, 0u, 0u, 0u};
        p.as_word[q] = word[q] && (reinterpret_cast<std::uintptr_t>(ptr[q * V] + k.off) & 15u) == 0;
        if (p.as_word[q]) {
          if (valid(q * V, k)) p.w[q] = *reinterpret_cast<const gpu_fast::word16*>(ptr[q * V] + k.off);
          continue;
        }
      }
      constexpr int per = runs > 0 ? V : 1;
      TG_UNROLL for (int t = 0; t < per; ++t) {
        const int r = q * per + t;
        if (valid(r, k)) p.x[r] = ptr[r][k.off];
      }
    }
    return p;
  }
  __device__ static void values(const raw_values& p, float (&out)[R]) {
    TG_UNROLL for (int q = 0; q < (runs > 0 ? runs : R); ++q) {
      constexpr int per = runs > 0 ? V : 1;
      if (runs > 0 && p.as_word[q]) {
        const auto e = __builtin_bit_cast(gpu_fast::pack<E, V>, p.w[q]);
        TG_UNROLL for (int t = 0; t < V; ++t) out[q * V + t] = arch::cvt_to_float(e.v[t]);
      } else {
        TG_UNROLL for (int t = 0; t < per; ++t) out[q * per + t] = arch::cvt_to_float(p.x[q * per + t]);
      }
    }
  }
};

// NVIDIA: the one-row kernel held to two blocks per multiprocessor (128 registers; the two-deep
// pipeline took fp32 to 140, one block). AMD (one-row form only): two waves per SIMD.
template <int MR, int NR, class Views>
// AMD: two waves per SIMD (gfx908 fp32 3-d took 132 VGPRs); NVIDIA: two blocks of the one-row kernel.
__global__ void TG_VENDOR_LAUNCH_BOUNDS((small_threads, 2), (small_threads, MR == 1 ? 2 : 1)) gemm_small_kernel(Views v, small_args sa) {
  using EA = typename affine_split<decltype(v.a)>::entry;
  using EB = typename affine_split<decltype(v.b)>::entry;
  __shared__ float partial[small_threads][NR];
  const index_t G = v.groups(), M = v.m(), N = v.n(), K = v.k();
  const int tid = threadIdx.x, lane = tid % small_lanes, warp = tid / small_lanes;
  const index_t g = sa.g_lanes ? blockIdx.x * small_lanes + lane : blockIdx.x;
  const index_t n0 = blockIdx.y * NR;
  const int s = blockIdx.z;
  const bool active = g < G;
  const index_t k0 = s * sa.chunk, k1 = k0 + sa.chunk < K ? k0 + sa.chunk : K;
  const int first = sa.g_lanes ? warp : tid, step = sa.g_lanes ? small_threads / small_lanes : small_threads;
  const EA* a_ks = static_cast<const EA*>(sa.a_ks);
  const EB* b_ks = static_cast<const EB*>(sa.b_ks);

  float acc[MR][NR] = {};
  if (active) {
    const small_rows<MR, decltype(v.a)> ra(v.a, g, 0, M);
    const small_rows<NR, decltype(v.b)> rb(v.b, g, n0, N);
    // Software pipeline, two k deep: during the products of k, the values of k + step and k + 2 step
    // and the entries of k + 3 step are in flight (8 warps per multiprocessor at ~200 registers: one k
    // of loads in flight per thread left them waiting on L2, performance.md section 11).
    index_t k = k0 + first;
    EA ka{};
    EB kb{};
    auto entries = [&](index_t at) {
      if (at < k1) { ka = a_ks[at]; kb = b_ks[at]; }
    };
    auto issue_a = [&] { return ra.issue(ka); };
    auto issue_b = [&] { return rb.issue(kb); };
    entries(k);
    auto va0 = issue_a();
    auto vb0 = issue_b();
    entries(k + step);
    auto va1 = issue_a();
    auto vb1 = issue_b();
    entries(k + 2 * step);
    for (; k < k1; k += step) {
      float a[MR], b[NR];
      ra.values(va0, a);
      rb.values(vb0, b);
      va0 = va1;
      vb0 = vb1;
      if (k + 2 * step < k1) { va1 = issue_a(); vb1 = issue_b(); }
      entries(k + 3 * step);
      TG_UNROLL for (int j = 0; j < NR; ++j) TG_UNROLL for (int m = 0; m < MR; ++m) acc[m][j] += a[m] * b[j];
    }
  }
  // Threads of one group add their sums in thread order: g-lanes, the 8 warps' lanes `lane`;
  // k-lanes, all 256 threads. One row m at a time through shared memory.
  const int partners = sa.g_lanes ? small_threads / small_lanes : small_threads, slots = sa.g_lanes ? small_lanes * NR : NR;
  TG_UNROLL for (int m = 0; m < MR; ++m) {
    if (m >= M) break;  // uniform
    TG_UNROLL for (int j = 0; j < NR; ++j) partial[tid][j] = acc[m][j];
    __syncthreads();
    if (tid < slots) {
      const int q = sa.g_lanes ? tid / NR : 0, j = tid % NR;
      float sum = 0.0f;
      for (int p = 0; p < partners; ++p) sum += partial[sa.g_lanes ? p * small_lanes + q : p][j];
      const index_t gq = sa.g_lanes ? blockIdx.x * small_lanes + q : g;
      if (gq < G && n0 + j < N) sa.workspace[((s * G + gq) * M + m) * N + n0 + j] = sum;
    }
    __syncthreads();
  }
}
}  // namespace gpu_gemm
}  // namespace tg
