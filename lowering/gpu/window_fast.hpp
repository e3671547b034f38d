// The windowed gather's fast paths on plain strided tensors (32-bit offsets, 16-byte accesses):
// their geometry and 32-bit routes, and the channels-last and channels-first (rows) gather kernels.
#pragma once
#include <cstdlib>
#include <cstring>
#include "lowering/gpu/window_gather.hpp"

namespace tg {
namespace gpu_window {
// A fast path's switch for A/B measurements: on unless the environment variable `name` is "0".
inline bool switch_on(const char* name) {
  const char* e = std::getenv(name);
  return !(e && std::strcmp(e, "0") == 0);
}

// Sizes and 32-bit strides of dx and dy ([N, C, spatial...]); idx shares dy's strides.
template <int ND>
struct fast_geometry {
  int N, C, in[ND], out[ND];
  int dx_n, dx_c, dx_s[ND], dy_n, dy_c, dy_s[ND];
};
// The routes in 32-bit: the stored index, or the mean's divisor from the window's valid taps.
struct fast_index {
  const std::int32_t* idx;
};
template <int ND>
struct fast_mean {
  bool include_pad;
  float inv_volume;
  int in[ND], win[ND], stride[ND], dilation[ND], pad_l[ND];
  // Taps of window o along dimension d that lie inside the input: taps_inside, counted here on the
  // members themselves (calling taps_inside loads the five values into registers first, and the
  // channels-last fp32 box-sum kernel then spilled 12 bytes on sm_80).
  __device__ int valid_taps(int d, int o) const {
    int valid = 0;
    for (int k = 0; k < win[d]; ++k) {
      const int hi = o * stride[d] + k * dilation[d] - pad_l[d];
      valid += (hi >= 0 && hi < in[d]) ? 1 : 0;
    }
    return valid;
  }
  // The same where the kernel only runs undilated windows.
  __device__ int valid_taps_undilated(int d, int o) const { return taps_inside_undilated(in[d], win[d], stride[d], pad_l[d], o); }
  // The weight from the divisor: the product of the dimensions' valid taps (or the window volume).
  __device__ float weight_of(int div) const { return include_pad ? inv_volume : div > 0 ? 1.0f / static_cast<float>(div) : 0.0f; }
  __device__ float weight(const int (&ho)[ND]) const {
    if (include_pad) return inv_volume;
    int div = 1;
    TG_UNROLL for (int d = 0; d < ND; ++d) div *= valid_taps(d, ho[d]);
    return weight_of(div);
  }
};

// Calls f(dy offset) for every window of the lines l[0..D1) that lies inside dy, in gather_one's
// order (first dimension slowest); ho holds the window's output position.
template <int D, int D1, int ND, class F>
__device__ inline void each_window(const line32 (&l)[ND], const int (&out)[ND], const int (&s)[ND], int off, int (&ho)[ND], const F& f) {
  if constexpr (D == D1) {
    f(off);
  } else {
    for (int j = 0; j < l[D].taps; ++j) {
      const int h = l[D].out0 - j * l[D].out_step;
      if (h >= 0 && h < out[D]) {
        ho[D] = h;
        each_window<D + 1, D1, ND>(l, out, s, off + h * s[D], ho, f);
      }
    }
  }
}

// Channels-last: a thread per (n, spatial position, V consecutive channels).
template <int ND, class T, class FR>
__global__ void gather_channels_last_kernel(fast_geometry<ND> g, col2im<ND> c2, const T* dy, T* dx, FR route) {
  extern __shared__ line32 gather_table[];
  constexpr int V = gpu_fast::vec_of<T>;
  int base[ND];
  fill_table(c2, gather_table, base, table_bases(c2, base));
  const int CV = g.C / V;
  int units = g.N * CV;
  TG_UNROLL for (int d = 0; d < ND; ++d) units *= g.in[d];
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x) {
    int rest = u / CV;
    const int c = (u - rest * CV) * V;
    int hi[ND];
    TG_UNROLL for (int d = ND - 1; d >= 0; --d) { const int q = rest / g.in[d]; hi[d] = rest - q * g.in[d]; rest = q; }
    const int n = rest;
    line32 l[ND];
    int flat = 0, dx_off = n * g.dx_n + c;
    TG_UNROLL for (int d = 0; d < ND; ++d) {
      l[d] = gather_table[base[d] + hi[d]];
      flat = flat * g.in[d] + hi[d];
      dx_off += hi[d] * g.dx_s[d];
    }
    float acc[V] = {};
    int ho[ND];
    each_window<0, ND, ND>(l, g.out, g.dy_s, n * g.dy_n + c, ho, [&](int o) {
      const auto y = gpu_fast::load_pack<T, V>(dy + o);
      if constexpr (std::is_same_v<FR, fast_index>) {
        const auto id = gpu_fast::load_pack<std::int32_t, V>(route.idx + o);
        TG_UNROLL for (int v = 0; v < V; ++v) if (id.v[v] == flat) acc[v] += arch::cvt_to_float(y.v[v]);
      } else {
        const float w = route.weight(ho);
        if (w != 0.0f) TG_UNROLL for (int v = 0; v < V; ++v) acc[v] += arch::cvt_to_float(y.v[v]) * w;
      }
    });
    gpu_fast::pack<T, V> r;
    TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = arch::cvt_from_float<T>(acc[v]);
    gpu_fast::store_pack<T, V>(dx + dx_off, r);
  }
}

// Channels-first: a thread per V consecutive positions along the last spatial dimension; the windows
// of the other dimensions are shared by the V elements, the last one is looked up per element.
template <int ND, class T, class FR>
__global__ void gather_rows_kernel(fast_geometry<ND> g, col2im<ND> c2, const T* dy, T* dx, FR route) {
  extern __shared__ line32 gather_table[];
  constexpr int V = gpu_fast::vec_of<T>;
  constexpr int L = ND - 1;  // the contiguous dimension
  int base[ND];
  fill_table(c2, gather_table, base, table_bases(c2, base));
  const int WV = g.in[L] / V;
  int units = g.N * g.C * WV;
  TG_UNROLL for (int d = 0; d < L; ++d) units *= g.in[d];
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x) {
    int rest = u / WV;
    const int w0 = (u - rest * WV) * V;
    int hi[ND];
    TG_UNROLL for (int d = L - 1; d >= 0; --d) { const int q = rest / g.in[d]; hi[d] = rest - q * g.in[d]; rest = q; }
    const int n = rest / g.C, c = rest - n * g.C;
    line32 l[ND];
    int flat = 0, dx_off = n * g.dx_n + c * g.dx_c + w0;
    TG_UNROLL for (int d = 0; d < L; ++d) {
      l[d] = gather_table[base[d] + hi[d]];
      flat = flat * g.in[d] + hi[d];
      dx_off += hi[d] * g.dx_s[d];
    }
    flat = flat * g.in[L] + w0;
    line32 lw[V];
    TG_UNROLL for (int v = 0; v < V; ++v) lw[v] = gather_table[base[L] + w0 + v];
    float acc[V] = {};
    int ho[ND];
    // Index route: the windows along L of all V elements form one range [olo, ohi]; each window's
    // dy and index are loaded once and its index routes dy to the one element it names (an index
    // lies inside its window, so windows of the range that miss an element never match it). One load
    // pair per window instead of one per (element, tap): at stride 2 eight elements share ~5 windows.
    // Order per element: windows from the highest, as the per-element loop below.
    int olo = g.out[L], ohi = -1;
    if constexpr (std::is_same_v<FR, fast_index>) {
      TG_UNROLL for (int v = 0; v < V; ++v) {
        if (lw[v].taps > 0) {
          const int a = lw[v].out0, z = lw[v].out0 - (lw[v].taps - 1) * lw[v].out_step;
          olo = min(olo, min(a, z));
          ohi = max(ohi, max(a, z));
        }
      }
      olo = max(olo, 0);
      ohi = min(ohi, g.out[L] - 1);
    }
    each_window<0, L, ND>(l, g.out, g.dy_s, n * g.dy_n + c * g.dy_c, ho, [&](int o) {
      if constexpr (std::is_same_v<FR, fast_index>) {
        for (int h = ohi; h >= olo; --h) {
          const int oo = o + h * g.dy_s[L];
          const int at = route.idx[oo] - flat;
          const float y = arch::cvt_to_float(dy[oo]);
          // A select per element, not a branch (clang turns the branches into acc[at]: scratch).
          TG_UNROLL for (int v = 0; v < V; ++v) acc[v] += at == v ? y : 0.0f;
        }
      } else {
        TG_UNROLL for (int v = 0; v < V; ++v) {
          for (int j = 0; j < lw[v].taps; ++j) {
            const int h = lw[v].out0 - j * lw[v].out_step;
            if (h < 0 || h >= g.out[L]) continue;
            ho[L] = h;
            const float w = route.weight(ho);
            if (w != 0.0f) acc[v] += arch::cvt_to_float(dy[o + h * g.dy_s[L]]) * w;
          }
        }
      }
    });
    gpu_fast::pack<T, V> r;
    TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = arch::cvt_from_float<T>(acc[v]);
    gpu_fast::store_pack<T, V>(dx + dx_off, r);
  }
}
}  // namespace gpu_window
}  // namespace tg
