// relayout on the host backend: every index in row-major order, one element at a time.
#pragma once
#include <stdexcept>
#include "lowering/backend.hpp"
#include "lowering/relayout.hpp"

namespace tg {
template <class DstView, class SrcView>
void relayout(host_backend, const DstView& dst, const SrcView& src) {
  if (!same_shape(dst, src)) throw std::invalid_argument("relayout: the source and destination views differ in shape");
  constexpr int R = DstView::rank;
  multi_index<R> i{};
  for (int d = 0; d < R; ++d)
    if (dst.desc.length(d) == 0) return;
  for (;;) {
    copy_element(dst, src, i);
    int d = R - 1;
    for (; d >= 0; --d) {
      if (++i[d] < dst.desc.length(d)) break;
      i[d] = 0;
    }
    if (d < 0) return;
  }
}
}  // namespace tg
