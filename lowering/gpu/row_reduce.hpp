// GPU row reductions and elementwise passes. row_sums: one block per row, a fixed-order tree
// reduction in shared memory (bit-reproducible); the others: one thread per element in memory order.
// Fast paths (chosen at run time, the generic kernels otherwise) for rows of plain strided
// [R1, R0, L] tensors (group_dims of (R1, R0) and L over strides, as groupnorm's [(N, C), HW]) of
// < 2^31 elements, with 32-bit offsets and 16-byte accesses of V elements:
//   contiguous rows (NCHW): a block per row reads it in vectors; row_affine a thread per vector;
//   interleaved rows (NHWC, R0 adjacent in memory): blocks own a slab of L for all R0 channels,
//     each thread a channel vector accumulated along L; the slabs' partial sums are added in a
//     fixed order by a second small kernel, so the result stays reproducible.
// row_affine walks its rows in the reverse order of row_sums, so that it starts on the data that
// row_sums read last (still in L2).
#pragma once
#include <cstdint>
#include "arch/convert.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/split_view.hpp"
#include "lowering/gpu/strided.hpp"
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

// The block's sums of two per-thread values, added in a fixed tree order (bit-reproducible);
// thread 0 writes them to *dot and *sum.
template <int Threads>
__device__ inline void block_sums(float d, float s, float* dot, float* sum) {
  __shared__ float sd[Threads], ss[Threads];
  sd[threadIdx.x] = d;
  ss[threadIdx.x] = s;
  __syncthreads();
  for (int w = Threads / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) { sd[threadIdx.x] += sd[threadIdx.x + w]; ss[threadIdx.x] += ss[threadIdx.x + w]; }
    __syncthreads();
  }
  if (threadIdx.x == 0) { *dot = sd[0]; *sum = ss[0]; }
}

template <class UView, class VView>
__global__ void __launch_bounds__(block) row_sums_kernel(UView u, VView v, float* dot, float* sum, const float* shift) {
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
  block_sums<block>(d, s, dot + r, sum + r);
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

// ---- fast paths ----
// A row view [(R1, R0), L] over a strided tensor: offset = r1 * s1 + r0 * s0 + l * sl.
struct rows3 {
  int R1, R0, L, s1, s0, sl;
  bool ok;
};
template <class View>
struct rows3_of {
  static constexpr bool on = false;
};
template <class T, int A, int B, int P, class EL, class EC, class EU>
struct rows3_of<tensor_view<T, descriptor<adaptor<stage_of<bound<merge<tuple<index_t, index_t>>, seq<A, B>, seq<0>>,
                                                           bound<pass_through<index_t>, seq<P>, seq<1>>>,
                                                  stage_of<bound<embed<EL, EC>, seq<0>, EU>>>>>> {
  static constexpr bool on = true;
  template <class View>
  static rows3 read(const View& v) {
    const auto& ch = v.desc.chain;
    const auto& m = get<0>(get<0>(ch.stages).parts).t;
    const index_t R1 = as_index(tg::get<0>(m.lengths)), R0 = as_index(tg::get<1>(m.lengths)), L = v.desc.length(1);
    // The strides of the strided tensor under the merge (level 1 of the chain).
    const auto st = gpu_fast::strides_by_probe<3>([&](const multi_index<3>& i) { return ch.template bottom_from<1>(i)[0]; }, v.desc.element_space);
    return {static_cast<int>(R1), static_cast<int>(R0), static_cast<int>(L), st.s[A], st.s[B], st.s[P], st.ok && R1 * R0 * L < (index_t{1} << 31)};
  }
};
template <class View>
rows3 rows3_get(const View& v) {
  if constexpr (rows3_of<View>::on) return rows3_of<View>::read(v); else return rows3{0, 0, 0, 0, 0, 0, false};
}
inline bool same_rows(const rows3& a, const rows3& b) {
  return a.ok && b.ok && a.R1 == b.R1 && a.R0 == b.R0 && a.L == b.L && a.s1 == b.s1 && a.s0 == b.s0 && a.sl == b.sl;
}
// The two layouts the fast kernels take, with V-element vectors along the contiguous dimension.
inline bool contiguous_rows(const rows3& g, int V) { return g.ok && g.sl == 1 && g.L % V == 0 && g.s0 % V == 0 && g.s1 % V == 0; }
inline bool interleaved_rows(const rows3& g, int V) {
  return g.ok && g.s0 == 1 && g.R0 % V == 0 && g.R0 / V <= block && g.sl % V == 0 && g.s1 % V == 0;
}

constexpr int fast_block = 128;

template <class T>
__global__ void __launch_bounds__(fast_block) row_sums_contiguous_kernel(rows3 g, const T* u, const T* v, float* dot, float* sum,
                                                                        const float* shift) {
  constexpr int V = gpu_fast::vec_of<T>;
  const int r = blockIdx.x, r1 = r / g.R0, base = r1 * g.s1 + (r - r1 * g.R0) * g.s0;
  const float sh = shift ? shift[r] : 0.0f;
  float d = 0.0f, s = 0.0f;
  // U of the thread's vectors per step, all loads issued before the first is used (2 x 16 bytes in
  // flight per thread left the row sums latency-bound at about half the bandwidth); the same
  // summation order as one vector per step.
  constexpr int U = 4, step = fast_block * V;
  for (int q0 = threadIdx.x * V; q0 < g.L; q0 += U * step) {
    gpu_fast::pack<T, V> uu[U], vv[U];
    TG_UNROLL for (int j = 0; j < U; ++j) {
      if (q0 + j * step < g.L) {
        uu[j] = gpu_fast::load_pack<T, V>(u + base + q0 + j * step);
        vv[j] = gpu_fast::load_pack<T, V>(v + base + q0 + j * step);
      }
    }
    TG_UNROLL for (int j = 0; j < U; ++j) {
      if (q0 + j * step < g.L) {
        TG_UNROLL for (int k = 0; k < V; ++k) {
          const float y = arch::cvt_to_float(vv[j].v[k]) - sh;
          d += (arch::cvt_to_float(uu[j].v[k]) - sh) * y;
          s += y;
        }
      }
    }
  }
  block_sums<fast_block>(d, s, dot + r, sum + r);
}

// Interleaved rows, first stage: block (slab, r1); thread (ty, cv) owns channels cv*V.. and the
// positions l = l0 + ty, l0 + ty + TY, ... of the slab. Partials: part[(r1 * slabs + slab) * R0 + r0].
template <class T>
__global__ void __launch_bounds__(block) row_sums_interleaved_kernel(rows3 g, int slab_len, const T* u, const T* v, float* part_dot,
                                                                     float* part_sum, const float* shift) {
  constexpr int V = gpu_fast::vec_of<T>;
  __shared__ float sd[block * V], ss[block * V];
  const int CV = g.R0 / V, TY = block / CV, slab = blockIdx.x, r1 = blockIdx.y;
  const int ty = threadIdx.x / CV, cv = threadIdx.x - ty * CV;
  float d[V] = {}, s[V] = {}, sh[V] = {};
  if (ty < TY) {
    if (shift) TG_UNROLL for (int k = 0; k < V; ++k) sh[k] = shift[r1 * g.R0 + cv * V + k];
    const int l_end = min(g.L, (slab + 1) * slab_len);
    const T* pu = u + r1 * g.s1 + cv * V;
    const T* pv = v + r1 * g.s1 + cv * V;
    for (int l = slab * slab_len + ty; l < l_end; l += TY) {
      const auto uu = gpu_fast::load_pack<T, V>(pu + l * g.sl);
      const auto vv = gpu_fast::load_pack<T, V>(pv + l * g.sl);
      TG_UNROLL for (int k = 0; k < V; ++k) {
        const float y = arch::cvt_to_float(vv.v[k]) - sh[k];
        d[k] += (arch::cvt_to_float(uu.v[k]) - sh[k]) * y;
        s[k] += y;
      }
    }
    TG_UNROLL for (int k = 0; k < V; ++k) { sd[threadIdx.x * V + k] = d[k]; ss[threadIdx.x * V + k] = s[k]; }
  }
  __syncthreads();
  // Thread (0, cv) adds the TY rows of its channels in order.
  if (static_cast<int>(threadIdx.x) < CV) {
    const int out = (r1 * gridDim.x + slab) * g.R0 + cv * V;
    TG_UNROLL for (int k = 0; k < V; ++k) {
      float a = 0.0f, b = 0.0f;
      for (int y = 0; y < TY; ++y) { a += sd[(y * CV + cv) * V + k]; b += ss[(y * CV + cv) * V + k]; }
      part_dot[out + k] = a;
      part_sum[out + k] = b;
    }
  }
}

// Second stage: row r = (r1, r0) adds its slabs in order. (A template only so that the three
// instance files may each define it.)
template <class T>
__global__ void row_sums_finish_kernel(int R1, int R0, int slabs, const float* part_dot, const float* part_sum, float* dot, float* sum) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < R1 * R0; r += gridDim.x * blockDim.x) {
    const int r1 = r / R0, r0 = r - r1 * R0;
    float a = 0.0f, b = 0.0f;
    for (int k = 0; k < slabs; ++k) { a += part_dot[(r1 * slabs + k) * R0 + r0]; b += part_sum[(r1 * slabs + k) * R0 + r0]; }
    dot[r] = a;
    sum[r] = b;
  }
}

// out = a[r] * u + b[r] * v + c[r], a thread per vector of V elements, units visited last to first.
// Contiguous rows: a unit is (r, l vector); interleaved rows: (r1, l, r0 vector).
template <class T, bool Interleaved>
__global__ void row_affine_fast_kernel(rows3 g, T* out, const T* u, const T* v, row_coefficients k) {
  constexpr int V = gpu_fast::vec_of<T>;
  // Interleaved: V divides R0 (not necessarily L); contiguous: V divides L.
  const int units = Interleaved ? g.R1 * g.L * (g.R0 / V) : g.R1 * g.R0 * (g.L / V);
  const int stride = gridDim.x * blockDim.x;
  // Contiguous: two units per step, both loaded before either is stored (the stores may alias the
  // loads as far as the compiler knows, so it would not move the next step's loads above them).
  // Interleaved: one (its vector coefficients would take 96 registers in fp16 for two).
  constexpr int U = Interleaved ? 1 : 2;
  for (int i0 = blockIdx.x * blockDim.x + threadIdx.x; i0 < units; i0 += U * stride) {
    float a[U][V], b[U][V], c[U][V];
    int off[U];
    bool on[U];
    gpu_fast::pack<T, V> uu[U], vv[U];
    TG_UNROLL for (int j = 0; j < U; ++j) {
      on[j] = i0 + j * stride < units;
      const int unit = on[j] ? units - 1 - (i0 + j * stride) : 0;
      if constexpr (Interleaved) {
        const int CV = g.R0 / V, rest = unit / CV, cv = unit - rest * CV, r1 = rest / g.L, l = rest - r1 * g.L, r = r1 * g.R0 + cv * V;
        off[j] = r1 * g.s1 + l * g.sl + cv * V;
        if (on[j]) {
          const auto pa = gpu_fast::load_pack<float, V>(k.a + r), pb = gpu_fast::load_pack<float, V>(k.b + r),
                     pc = gpu_fast::load_pack<float, V>(k.c + r);
          TG_UNROLL for (int e = 0; e < V; ++e) { a[j][e] = pa.v[e]; b[j][e] = pb.v[e]; c[j][e] = pc.v[e]; }
        }
      } else {
        const int LV = g.L / V, r = unit / LV, q = unit - r * LV, r1 = r / g.R0;
        off[j] = r1 * g.s1 + (r - r1 * g.R0) * g.s0 + q * V;
        if (on[j]) {
          const float ka = k.a[r], kb = k.b[r], kc = k.c[r];
          TG_UNROLL for (int e = 0; e < V; ++e) { a[j][e] = ka; b[j][e] = kb; c[j][e] = kc; }
        }
      }
      if (on[j]) { uu[j] = gpu_fast::load_pack<T, V>(u + off[j]); vv[j] = gpu_fast::load_pack<T, V>(v + off[j]); }
    }
    TG_UNROLL for (int j = 0; j < U; ++j) {
      if (!on[j]) continue;
      gpu_fast::pack<T, V> o;
      TG_UNROLL for (int e = 0; e < V; ++e)
        o.v[e] = arch::cvt_from_float<T>(a[j][e] * arch::cvt_to_float(uu[j].v[e]) + b[j][e] * arch::cvt_to_float(vv[j].v[e]) + c[j][e]);
      gpu_fast::store_pack<T, V>(out + off[j], o);
    }
  }
}

template <class UView, class VView>
bool try_fast_row_sums(gpu_backend& be, const UView& u, const VView& v, float* dot, float* sum, const float* shift) {
  using T = std::remove_const_t<typename VView::value_type>;
  if constexpr (!rows3_of<UView>::on || !rows3_of<VView>::on || !std::is_same_v<std::remove_const_t<typename UView::value_type>, T>) {
    return false;
  } else {
    constexpr int V = gpu_fast::vec_of<T>;
    const rows3 g = rows3_get(u);
    if (!same_rows(g, rows3_get(v)) || !gpu_fast::aligned16(u.data) || !gpu_fast::aligned16(v.data) || g.R1 * g.R0 == 0 || g.L == 0) return false;
    if (contiguous_rows(g, V)) {
      TG_LAUNCH((row_sums_contiguous_kernel<T>), static_cast<unsigned>(g.R1 * g.R0), fast_block, 0, be.stream, g, u.data, v.data, dot, sum, shift);
      return true;
    }
    if (interleaved_rows(g, V)) {
      // Enough slabs for ~4 blocks per processor, each at least a few positions per thread.
      const int TY = block / (g.R0 / V), want = (4 * be.processors() + g.R1 - 1) / g.R1;
      const int max_slabs = (g.L + 4 * TY - 1) / (4 * TY), slabs = want < max_slabs ? want : max_slabs;
      const int slab_len = (g.L + slabs - 1) / slabs, used = (g.L + slab_len - 1) / slab_len;
      auto pd = be.template scratch<float>(static_cast<index_t>(g.R1) * used * g.R0), ps = be.template scratch<float>(static_cast<index_t>(g.R1) * used * g.R0);
      TG_LAUNCH((row_sums_interleaved_kernel<T>), dim3(static_cast<unsigned>(used), static_cast<unsigned>(g.R1)), block, 0, be.stream, g,
                slab_len, u.data, v.data, pd.data(), ps.data(), shift);
      TG_LAUNCH((row_sums_finish_kernel<T>), grid_for(static_cast<index_t>(g.R1) * g.R0, 256), 256, 0, be.stream, g.R1, g.R0, used, pd.data(),
                ps.data(), dot, sum);
      return true;
    }
    return false;
  }
}

template <class OutView, class UView, class VView>
bool try_fast_row_affine(gpu_backend& be, const OutView& out, const UView& u, const VView& v, row_coefficients k) {
  using T = std::remove_const_t<typename OutView::value_type>;
  if constexpr (!rows3_of<OutView>::on || !rows3_of<UView>::on || !rows3_of<VView>::on ||
                !std::is_same_v<std::remove_const_t<typename UView::value_type>, T> || !std::is_same_v<std::remove_const_t<typename VView::value_type>, T>) {
    return false;
  } else {
    constexpr int V = gpu_fast::vec_of<T>;
    const rows3 g = rows3_get(out);
    if (!same_rows(g, rows3_get(u)) || !same_rows(g, rows3_get(v)) || !gpu_fast::aligned16(out.data) || !gpu_fast::aligned16(u.data) ||
        !gpu_fast::aligned16(v.data))
      return false;
    const index_t units = static_cast<index_t>(g.R1) * g.R0 * g.L / V;
    const index_t cap = static_cast<index_t>(be.processors()) * 16, want = (units + 255) / 256;
    const unsigned grid = static_cast<unsigned>(want < cap ? (want > 0 ? want : 1) : cap);
    if (contiguous_rows(g, V)) {
      TG_LAUNCH((row_affine_fast_kernel<T, false>), grid, 256, 0, be.stream, g, out.data, u.data, v.data, k);
      return true;
    }
    // The coefficients are read as vectors too: 16-byte aligned at every multiple of V.
    if (interleaved_rows(g, V) && gpu_fast::aligned16(k.a) && gpu_fast::aligned16(k.b) && gpu_fast::aligned16(k.c)) {
      TG_LAUNCH((row_affine_fast_kernel<T, true>), grid, 256, 0, be.stream, g, out.data, u.data, v.data, k);
      return true;
    }
    return false;
  }
}
}  // namespace gpu_rows

template <class UView, class VView>
void row_sums(gpu_backend& be, const UView& u, const VView& v, float* dot, float* sum, const float* shift = nullptr) {
  if (gpu_rows::try_fast_row_sums(be, u, v, dot, sum, shift)) return;
  TG_LAUNCH((gpu_rows::row_sums_kernel<UView, VView>), static_cast<unsigned>(v.desc.length(0)), gpu_rows::block, 0, be.stream, u, v, dot, sum,
            shift);
}

template <class F>
void for_each(gpu_backend& be, index_t n, const F& f) {
  TG_LAUNCH((gpu_rows::for_each_kernel<F>), grid_for(n, 256), 256, 0, be.stream, n, f);
}

template <class OutView, class UView, class VView>
void row_affine(gpu_backend& be, const OutView& out, const UView& u, const VView& v, row_coefficients k) {
  if (gpu_rows::try_fast_row_affine(be, out, u, v, k)) return;
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
