// The windowed reductions' generic kernels: one thread per dx (or y) element in memory order,
// running the host backend's gather_one / max_of_window (no atomics, no races).
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
}  // namespace gpu_window
}  // namespace tg
