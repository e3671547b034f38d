// The stored-index route (maxpool2d_bwd from maxpool2d_fwd's indices) on channels-first rows, for the
// window shapes along w that it is compiled for: the rows kernel by lanes.
#pragma once
#include <algorithm>
#include <cstdint>
#include "arch/block.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/window_fast.hpp"

namespace tg {
namespace gpu_window {
// A window along w of K taps at stride S, its first tap P before the window's position (pad P,
// dilation 1). dy's rows are dx's rows shrunk S times (out * S == in), so a thread's V consecutive dx
// elements of a row, from w0, have Q = V / S windows of their own: dy and the indices from w0 / S, one
// aligned load each. Windows j (counted from w0 / S) in [lo, hi] reach those elements; the ones
// outside [0, Q) belong to the lanes beside it (a row's words lie on consecutive lanes): shuffles.
template <int Stride, int Pad, int Taps>
struct lane_window {
  static constexpr int S = Stride, P = Pad, K = Taps;
  static constexpr int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
  static constexpr int lo() { return -floor_div(K - 1 - P, S); }         // the first window reaching element 0
  static constexpr int hi(int v) { return floor_div(v - 1 + P, S); }     // the last reaching element v - 1
};
// The shapes compiled: ResNet's stem (3 taps, stride 2, pad 1) and 2x2 stride 2.
using lane_window_stem = lane_window<2, 1, 3>;
using lane_window_pairs = lane_window<2, 0, 2>;

// One thread per V consecutive dx elements of a row, as gather_rows_kernel, with the same sums in
// the same order (window rows from the highest, then windows along w from the highest). Per window
// row: two loads and at most four shuffles where the scalar kernel made two loads per window, and a
// window's index is compared only with the K elements it can reach, not all V. Every lane of a warp
// walks the same number of window rows (invalid ones load nothing), so the shuffles see the whole
// warp; the launch gives whole warps of units.
template <class T, class W>
__global__ void gather_rows_lanes_kernel(fast_geometry<2> g, col2im<2> c2, int row_windows, const T* dy, T* dx, fast_index route) {
  extern __shared__ line32 gather_table[];
  constexpr int V = gpu_fast::vec_of<T>, Q = V / W::S, lo = W::lo(), hi = W::hi(V);
  static_assert(V % W::S == 0 && lo >= -Q && hi < 2 * Q, "a window's neighbours lie in the next word at most");
  int base[2];
  fill_table(c2, gather_table, base, table_bases(c2, base));
  const int WV = g.in[1] / V, units = g.N * g.C * g.in[0] * WV;
  const int lane = arch::lane_id(), last = arch::warp_lanes() - 1;
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x) {
    int rest = u / WV;
    const int w0 = (u - rest * WV) * V, ow0 = w0 / W::S;
    const int h = rest % g.in[0];
    rest /= g.in[0];
    const int n = rest / g.C, c = rest - n * g.C;
    const line32 lh = gather_table[base[0] + h];
    const int flat = h * g.in[1] + w0;
    float acc[V] = {};
    for (int r = 0; r < row_windows; ++r) {
      const int oh = lh.out0 - r * lh.out_step;
      const bool valid = r < lh.taps && oh >= 0 && oh < g.out[0];
      const int row = n * g.dy_n + c * g.dy_c + oh * g.dy_s[0];
      // y[j - lo], id[j - lo]: window ow0 + j (an index of -1 matches nothing).
      float y[hi - lo + 1];
      int id[hi - lo + 1];
      TG_UNROLL for (int j = 0; j < hi - lo + 1; ++j) y[j] = 0.0f, id[j] = -1;
      if (valid) {
        const auto yv = gpu_fast::load_aligned<T, Q>(dy + row + ow0);
        const auto iv = gpu_fast::load_aligned<std::int32_t, Q>(route.idx + row + ow0);
        TG_UNROLL for (int j = 0; j < Q; ++j) y[j - lo] = arch::cvt_to_float(yv.v[j]), id[j - lo] = iv.v[j];
      }
      TG_UNROLL for (int j = lo; j < 0; ++j) y[j - lo] = arch::warp_shuffle_up(y[Q + j - lo], 1), id[j - lo] = arch::warp_shuffle_up(id[Q + j - lo], 1);
      TG_UNROLL for (int j = Q; j <= hi; ++j) y[j - lo] = arch::warp_shuffle_down(y[j - Q - lo], 1), id[j - lo] = arch::warp_shuffle_down(id[j - Q - lo], 1);
      // Windows outside dy's row match nothing; a neighbour word in another warp is read here.
      TG_UNROLL for (int j = lo; j <= hi; ++j) {
        if (j >= 0 && j < Q) continue;
        const int ow = ow0 + j;
        if (ow < 0 || ow >= g.out[1]) {
          id[j - lo] = -1;
        } else if ((j < 0 && lane == 0) || (j >= Q && lane == last)) {
          id[j - lo] = valid ? route.idx[row + ow] : -1;
          y[j - lo] = valid ? arch::cvt_to_float(dy[row + ow]) : 0.0f;
        }
      }
      TG_UNROLL for (int j = hi; j >= lo; --j) {
        const int at = id[j - lo] - flat;
        TG_UNROLL for (int t = 0; t < W::K; ++t) {
          const int v = j * W::S - W::P + t;
          if (v >= 0 && v < V) acc[v] += at == v ? y[j - lo] : 0.0f;
        }
      }
    }
    gpu_fast::pack<T, V> out;
    TG_UNROLL for (int v = 0; v < V; ++v) out.v[v] = arch::cvt_from_float<T>(acc[v]);
    gpu_fast::store_pack<T, V>(dx + n * g.dx_n + c * g.dx_c + h * g.dx_s[0] + w0, out);
  }
}

// Rows by lanes where they apply (TG_GATHER_LANES=0: the scalar rows kernel, for A/B measurements).
inline bool gather_lanes_on() {
  static const bool on = switch_on("TG_GATHER_LANES");
  return on;
}

// Launches the rows kernel by lanes where the window along w is a compiled shape, dy's rows are dx's
// shrunk by the stride, dy (and so the indices, which share its strides) lies in aligned words, and
// the units fill whole warps; false otherwise.
template <class T>
bool try_gather_rows_lanes(gpu_backend& be, const window_geometry<2>& wg, const fast_geometry<2>& g, const col2im<2>& c2, const T* dy, T* dx,
                           const fast_index& fr, unsigned smem, unsigned grid) {
  constexpr int V = gpu_fast::vec_of<T>;
  const window_dim& w = wg[1];
  if (!gather_lanes_on() || w.dilation != 1 || g.dy_s[1] != 1 || g.out[1] * w.stride != g.in[1] || g.in[1] % V != 0) return false;
  const int units = g.N * g.C * g.in[0] * (g.in[1] / V);
  if (units % 64 != 0) return false;  // whole warps (and AMD waves) of units
  int row_windows = 0;
  for (index_t h = 0; h < wg[0].in; ++h) row_windows = std::max(row_windows, static_cast<int>(c2.dim[0].line_of(h).taps));
  auto launch = [&](auto shape) {
    using W = decltype(shape);
    constexpr int Q = V / W::S;
    const std::uintptr_t bytes = Q * sizeof(T), ibytes = Q * sizeof(std::int32_t);
    if (g.dy_n % Q != 0 || g.dy_c % Q != 0 || g.dy_s[0] % Q != 0 || reinterpret_cast<std::uintptr_t>(dy) % bytes != 0 ||
        reinterpret_cast<std::uintptr_t>(fr.idx) % ibytes != 0)
      return false;
    report_path("window", "stored indices by rows by lanes");
    TG_LAUNCH((gather_rows_lanes_kernel<T, W>), grid, 256, smem, be.stream, g, c2, row_windows, dy, dx, fr);
    return true;
  };
  if (w.stride == 2 && w.pad_l == 1 && w.win == 3) return launch(lane_window_stem{});
  if (w.stride == 2 && w.pad_l == 0 && w.win == 2) return launch(lane_window_pairs{});
  return false;
}
}  // namespace gpu_window
}  // namespace tg
