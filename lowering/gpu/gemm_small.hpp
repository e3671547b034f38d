// GEMMs with few rows per group (launched for M = 1, depthwise backward weight: M = K/G; the kernel
// takes up to MR rows) on the ordinary cores: a matrix-core tile of 32 rows would compute mostly
// padding there (1 row of 32). C[g, m, n] = sum_k A[g, m, k] * B[g, n, k] over affine-split views; a thread holds
// the MR x NR products of one group, an NR-column tile and every (8th or 256th) k of its chunk.
//
// Lanes run along whichever of the group and k steps through B's memory by the smaller stride (the
// larger operand: NR loads per k against MR): channels-last depthwise puts the groups next to each
// other (lanes over g, warps over k), channels-first puts the k (output positions) next to each other
// (lanes over k). Each block writes its fixed-order partial sums of one split-K chunk to a workspace
// that splitk_reduce_kernel adds in chunk order, so the result is reproducible (split_k_mode::atomic
// is served the same way).
#pragma once
#include "arch/convert.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/split_view.hpp"

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

// A value of the view at (row entry, k entry), zero in padding.
template <class View, class Entry>
__device__ inline float load_at(const View& v, const Entry& r, const Entry& k) {
  const index_t o = affine_offset(v, r, k);
  return o >= 0 ? arch::cvt_to_float(v.data[o]) : 0.0f;
}

template <int MR, int NR, class Views>
__global__ void TG_AMD_LAUNCH_BOUNDS(small_threads) gemm_small_kernel(Views v, small_args sa) {
  using EA = typename affine_split<decltype(v.a)>::entry;
  using EB = typename affine_split<decltype(v.b)>::entry;
  constexpr int VA = 16 / sizeof(std::remove_const_t<typename decltype(v.a)::value_type>);
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
    EA a_rows[MR];
    EB b_rows[NR];
    TG_UNROLL for (int m = 0; m < MR; ++m) a_rows[m] = affine_entry<VA>(v.a, g, 1, m < M ? m : 0);
    TG_UNROLL for (int j = 0; j < NR; ++j) b_rows[j] = affine_entry<VA>(v.b, g, 1, n0 + j < N ? n0 + j : 0);
    for (index_t k = k0 + first; k < k1; k += step) {
      const EA ka = a_ks[k];
      const EB kb = b_ks[k];
      float a[MR];
      TG_UNROLL for (int m = 0; m < MR; ++m) a[m] = m < M ? load_at(v.a, a_rows[m], ka) : 0.0f;
      TG_UNROLL for (int j = 0; j < NR; ++j) {
        const float b = n0 + j < N ? load_at(v.b, b_rows[j], kb) : 0.0f;
        TG_UNROLL for (int m = 0; m < MR; ++m) acc[m][j] += a[m] * b;
      }
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
