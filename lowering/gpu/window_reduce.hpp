// GPU windowed reductions: one thread per dx (or y) element, walked in memory order; each thread
// runs the same gather_one / max_of_window as the host backend, so no atomics and no races.
// Fast paths for the stored-index and mean routes on plain strided tensors of < 2^31 elements
// (chosen at run time, the generic kernel otherwise): 32-bit offsets from strides, and a thread
// per 16 bytes of dx: V consecutive channels (channels-last: one window lookup for all of them,
// 16-byte dy / idx loads) or V consecutive positions along the last spatial dimension
// (channels-first). They visit the windows of an element in gather_one's order.
#pragma once
#include <cstdint>
#include "arch/convert.hpp"
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

// Mean route at stride 1 (3 spatial dimensions): dx is a box sum of dy * weight. A thread owns a
// column of dx along d for E elements (E = V channels of a channels-last tensor in 16-byte words, or
// one element of any strided layout, w or c fastest across threads) and walks the dy planes of its
// chunk of d: each plane's window of (h, w) taps is summed from global memory (neighbouring threads
// read the same lines: L1 hits), and the last R plane sums stay in a register ring that shifts by one
// per plane; a dx plane adds its win_d ring entries. No shared memory and no barriers, so every warp
// keeps its own loads in flight (the earlier shared-memory tile version waited on each plane's load
// behind two block barriers, latency-bound at ~15% of the bandwidth). Fixed summation order: taps of
// a plane in (h, w) order, then planes from the newest.
//
// Rows (channels-first with w contiguous): E = V consecutive w of one row per thread, so the
// per-tap work is shared by V outputs (one element per thread was issue-bound: ~20 instructions per
// tap and element, the same time in fp16 and fp32). Per dy row the thread loads the V + span - 1
// values its outputs' windows cover once, scaled by their windows' weights, and adds them by the
// tap mask along w (register indices fixed at compile time; ring and window width at most 3).
constexpr int box_row_span = 3, box_row_ring = 3;  // (4 and 4: 100 registers in fp16, 2 blocks per SM)
struct box_plan {
  int cols, chunk, chunks, ring;
  bool cl;         // channels fastest across threads (else w)
  unsigned taps;   // bit j: ring entry j (plane p - j) is one of the window's planes
  unsigned wtaps;  // rows: bit t: buffer offset t (window w + pad - (win - 1) * dil + t) is a tap
  int wspan;       // rows: the dilated window's width along w
};
template <class T, int E, bool Rows>
__global__ void __launch_bounds__(256) mean_box_kernel(fast_geometry<3> g, fast_mean<3> m, box_plan b, const T* dy, T* dx) {
  constexpr int R = E == 1 ? 8 : Rows ? box_row_ring : 4;  // ring capacity in registers (8 x 4 fp32 vectors spilled)
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= b.cols * b.chunks) return;
  const int chunk = u / b.cols;
  int rest = u - chunk * b.cols, c, w, h;
  if constexpr (Rows) {
    const int WE = g.in[2] / E;
    w = rest % WE * E; rest /= WE;
    h = rest % g.in[1]; rest /= g.in[1];
    c = rest % g.C; rest /= g.C;
  } else if (b.cl) {
    const int CE = g.C / E;
    c = rest % CE * E; rest /= CE;
    w = rest % g.in[2]; rest /= g.in[2];
    h = rest % g.in[1]; rest /= g.in[1];
  } else {
    w = rest % g.in[2]; rest /= g.in[2];
    h = rest % g.in[1]; rest /= g.in[1];
    c = rest % g.C; rest /= g.C;
  }
  const int n = rest;
  const int dy_base = n * g.dy_n + c * g.dy_c, dx_base = n * g.dx_n + c * g.dx_c + h * g.dx_s[1] + w * g.dx_s[2];
  const int d0 = chunk * b.chunk, d1 = min(g.in[0], d0 + b.chunk);
  float ring[R][E] = {};
  for (int p = d0 + m.pad_l[0] - (b.ring - 1); p < d1 + m.pad_l[0]; ++p) {  // dy planes; dx plane p - pad_d when complete
    float s[E] = {};
    if (p >= 0 && p < g.out[0]) {
      const int dd = m.include_pad ? 0 : m.valid_taps(0, p), plane = dy_base + p * g.dy_s[0];
      if constexpr (Rows) {
        for (int kh = 0; kh < m.win[1]; ++kh) {
          const int oh = h + m.pad_l[1] - kh * m.dilation[1];
          if (oh < 0 || oh >= g.out[1]) continue;
          constexpr int B = E + box_row_span - 1;
          const int ob = w + m.pad_l[2] - (m.win[2] - 1) * m.dilation[2], row = plane + oh * g.dy_s[1];
          const int dh = m.include_pad ? 0 : dd * m.valid_taps(1, oh);
          // Value j (window ob + j) goes to the outputs e with j - e a tap offset; each value is
          // used as soon as it is loaded (a buffer of all of them spilled in fp16).
          auto add_row = [&](const auto& weight) {
            TG_UNROLL for (int j = 0; j < B; ++j) {
              const int ow = ob + j;
              const float x = j < E + b.wspan - 1 && ow >= 0 && ow < g.out[2] ? arch::cvt_to_float(dy[row + ow]) * weight(ow) : 0.0f;
              TG_UNROLL for (int e = 0; e < E; ++e)
                if (j - e >= 0 && j - e < box_row_span && (b.wtaps >> (j - e) & 1u)) s[e] += x;
            }
          };
          if (m.include_pad) add_row([&](int) { return m.inv_volume; });
          else add_row([&](int ow) { return m.weight_of(dh * m.valid_taps(2, ow)); });
        }
      } else {
        // Tap (oh, ow) of the plane, inside dy: its weighted values into s.
        const auto add_tap = [&](int oh, int ow) {
          const float wt = m.include_pad ? m.inv_volume : m.weight_of(dd * m.valid_taps(1, oh) * m.valid_taps(2, ow));
          const int o = plane + oh * g.dy_s[1] + ow * g.dy_s[2];
          if constexpr (E == 1) {
            s[0] += arch::cvt_to_float(dy[o]) * wt;
          } else {
            const auto y = gpu_fast::load_pack<T, E>(dy + o);
            TG_UNROLL for (int e = 0; e < E; ++e) s[e] += arch::cvt_to_float(y.v[e]) * wt;
          }
        };
        if constexpr (sizeof(T) < 4) {
          // 16-bit: taps row by row, each load used at once (session 8's loop: measured faster for
          // 16-bit types than the flat walk or blocks of taps in flight, performance.md 14).
          for (int kh = 0; kh < m.win[1]; ++kh) {
            const int oh = h + m.pad_l[1] - kh * m.dilation[1];
            if (oh < 0 || oh >= g.out[1]) continue;
            for (int kw = 0; kw < m.win[2]; ++kw) {
              const int ow = w + m.pad_l[2] - kw * m.dilation[2];
              if (ow < 0 || ow >= g.out[2]) continue;
              add_tap(oh, ow);
            }
          }
        } else {
          // 32-bit: one flat walk over the plane's (h, w) taps, a test per tap (measured faster for fp32
          // than the row loop, 0.106 -> 0.081 ms on the H200, and than blocks of 3 to 9 taps'
          // loads issued together, which cost registers and resident warps: performance.md 14).
          const int taps = m.win[1] * m.win[2];
          for (int t = 0, kh = 0, kw = 0; t < taps; ++t) {
            const int oh = h + m.pad_l[1] - kh * m.dilation[1], ow = w + m.pad_l[2] - kw * m.dilation[2];
            if (++kw == m.win[2]) { kw = 0; ++kh; }
            if (oh < 0 || oh >= g.out[1] || ow < 0 || ow >= g.out[2]) continue;
            add_tap(oh, ow);
          }
        }
      }
    }
    TG_UNROLL for (int j = R - 1; j > 0; --j) TG_UNROLL for (int e = 0; e < E; ++e) ring[j][e] = ring[j - 1][e];
    TG_UNROLL for (int e = 0; e < E; ++e) ring[0][e] = s[e];
    if (p >= d0 + m.pad_l[0]) {
      float acc[E] = {};
      TG_UNROLL for (int j = 0; j < R; ++j) if (b.taps >> j & 1u) TG_UNROLL for (int e = 0; e < E; ++e) acc[e] += ring[j][e];
      T* out = dx + dx_base + (p - m.pad_l[0]) * g.dx_s[0];
      if constexpr (E == 1) {
        *out = arch::cvt_from_float<T>(acc[0]);
      } else {
        gpu_fast::pack<T, E> r;
        TG_UNROLL for (int e = 0; e < E; ++e) r.v[e] = arch::cvt_from_float<T>(acc[e]);
        gpu_fast::store_pack<T, E>(out, r);
      }
    }
  }
}

// The box-sum path: stride 1, a ring of at most 8 planes (E = 1) or 4 (vectors). Chunks of d
// when the columns alone would not fill the device twice, each at least 2 * ring planes long (a
// chunk re-reads ring - 1 planes).
template <class T>
bool try_mean_box(gpu_backend& be, const fast_geometry<3>& g, const fast_mean<3>& m, bool vectors, bool rows_aligned, const T* dy, T* dx) {
  constexpr int V = gpu_fast::vec_of<T>;
  for (int d = 0; d < 3; ++d) if (m.stride[d] != 1) return false;
  box_plan b{};
  b.ring = (m.win[0] - 1) * m.dilation[0] + 1;
  if (b.ring > 8) return false;
  for (int k = 0; k < m.win[0]; ++k) b.taps |= 1u << (k * m.dilation[0]);
  vectors = vectors && b.ring <= 4;
  b.wspan = (m.win[2] - 1) * m.dilation[2] + 1;
  for (int k = 0; k < m.win[2]; ++k) b.wtaps |= 1u << (k * m.dilation[2]);
  // Rows: w contiguous in dx and dy, whole aligned 16-byte dx words along w.
  const bool rows = !vectors && rows_aligned && g.dy_s[2] == 1 && b.ring <= box_row_ring && b.wspan <= box_row_span;
  const int E = vectors || rows ? V : 1;
  b.cl = g.dx_c == 1;
  b.cols = g.N * (g.C / (rows ? 1 : E)) * g.in[1] * (g.in[2] / (rows ? E : 1));
  const index_t fill = 2 * 2048 * static_cast<index_t>(be.processors()), want = (fill + b.cols - 1) / b.cols;
  const int most = g.in[0] / (2 * b.ring) > 1 ? g.in[0] / (2 * b.ring) : 1;
  b.chunks = static_cast<int>(want < most ? want : most);
  b.chunk = (g.in[0] + b.chunks - 1) / b.chunks;
  b.chunks = (g.in[0] + b.chunk - 1) / b.chunk;
  const index_t threads = static_cast<index_t>(b.cols) * b.chunks;
  if (threads >= (index_t{1} << 31)) return false;
  const unsigned blocks = static_cast<unsigned>((threads + 255) / 256);
  if (vectors) TG_LAUNCH((mean_box_kernel<T, V, false>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  else if (rows) TG_LAUNCH((mean_box_kernel<T, V, true>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  else TG_LAUNCH((mean_box_kernel<T, 1, false>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  return true;
}

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
    if (total >= (index_t{1} << 31) || total == 0) return false;
    // Every 16-byte access must stay aligned: the base pointers, and every stride it moves by.
    auto multiple = [&](const int* s, int k) { bool ok = true; for (int i = 0; i < k; ++i) ok = ok && s[i] % V == 0; return ok; };
    const unsigned block = 256;
    auto grid = [&](index_t units) {
      const index_t want = (units + block - 1) / block, cap = static_cast<index_t>(be.processors()) * 8;
      return static_cast<unsigned>(want < cap ? want : cap);
    };
    const bool cl_aligned = g.dx_c == 1 && g.dy_c == 1 && g.C % V == 0 && gpu_fast::aligned16(dx.data) && gpu_fast::aligned16(dy.data) &&
                            g.dx_n % V == 0 && g.dy_n % V == 0 && multiple(g.dx_s, ND) && multiple(g.dy_s, ND);
    const bool rows_aligned = g.dx_s[ND - 1] == 1 && g.in[ND - 1] % V == 0 && gpu_fast::aligned16(dx.data) && g.dx_n % V == 0 &&
                              g.dx_c % V == 0 && multiple(g.dx_s, ND - 1);
    if constexpr (std::is_same_v<typename FRo::type, fast_mean<ND>>) {
      bool single = true;
      for (int d = 0; d < ND; ++d) single = single && fr.dilation[d] == 1 && fr.stride[d] >= fr.win[d];
      single = single && (cl_aligned || rows_aligned);  // the divisors below exist only for these two layouts
      single_divs<ND> q{};
      if (single) {
        q.lanes = gpu_fast::fast_div(cl_aligned ? g.C / V : g.in[ND - 1] / V);
        q.C = gpu_fast::fast_div(g.C);
        for (int d = 0; d < ND; ++d) { q.in[d] = gpu_fast::fast_div(g.in[d]); q.stride[d] = gpu_fast::fast_div(fr.stride[d]); }
      }
      if (single && cl_aligned) {
        TG_LAUNCH((mean_single_kernel<ND, T, true>), grid(total / V), block, 0, be.stream, g, fr, q, dy.data, dx.data);
        return true;
      }
      if (single && rows_aligned) {
        TG_LAUNCH((mean_single_kernel<ND, T, false>), grid(total / V), block, 0, be.stream, g, fr, q, dy.data, dx.data);
        return true;
      }
      if constexpr (ND == 3) {
        if (try_mean_box(be, g, fr, cl_aligned, rows_aligned, dy.data, dx.data)) return true;
      }
    }
    if (entries > max_table) return false;
    bool index_aligned = true;
    if constexpr (std::is_same_v<typename FRo::type, fast_index>) index_aligned = gpu_fast::aligned16(fr.idx);
    const unsigned smem = static_cast<unsigned>(entries * sizeof(line32));
    if (cl_aligned && index_aligned) {
      TG_LAUNCH((gather_channels_last_kernel<ND, T, typename FRo::type>), grid(total / V), block, smem, be.stream, g, c2, dy.data, dx.data, fr);
      return true;
    }
    if (rows_aligned) {
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
