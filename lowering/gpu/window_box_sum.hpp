// The mean route at stride 1 (avgpool's 3 spatial dimensions) as a box sum of dy by columns, with a
// ring of plane sums in registers: the kernel and its launch plan.
#pragma once
#include <string>
#include "arch/block.hpp"
#include "arch/reciprocal.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/window_fast.hpp"

namespace tg {
namespace gpu_window {
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
//
// Rows by lanes (dy's rows as wide as dx's, in the same 16-byte words, whole warps of columns): the
// E loads per dy row become one 16-byte load. A lane sums its own E columns of the window's rows
// first, then takes the span - 1 column sums beside them from the lanes beside it (a row's words lie
// on consecutive lanes) and sums along w in registers: per plane win_h loads and span - 1 shuffles
// instead of win_h * (E + span - 1) scalar loads (the scalar form was bound by its L1 requests:
// performance.md 34).
constexpr int box_row_span = 3, box_row_ring = 3;  // (4 and 4: 100 registers in fp16, 2 blocks per SM)
struct box_plan {
  int cols, chunk, chunks, ring;
  bool cl;         // channels fastest across threads (else w)
  unsigned taps;   // bit j: ring entry j (plane p - j) is one of the window's planes
  unsigned wtaps;  // rows: bit t: buffer offset t (window w + pad - (win - 1) * dil + t) is a tap
  int wspan;       // rows: the dilated window's width along w
};

// Rows by lanes: the weight of dy row oh in a window (1 / its valid taps along h, or 1 with the pad
// included: the plane's factor comes later).
__device__ __forceinline__ float box_row_weight(const fast_mean<3>& m, int oh) { return m.include_pad ? 1.0f : arch::reciprocal_of_count(m.valid_taps(1, oh)); }

// Rows by lanes: the weighted sum of the window's rows of dy column ow (zero outside dy), from global
// memory: the neighbour words a shuffle cannot bring (row ends, warp ends).
template <class T>
__device__ __forceinline__ float box_column_sum(const fast_geometry<3>& g, const fast_mean<3>& m, const T* dy, int plane, int h, int ow) {
  float c = 0.0f;
  if (ow < 0 || ow >= g.out[2]) return c;
  for (int kh = 0; kh < m.win[1]; ++kh) {
    const int oh = h + m.pad_l[1] - kh * m.dilation[1];
    if (oh >= 0 && oh < g.out[1]) c += arch::cvt_to_float(dy[plane + oh * g.dy_s[1] + ow]) * box_row_weight(m, oh);
  }
  return c;
}

// Rows by lanes: s[e] = the plane's weighted window sum for dx element w + e of row h, without the
// plane's own factor (1 / its valid taps along d, or 1 / volume). Every lane of the warp calls it.
// Forced inline, as are its helpers, and its reciprocals call-free (arch/reciprocal.hpp): a call
// puts live registers on the stack (the ISA check found 16-32 bytes with 1.0f / n here).
template <class T, int E>
__device__ __forceinline__ void box_plane_by_lanes(const fast_geometry<3>& g, const fast_mean<3>& m, const box_plan& b, const T* dy, int plane,
                                                   int h, int w, float (&s)[E]) {
  // Column sums of the window's rows: own[e] for w + e; edge columns w - 2, w - 1, w + E, w + E + 1.
  float own[E] = {};
  for (int kh = 0; kh < m.win[1]; ++kh) {
    const int oh = h + m.pad_l[1] - kh * m.dilation[1];
    if (oh < 0 || oh >= g.out[1]) continue;
    const float wh = box_row_weight(m, oh);
    const auto y = gpu_fast::load_pack<T, E>(dy + plane + oh * g.dy_s[1] + w);
    TG_UNROLL for (int e = 0; e < E; ++e) own[e] += arch::cvt_to_float(y.v[e]) * wh;
  }
  float ext[E + 4];  // ext[j]: column w - 2 + j
  ext[0] = arch::warp_shuffle_up(own[E - 2], 1);
  ext[1] = arch::warp_shuffle_up(own[E - 1], 1);
  ext[E + 2] = arch::warp_shuffle_down(own[0], 1);
  ext[E + 3] = arch::warp_shuffle_down(own[1], 1);
  TG_UNROLL for (int e = 0; e < E; ++e) ext[2 + e] = own[e];
  // A column outside dy is zero; a neighbour word in another warp is summed here (rows that straddle
  // warps: W / E not a divisor of the warp).
  const int lane = arch::lane_id();
  if (w == 0 || lane == 0) ext[0] = box_column_sum(g, m, dy, plane, h, w - 2), ext[1] = box_column_sum(g, m, dy, plane, h, w - 1);
  if (w + E == g.in[2] || lane == arch::warp_lanes() - 1)
    ext[E + 2] = box_column_sum(g, m, dy, plane, h, w + E), ext[E + 3] = box_column_sum(g, m, dy, plane, h, w + E + 1);
  if (!m.include_pad) TG_UNROLL for (int j = 0; j < E + 4; ++j) ext[j] *= arch::reciprocal_of_count(m.valid_taps(2, w - 2 + j));
  // Window of output e: columns w + e + pad - span + 1 + t for the taps t of wtaps; shift by 2 - (span - 1 - pad).
  const int shift = 2 - (b.wspan - 1 - m.pad_l[2]);
  float at[E + 2];
  TG_UNROLL for (int j = 0; j < E + 2; ++j) at[j] = shift == 0 ? ext[j] : shift == 1 ? ext[j + 1] : ext[j + 2];
  TG_UNROLL for (int e = 0; e < E; ++e) {
    s[e] = 0.0f;
    TG_UNROLL for (int t = 0; t < box_row_span; ++t) if (b.wtaps >> t & 1u) s[e] += at[e + t];
  }
}

template <class T, int E, bool Rows, bool Lanes = false>
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
      if constexpr (Lanes) {
        box_plane_by_lanes<T, E>(g, m, b, dy, plane, h, w, s);
        const float wd = m.include_pad ? m.inv_volume : arch::reciprocal_of_count(dd);  // weight_of(dd) without its division's call
        TG_UNROLL for (int e = 0; e < E; ++e) s[e] *= wd;
      } else if constexpr (Rows) {
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

// Rows by lanes where they apply (TG_BOX_LANES=0: the scalar row loads, for A/B measurements; read once).
inline bool box_lanes_on() {
  static const bool on = switch_on("TG_BOX_LANES");
  return on;
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
  // Rows by lanes: dy's rows of dx's width in aligned words, whole warps of columns (so that no warp
  // straddles two chunks of d or runs past the last column: every lane takes part in the shuffles),
  // the window's columns within two of a word on either side.
  const bool lanes = rows && g.out[2] == g.in[2] && g.dy_s[1] % V == 0 && g.dy_s[0] % V == 0 && g.dy_c % V == 0 && g.dy_n % V == 0 &&
                     gpu_fast::aligned16(dy) && b.cols % 64 == 0 && m.pad_l[2] <= 2 && b.wspan - 1 - m.pad_l[2] >= 0 &&
                     b.wspan - 1 - m.pad_l[2] <= 2 && box_lanes_on();
  report_path("window", std::string("mean as a box sum of dy, ") +
                            (vectors ? "channel words" : lanes ? "rows by lanes" : rows ? "rows of scalar loads" : "one element a thread"));
  if (vectors) TG_LAUNCH((mean_box_kernel<T, V, false>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  else if (lanes) TG_LAUNCH((mean_box_kernel<T, V, true, true>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  else if (rows) TG_LAUNCH((mean_box_kernel<T, V, true>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  else TG_LAUNCH((mean_box_kernel<T, 1, false>), blocks, 256, 0, be.stream, g, m, b, dy, dx);
  return true;
}
}  // namespace gpu_window
}  // namespace tg
