// Memory order of a view, probed on the host: dimensions sorted by the distance one step moves the
// offset at the origin (largest first). Elementwise kernels walk their index space in this order so
// that neighbouring threads touch neighbouring addresses in every layout.
#pragma once
#include "dsl/index_space.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Desc>
array<int, Desc::rank> memory_order(const Desc& d) {
  constexpr int R = Desc::rank;
  array<int, R> order{};
  for (int i = 0; i < R; ++i) order[i] = i;
  // An empty view (a col2im class with no rows) has no element to probe: its offsets may divide by its
  // zero lengths. Any order walks its no elements.
  for (int i = 0; i < R; ++i)
    if (d.length(i) == 0) return order;
  index_t dist[R > 0 ? R : 1];
  const index_t o = d.offset(multi_index<R>{});
  for (int i = 0; i < R; ++i) {
    multi_index<R> e{};
    e[i] = d.length(i) > 1 ? 1 : 0;
    const index_t s = d.offset(e) - o;
    dist[i] = d.length(i) > 1 ? (s < 0 ? -s : s) : 0;
    order[i] = i;
  }
  for (int i = 0; i < R; ++i)  // stable insertion sort, largest distance first
    for (int j = i; j > 0 && dist[order[j]] > dist[order[j - 1]]; --j) { const int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t; }
  return order;
}

// The linear-th multi-index when the box is walked in `order` (order[R-1] fastest).
template <int R>
TG_FN multi_index<R> index_in_order(index_t linear, const multi_index<R>& lengths, const array<int, R>& order) {
  multi_index<R> i{};
  TG_UNROLL for (int p = R - 1; p >= 0; --p) {
    const int dim = order[p];
    const index_t len = select(lengths, dim), q = udiv(linear, len), digit = linear - q * len;
    TG_UNROLL for (int d = 0; d < R; ++d) if (d == dim) i[d] = digit;
    linear = q;
  }
  return i;
}
}  // namespace tg
