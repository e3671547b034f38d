// The cp.async GEMM's helper kernels: the k entries and k-tile summaries of every view, the views a
// batch's blocks copy, the deterministic split-K reduction (the TMA pipeline's too) and the fill of C
// before an atomic split-K.
#pragma once
#include "lowering/gpu/gemm_kernel.hpp"

namespace tg {
namespace gpu_gemm {
// The k entries of every view of the batch (they depend on k alone, not on the row or the group):
// made once per launch here instead of per block and k-tile, since they cost merge divisions. Slot kp
// holds reduction index order(kp) (k_order.hpp); a reordered walk has no runs along k.
template <int VA, class Batch, class EA, class EB>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) k_entries_kernel(Batch batch, EA* a, EB* b, index_t k_stride, k_order order) {
  const index_t total = batch.count() * k_stride;
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t t = l / k_stride, kp = l % k_stride;
    const auto v = batch.views(t);
    if (kp >= v.k()) continue;
    const index_t k = order(kp);
    const int runs = order.identity() ? 1 : 0;
    if constexpr (affine_split<decltype(v.a)>::on) {
      a[l] = affine_entry<VA>(v.a, 0, 2, k);
      a[l].run &= runs;
    }
    if constexpr (affine_split<decltype(v.b)>::on) {
      b[l] = affine_entry<VA>(v.b, 0, 2, k);
      b[l].run &= runs;
    }
  }
}

// Every view of the batch, built once per launch for the GEMM blocks to copy.
template <class Batch>
__global__ void TG_AMD_LAUNCH_BOUNDS(64, 2) views_kernel(Batch batch, void* views) {  // void*: a decltype in the signature defeats demanglers
  using V = decltype(batch.views(0));
  V* const out = static_cast<V*>(views);
  for (index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; t < batch.count(); t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    new (out + t) V(batch.views(t));  // member-wise: a memcpy from a local put it on the stack (AMD scratch)
  }
}

// The k-tile summaries (affine_split::k_tile) of every view's k entries, tiles of BK.
template <int BK, class Batch, class EA, class EB, class TA, class TB>
__global__ void TG_AMD_LAUNCH_BOUNDS(256) k_tiles_kernel(Batch batch, const EA* a, const EB* b, TA* ta, TB* tb, index_t k_stride) {
  using V = decltype(batch.views(0));
  const index_t per = k_stride / BK, total = batch.count() * per;
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t t = l / per, k0 = l % per * BK, K = batch.views(t).k();
    if (k0 >= K) continue;
    if constexpr (affine_split<decltype(V::a)>::on) ta[l] = affine_k_tile<BK, decltype(V::a)>(a + t * k_stride, k0, K);
    if constexpr (affine_split<decltype(V::b)>::on) tb[l] = affine_k_tile<BK, decltype(V::b)>(b + t * k_stride, k0, K);
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
}  // namespace gpu_gemm
}  // namespace tg
