// GPU windowed reductions: one thread per dx (or y) element, walked in memory order; each thread
// runs the same gather_one / max_of_window as the host backend, so no atomics and no races.
// Fast paths for the stored-index and mean routes on plain strided tensors of < 2^31 elements
// (chosen at run time, the generic kernel otherwise): 32-bit offsets from strides, and a thread
// per 16 bytes of dx: V consecutive channels (channels-last: one window lookup for all of them,
// 16-byte dy / idx loads) or V consecutive positions along the last spatial dimension
// (channels-first). They visit the windows of an element in gather_one's order.
#pragma once
#include "lowering/gpu/window_fast_launch.hpp"

// In parts: window_gather.hpp (the generic kernels), window_fast.hpp (fast-path geometry, routes and the
// channels-last / rows kernels), window_box_sum.hpp and window_single.hpp (the mean route's two special
// kernels), window_fast_launch.hpp (the choice); here the entries.
namespace tg {
template <int ND, class DyView, class DxView, class Route>
void window_gather(gpu_backend& be, const window_geometry<ND>& g, const DyView& dy, const DxView& dx, const Route& route) {
  if (gpu_window::try_fast_gather<ND>(be, g, dy, dx, route)) return;
  const index_t n = dx.desc.size();
  // Enough blocks to fill the device 16 times over (its multiprocessors read from the device); each
  // tabulates its lines once.
  const index_t most = static_cast<index_t>(be.processors()) * 16;
  const index_t blocks = (n + 255) / 256 < most ? (n + 255) / 256 : most;
  TG_LAUNCH((gpu_window::gather_kernel<ND, DyView, DxView, Route>), static_cast<unsigned>(blocks > 0 ? blocks : 1), 256, 0, be.stream,
            col2im<ND>(g), dy, dx, route, memory_order(dx.desc));
}

template <int ND, class XWin, class YView, class IdxView>
void window_max_forward(gpu_backend& be, const window_geometry<ND>& g, const XWin& xw, const YView& y, const IdxView& idx) {
  TG_LAUNCH((gpu_window::max_forward_kernel<ND, XWin, YView, IdxView>), grid_for(y.desc.size(), 256), 256, 0, be.stream, g, xw, y, idx,
            memory_order(y.desc));
}
}  // namespace tg
