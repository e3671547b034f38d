// GPU windowed reductions: one thread per dx (or y) element, walked in memory order; each thread
// runs the same gather_one / max_of_window as the host backend, so no atomics and no races.
// Fast paths for the stored-index and mean routes on plain strided tensors of < 2^31 elements
// (chosen at run time, the generic kernel otherwise): 32-bit offsets from strides, and a thread
// per 16 bytes of dx: V consecutive channels (channels-last: one window lookup for all of them,
// 16-byte dy / idx loads) or V consecutive positions along the last spatial dimension
// (channels-first). They visit the windows of an element in gather_one's order.
#pragma once
#include <cstdint>
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/strided.hpp"
#include "lowering/window_reduce.hpp"

namespace tg {
namespace gpu_window {
// Each block first tabulates the gather line of every input position of every spatial dimension
// (a few hundred entries: all the divisions of col2im's class lookup), then its threads read them.
constexpr int max_table = 2048;
struct line32 { int out0, out_step, tap0, tap_step, taps; };

// Fills table[] with the gather lines of every input position of every spatial dimension (dimension
// d from base[d]). Block-wide, ends with a barrier.
template <int ND>
__device__ inline void fill_table(const col2im<ND>& c2, line32* table, int (&base)[ND], int entries) {
  for (int e = threadIdx.x; e < entries; e += blockDim.x) {
    int d = 0;
    TG_UNROLL for (int k = 1; k < ND; ++k) d += e >= base[k] ? 1 : 0;
    int b = base[0];
    TG_UNROLL for (int k = 1; k < ND; ++k) if (k == d) b = base[k];
    col2im_dim cd = c2.dim[0];
    TG_UNROLL for (int k = 1; k < ND; ++k) if (k == d) cd = c2.dim[k];
    const auto ln = cd.line_of(e - b);
    table[e] = {static_cast<int>(ln.out0), static_cast<int>(ln.out_step), static_cast<int>(ln.tap0), static_cast<int>(ln.tap_step),
                static_cast<int>(ln.taps)};
  }
  __syncthreads();
}
template <int ND>
TG_FN int table_bases(const col2im<ND>& c2, int (&base)[ND]) {
  int entries = 0;
  TG_UNROLL for (int d = 0; d < ND; ++d) { base[d] = entries; entries += static_cast<int>(c2.dim[d].in); }
  return entries;
}

template <int ND, class DyView, class DxView, class Route>
__global__ void gather_kernel(col2im<ND> c2, DyView dy, DxView dx, Route route, array<int, 2 + ND> order) {
  __shared__ line32 table[max_table];
  const auto len = dx.desc.lengths();
  const index_t total = volume(len);
  int base[ND];
  const int entries = table_bases(c2, base);
  const bool tabled = entries <= max_table;
  if (tabled) fill_table(c2, table, base, entries);
  // Each thread takes `vec` neighbours along the fastest dimension (when its length allows): one
  // index decomposition for all of them, and a warp writes contiguous runs.
  constexpr int vec = 4;
  const int fast = order[1 + ND];
  const bool grouped = select(len, fast) % vec == 0;
  const index_t step = grouped ? vec : 1, units = total / step;
  for (index_t u = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; u < units; u += static_cast<index_t>(gridDim.x) * blockDim.x) {
    auto i = index_in_order(u * step, len, order);
    for (int e = 0; e < step; ++e) {
      multi_index<ND> hi{};
      TG_UNROLL for (int d = 0; d < ND; ++d) hi[d] = i[2 + d];
      gather_lines<ND> lines;
      if (tabled) {
        TG_UNROLL for (int d = 0; d < ND; ++d) {
          const line32 t = table[base[d] + hi[d]];
          lines.d[d] = {t.out0, t.out_step, t.tap0, t.tap_step, t.taps};
        }
      } else {
        lines = lines_of(c2, hi);
      }
      dx.store(i, gather_one<ND>(c2, lines, dy, route, i[0], i[1], hi));
      TG_UNROLL for (int d = 0; d < 2 + ND; ++d) if (d == fast) ++i[d];
    }
  }
}

template <int ND, class XWin, class YView, class IdxView>
__global__ void max_forward_kernel(window_geometry<ND> g, XWin xw, YView y, IdxView idx, array<int, 2 + ND> order) {
  const auto len = y.desc.lengths();
  const index_t total = volume(len);
  multi_index<ND> taps{};
  TG_UNROLL for (int d = 0; d < ND; ++d) taps[d] = g[d].win;
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto i = index_in_order(l, len, order);
    multi_index<ND> ho{};
    for (int d = 0; d < ND; ++d) ho[d] = i[2 + d];
    const window_max m = max_of_window<ND>(xw, i[0], i[1], ho, taps);
    y.store(i, m.value);
    idx.data[idx.desc.offset(i)] = static_cast<std::remove_cv_t<typename IdxView::value_type>>(winner_position<ND>(g, ho, m.tap));
  }
}

// ---- fast paths ----
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
  __device__ float weight(const int (&ho)[ND]) const {
    if (include_pad) return inv_volume;
    int div = 1;
    TG_UNROLL for (int d = 0; d < ND; ++d) {
      int valid = 0;
      for (int k = 0; k < win[d]; ++k) {
        const int hi = ho[d] * stride[d] + k * dilation[d] - pad_l[d];
        valid += (hi >= 0 && hi < in[d]) ? 1 : 0;
      }
      div *= valid;
    }
    return div > 0 ? 1.0f / static_cast<float>(div) : 0.0f;
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
        TG_UNROLL for (int v = 0; v < V; ++v) if (id.v[v] == flat) acc[v] += to_float(y.v[v]);
      } else {
        const float w = route.weight(ho);
        if (w != 0.0f) TG_UNROLL for (int v = 0; v < V; ++v) acc[v] += to_float(y.v[v]) * w;
      }
    });
    gpu_fast::pack<T, V> r;
    TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = from_float<T>(acc[v]);
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
    each_window<0, L, ND>(l, g.out, g.dy_s, n * g.dy_n + c * g.dy_c, ho, [&](int o) {
      TG_UNROLL for (int v = 0; v < V; ++v) {
        for (int j = 0; j < lw[v].taps; ++j) {
          const int h = lw[v].out0 - j * lw[v].out_step;
          if (h < 0 || h >= g.out[L]) continue;
          const int oo = o + h * g.dy_s[L];
          if constexpr (std::is_same_v<FR, fast_index>) {
            if (route.idx[oo] == flat + v) acc[v] += to_float(dy[oo]);
          } else {
            ho[L] = h;
            const float w = route.weight(ho);
            if (w != 0.0f) acc[v] += to_float(dy[oo]) * w;
          }
        }
      }
    });
    gpu_fast::pack<T, V> r;
    TG_UNROLL for (int v = 0; v < V; ++v) r.v[v] = from_float<T>(acc[v]);
    gpu_fast::store_pack<T, V>(dx + dx_off, r);
  }
}

// The 32-bit route of a host route, when there is one.
template <int ND, class Route>
struct fast_route_of {
  static constexpr bool on = false;
};
template <int ND, class IdxView>
struct fast_route_of<ND, index_route<ND, IdxView>> {
  static constexpr bool on = gpu_fast::is_strided_v<typename IdxView::desc_type> &&
                             std::is_same_v<std::remove_cv_t<typename IdxView::value_type>, std::int32_t>;
  using type = fast_index;
  // idx must have dy's strides (it is the forward pass's output, so it does).
  static bool make(const index_route<ND, IdxView>& r, const gpu_fast::strides32<2 + ND>& dy, type& f) {
    const auto s = gpu_fast::strides_of(r.idx.desc);
    bool same = s.ok;
    for (int d = 0; d < 2 + ND; ++d) same = same && s.s[d] == dy.s[d];
    f = {r.idx.data};
    return same;
  }
};
template <int ND>
struct fast_route_of<ND, mean_route<ND>> {
  static constexpr bool on = true;
  using type = fast_mean<ND>;
  static bool make(const mean_route<ND>& r, const gpu_fast::strides32<2 + ND>&, type& f) {
    index_t vol = 1;
    f.include_pad = r.count_include_pad;
    for (int d = 0; d < ND; ++d) {
      vol *= r.g[d].win;
      f.in[d] = static_cast<int>(r.g[d].in);
      f.win[d] = static_cast<int>(r.g[d].win);
      f.stride[d] = static_cast<int>(r.g[d].stride);
      f.dilation[d] = static_cast<int>(r.g[d].dilation);
      f.pad_l[d] = static_cast<int>(r.g[d].pad_l);
    }
    f.inv_volume = 1.0f / static_cast<float>(vol);
    return true;
  }
};

// Launches a fast kernel when the views allow one; false: the caller runs the generic kernel.
template <int ND, class DyView, class DxView, class Route>
bool try_fast_gather(gpu_backend& be, const window_geometry<ND>& wg, const DyView& dy, const DxView& dx, const Route& route) {
  using FRo = fast_route_of<ND, Route>;
  using T = std::remove_const_t<typename DxView::value_type>;
  if constexpr (!FRo::on || !gpu_fast::is_strided_v<typename DyView::desc_type> || !gpu_fast::is_strided_v<typename DxView::desc_type> ||
                !std::is_same_v<std::remove_const_t<typename DyView::value_type>, T>) {
    return false;
  } else {
    constexpr int V = gpu_fast::vec_of<T>;
    const auto sx = gpu_fast::strides_of(dx.desc), sy = gpu_fast::strides_of(dy.desc);
    typename FRo::type fr{};
    if (!sx.ok || !sy.ok || !FRo::make(route, sy, fr)) return false;
    const col2im<ND> c2(wg);
    fast_geometry<ND> g{};
    g.N = static_cast<int>(dx.desc.length(0));
    g.C = static_cast<int>(dx.desc.length(1));
    index_t entries = 0, total = g.N * static_cast<index_t>(g.C);
    for (int d = 0; d < ND; ++d) {
      g.in[d] = static_cast<int>(wg[d].in);
      g.out[d] = static_cast<int>(wg[d].out());
      g.dx_s[d] = sx.s[2 + d];
      g.dy_s[d] = sy.s[2 + d];
      entries += wg[d].in;
      total *= wg[d].in;
    }
    g.dx_n = sx.s[0]; g.dx_c = sx.s[1]; g.dy_n = sy.s[0]; g.dy_c = sy.s[1];
    if (entries > max_table || total >= (index_t{1} << 31) || total == 0) return false;
    // Every 16-byte access must stay aligned: the base pointers, and every stride it moves by.
    auto multiple = [&](const int* s, int k) { bool ok = true; for (int i = 0; i < k; ++i) ok = ok && s[i] % V == 0; return ok; };
    bool index_aligned = true;
    if constexpr (std::is_same_v<typename FRo::type, fast_index>) index_aligned = gpu_fast::aligned16(fr.idx);
    const unsigned smem = static_cast<unsigned>(entries * sizeof(line32));
    const unsigned block = 256;
    auto grid = [&](index_t units) {
      const index_t want = (units + block - 1) / block, cap = static_cast<index_t>(be.processors()) * 8;
      return static_cast<unsigned>(want < cap ? want : cap);
    };
    if (g.dx_c == 1 && g.dy_c == 1 && g.C % V == 0 && gpu_fast::aligned16(dx.data) && gpu_fast::aligned16(dy.data) && index_aligned &&
        g.dx_n % V == 0 && g.dy_n % V == 0 && multiple(g.dx_s, ND) && multiple(g.dy_s, ND)) {
      TG_LAUNCH((gather_channels_last_kernel<ND, T, typename FRo::type>), grid(total / V), block, smem, be.stream, g, c2, dy.data, dx.data, fr);
      return true;
    }
    if (g.dx_s[ND - 1] == 1 && g.in[ND - 1] % V == 0 && gpu_fast::aligned16(dx.data) && g.dx_n % V == 0 && g.dx_c % V == 0 &&
        multiple(g.dx_s, ND - 1)) {
      TG_LAUNCH((gather_rows_kernel<ND, T, typename FRo::type>), grid(total / V), block, smem, be.stream, g, c2, dy.data, dx.data, fr);
      return true;
    }
    return false;
  }
}
}  // namespace gpu_window

template <int ND, class DyView, class DxView, class Route>
void window_gather(gpu_backend& be, const window_geometry<ND>& g, const DyView& dy, const DxView& dx, const Route& route) {
  if (gpu_window::try_fast_gather<ND>(be, g, dy, dx, route)) return;
  const index_t n = dx.desc.size();
  // Enough blocks to fill the device several times over; each tabulates its lines once.
  const index_t blocks = (n + 255) / 256 < 132 * 16 ? (n + 255) / 256 : 132 * 16;
  TG_LAUNCH((gpu_window::gather_kernel<ND, DyView, DxView, Route>), static_cast<unsigned>(blocks > 0 ? blocks : 1), 256, 0, be.stream,
            col2im<ND>(g), dy, dx, route, memory_order(dx.desc));
}

template <int ND, class XWin, class YView, class IdxView>
void window_max_forward(gpu_backend& be, const window_geometry<ND>& g, const XWin& xw, const YView& y, const IdxView& idx) {
  TG_LAUNCH((gpu_window::max_forward_kernel<ND, XWin, YView, IdxView>), grid_for(y.desc.size(), 256), 256, 0, be.stream, g, xw, y, idx,
            memory_order(y.desc));
}
}  // namespace tg
