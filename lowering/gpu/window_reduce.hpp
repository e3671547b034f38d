// GPU windowed reductions: one thread per dx (or y) element, walked in memory order; each thread
// runs the same gather_one / max_of_window as the host backend, so no atomics and no races.
#pragma once
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/window_reduce.hpp"

namespace tg {
namespace gpu_window {
template <int ND, class DyView, class DxView, class Route>
__global__ void gather_kernel(col2im<ND> c2, window_geometry<ND> g, DyView dy, DxView dx, Route route, array<int, 2 + ND> order) {
  const auto len = dx.desc.lengths();
  const index_t total = volume(len);
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto i = index_in_order(l, len, order);
    multi_index<ND> hi{};
    for (int d = 0; d < ND; ++d) hi[d] = i[2 + d];
    dx.store(i, gather_one<ND>(c2, g, dy, route, i[0], i[1], hi));
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

template <int ND, class DyView, class DxView, class Route>
void window_gather(gpu_backend& be, const window_geometry<ND>& g, const DyView& dy, const DxView& dx, const Route& route) {
  const index_t n = dx.desc.size();
  TG_LAUNCH((gpu_window::gather_kernel<ND, DyView, DxView, Route>), grid_for(n, 256), 256, 0, be.stream, col2im<ND>(g), g, dy, dx, route,
            memory_order(dx.desc));
}

template <int ND, class XWin, class YView, class IdxView>
void window_max_forward(gpu_backend& be, const window_geometry<ND>& g, const XWin& xw, const YView& y, const IdxView& idx) {
  TG_LAUNCH((gpu_window::max_forward_kernel<ND, XWin, YView, IdxView>), grid_for(y.desc.size(), 256), 256, 0, be.stream, g, xw, y, idx,
            memory_order(y.desc));
}
}  // namespace tg
