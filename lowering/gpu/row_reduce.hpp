// GPU row reductions and elementwise passes. row_sums: one block per row, a fixed-order tree
// reduction in shared memory (bit-reproducible); the others: one thread per element in memory order.
#pragma once
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/split_view.hpp"
#include "lowering/row_reduce.hpp"

namespace tg {
namespace gpu_rows {
constexpr int block = 256;

// A [R, L] view walked along one row: the row's part of the separable top stage (split_view.hpp)
// is evaluated once per block, each element adds its L part.
template <class View>
struct row_walker {
  using S = split_view<View>;
  View v;
  typename S::parts row_part;
  __device__ row_walker(const View& view, index_t r) : v(view), row_part{} {
    if constexpr (S::on) row_part = top_part(v, {{r, 0}});
  }
  __device__ float load(index_t r, index_t l) const {
    if constexpr (S::on) {
      const auto lp = top_part(v, {{0, l}});
      return to_float(load_split(v, [&](int d, int j) -> index_t { return d == 0 ? row_part[j] : lp[j]; }));
    } else {
      return v.load(multi_index<2>{{r, l}});
    }
  }
  __device__ void store(index_t r, index_t l, float x) const {
    if constexpr (S::on) {
      const auto lp = top_part(v, {{0, l}});
      store_split(v, [&](int d, int j) -> index_t { return d == 0 ? row_part[j] : lp[j]; }, from_float<typename S::elem>(x));
    } else {
      v.store(multi_index<2>{{r, l}}, x);
    }
  }
};

template <class UView, class VView>
__global__ void __launch_bounds__(block) row_sums_kernel(UView u, VView v, float* dot, float* sum, const float* shift) {
  __shared__ float sd[block], ss[block];
  const index_t r = blockIdx.x, L = v.desc.length(1);
  const float sh = shift ? shift[r] : 0.0f;
  const row_walker<UView> uw(u, r);
  const row_walker<VView> vw(v, r);
  float d = 0.0f, s = 0.0f;
  for (index_t l = threadIdx.x; l < L; l += block) {
    const float vv = vw.load(r, l) - sh;
    d += (uw.load(r, l) - sh) * vv;
    s += vv;
  }
  sd[threadIdx.x] = d;
  ss[threadIdx.x] = s;
  __syncthreads();
  for (int w = block / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) { sd[threadIdx.x] += sd[threadIdx.x + w]; ss[threadIdx.x] += ss[threadIdx.x + w]; }
    __syncthreads();
  }
  if (threadIdx.x == 0) { dot[r] = sd[0]; sum[r] = ss[0]; }
}

template <class F>
__global__ void for_each_kernel(index_t n, F f) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<index_t>(gridDim.x) * blockDim.x) f(i);
}

// Channels-last rows are strided: walk the elements in memory order instead, one per thread.
template <class OutView, class UView, class VView>
__global__ void row_affine_ordered_kernel(OutView out, UView u, VView v, row_coefficients k, array<int, 2> order) {
  const multi_index<2> len{{out.desc.length(0), out.desc.length(1)}};
  const index_t total = len[0] * len[1];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto i = index_in_order(l, len, order);
    out.store(i, k.a[i[0]] * u.load(i) + k.b[i[0]] * v.load(i) + k.c[i[0]]);
  }
}

// One block per row, like row_sums: the row's coefficients and index parts are set up once.
template <class OutView, class UView, class VView>
__global__ void __launch_bounds__(block) row_affine_kernel(OutView out, UView u, VView v, row_coefficients k) {
  const index_t r = blockIdx.x, L = out.desc.length(1);
  const row_walker<OutView> ow(out, r);
  const row_walker<UView> uw(u, r);
  const row_walker<VView> vw(v, r);
  const float a = k.a[r], b = k.b[r], c = k.c[r];
  for (index_t l = threadIdx.x; l < L; l += block) ow.store(r, l, a * uw.load(r, l) + b * vw.load(r, l) + c);
}
}  // namespace gpu_rows

template <class UView, class VView>
void row_sums(gpu_backend& be, const UView& u, const VView& v, float* dot, float* sum, const float* shift = nullptr) {
  TG_LAUNCH((gpu_rows::row_sums_kernel<UView, VView>), static_cast<unsigned>(v.desc.length(0)), gpu_rows::block, 0, be.stream, u, v, dot, sum,
            shift);
}

template <class F>
void for_each(gpu_backend& be, index_t n, const F& f) {
  TG_LAUNCH((gpu_rows::for_each_kernel<F>), grid_for(n, 256), 256, 0, be.stream, n, f);
}

template <class OutView, class UView, class VView>
void row_affine(gpu_backend& be, const OutView& out, const UView& u, const VView& v, row_coefficients k) {
  const auto order = memory_order(out.desc);
  if (order[1] == 1) {  // rows are contiguous: a block per row
    TG_LAUNCH((gpu_rows::row_affine_kernel<OutView, UView, VView>), static_cast<unsigned>(out.desc.length(0)), gpu_rows::block, 0,
              be.stream, out, u, v, k);
  } else {
    TG_LAUNCH((gpu_rows::row_affine_ordered_kernel<OutView, UView, VView>), grid_for(out.desc.size(), 256), 256, 0, be.stream, out, u, v, k,
              order);
  }
}
}  // namespace tg
