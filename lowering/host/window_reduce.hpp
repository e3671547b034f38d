// Host backend of the windowed reductions.
#pragma once
#include "lowering/backend.hpp"
#include "lowering/window_reduce.hpp"

namespace tg {
// dx[n, c, in...] = sum over the windows containing it of dy * route weight.
template <int ND, class DyView, class DxView, class Route>
void window_gather(host_backend, const window_geometry<ND>& g, const DyView& dy, const DxView& dx, const Route& route) {
  const col2im<ND> c2(g);
  const auto len = dx.desc.lengths();
  multi_index<2 + ND> i{};
  do {
    multi_index<ND> hi{};
    for (int d = 0; d < ND; ++d) hi[d] = i[2 + d];
    dx.store(i, gather_one<ND>(c2, lines_of(c2, hi), dy, route, i[0], i[1], hi));
  } while (next_index(i, len));
}

// Max pooling forward with indices: y = window max, idx = flat input position of the winner.
template <int ND, class XWin, class YView, class IdxView>
void window_max_forward(host_backend, const window_geometry<ND>& g, const XWin& xw, const YView& y, const IdxView& idx) {
  const auto len = y.desc.lengths();
  multi_index<ND> taps{};
  TG_UNROLL for (int d = 0; d < ND; ++d) taps[d] = g[d].win;
  multi_index<2 + ND> i{};
  do {
    multi_index<ND> ho{};
    for (int d = 0; d < ND; ++d) ho[d] = i[2 + d];
    const window_max m = max_of_window<ND>(xw, i[0], i[1], ho, taps);
    y.store(i, m.value);
    idx.data[idx.desc.offset(i)] = static_cast<std::remove_cv_t<typename IdxView::value_type>>(winner_position<ND>(g, ho, m.tap));
  } while (next_index(i, len));
}
}  // namespace tg
