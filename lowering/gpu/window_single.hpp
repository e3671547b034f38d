// The mean route where windows do not overlap (stride >= window, dilation 1): one window per dx
// element, divisions by multiply-high.
#pragma once
#include "lowering/gpu/window_box_sum.hpp"

namespace tg {
namespace gpu_window {
// Mean route with windows that do not overlap (stride >= window, dilation 1, every dimension): each
// dx element lies in at most one window, found by one division per dimension. A thread per 16 bytes
// of dx: V channels (channels-last, one 16-byte dy load) or V positions along the last dimension
// (channels-first, a running (window, tap) pair instead of a division per element). Kept to a few
// dozen instructions per 16 bytes, or the kernel is issue-bound, not memory-bound: divisions by
// multiply-high (fast_div), valid taps in closed form (taps_inside_undilated), along the last dimension one dy load and one
// weight per window (not per element), and the weight's division only at the borders.
template <int ND>
struct single_divs {
  gpu_fast::fast_div lanes, C, in[ND], stride[ND];
};
template <int ND, class T, bool ChannelsLast>
__global__ void mean_single_kernel(fast_geometry<ND> g, fast_mean<ND> m, single_divs<ND> q, const T* dy, T* dx) {
  constexpr int V = gpu_fast::vec_of<T>;
  constexpr int L = ChannelsLast ? ND : ND - 1;  // spatial dimensions with one window per thread
  const int lanes = ChannelsLast ? g.C / V : g.in[ND - 1] / V;
  int units = g.N * lanes * (ChannelsLast ? 1 : g.C);
  TG_UNROLL for (int d = 0; d < L; ++d) units *= g.in[d];
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x) {
    int rest = q.lanes.div(u);
    const int lane = (u - rest * lanes) * V;
    int hi[ND];
    TG_UNROLL for (int d = L - 1; d >= 0; --d) { const int r = q.in[d].div(rest); hi[d] = rest - r * g.in[d]; rest = r; }
    int n = rest, c = lane;
    if constexpr (!ChannelsLast) { n = q.C.div(rest); c = rest - n * g.C; hi[ND - 1] = lane; }
    int dx_off = n * g.dx_n + c * g.dx_c, dy_off = n * g.dy_n + c * g.dy_c, div = 1;
    bool inside = true;
    TG_UNROLL for (int d = 0; d < ND; ++d) dx_off += hi[d] * g.dx_s[d];
    TG_UNROLL for (int d = 0; d < L; ++d) {
      const int t = hi[d] + m.pad_l[d], o = q.stride[d].div(t);
      inside = inside && t - o * m.stride[d] < m.win[d] && o < g.out[d];
      dy_off += o * g.dy_s[d];
      div *= m.valid_taps_undilated(d, o);
    }
    gpu_fast::pack<T, V> r;
    if constexpr (ChannelsLast) {
      const float w = m.weight_of(div);
      if (inside) {
        const auto y = gpu_fast::load_pack<T, V>(dy + dy_off);
        TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = arch::cvt_from_float<T>(arch::cvt_to_float(y.v[v]) * w);
      } else {
        TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = arch::cvt_from_float<T>(0.0f);
      }
    } else {
      constexpr int D = ND - 1;
      const int t0 = lane + m.pad_l[D];
      int o = q.stride[D].div(t0), k = t0 - o * m.stride[D], held = -1;
      const float interior = m.weight_of(div * m.win[D]);  // windows with all their taps inside along D
      float x = 0.0f;  // dy * weight of window `held`
      TG_UNROLL for (int v = 0; v < V; ++v) {
        const bool in = inside && k < m.win[D] && o < g.out[D];
        if (in && o != held) {
          const int taps = m.valid_taps_undilated(D, o);
          x = arch::cvt_to_float(dy[dy_off + o * g.dy_s[D]]) * (taps == m.win[D] ? interior : m.weight_of(div * taps));
          held = o;
        }
        r.v[v] = arch::cvt_from_float<T>(in ? x : 0.0f);
        if (++k == m.stride[D]) { k = 0; ++o; }
      }
    }
    gpu_fast::store_pack<T, V>(dx + dx_off, r);
  }
}
}  // namespace gpu_window
}  // namespace tg
