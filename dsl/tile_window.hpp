// tile_window: a tile-sized view into a tensor at an origin, read and written through a tile
// distribution: load_tile gives each thread its elements (a distributed tensor), store_tile and
// update_tile write them back, move_tile moves the origin (along K in a GEMM main loop).
#pragma once
#include "dsl/tensor_view.hpp"
#include "dsl/tile_distribution.hpp"

namespace tg {
// A thread's share of a tile: element e of the distribution is data[e].
template <class T, int N>
struct distributed_tensor {
  T data[N];
  TG_FN T& operator[](int e) { return data[e]; }
  TG_FN const T& operator[](int e) const { return data[e]; }
};

template <class View, int Rank>
struct tile_window {
  View view;
  multi_index<Rank> origin;
};
template <class View>
TG_FN tile_window<View, View::rank> make_tile_window(const View& v, const multi_index<View::rank>& origin) { return {v, origin}; }

template <class View, int Rank>
TG_FN void move_tile(tile_window<View, Rank>& w, const multi_index<Rank>& step) { w.origin = w.origin + step; }

// The raw element (no conversion): padding reads as the element type's zero.
template <int N, class View, int Rank, class Dist>
TG_FN auto load_tile(const tile_window<View, Rank>& w, const Dist& dist, index_t thread) {
  using T = std::remove_const_t<typename View::value_type>;
  distributed_tensor<T, N> r{};
  TG_UNROLL for (int e = 0; e < N; ++e) {
    const auto c = w.origin + dist.coord(thread, e);
    r[e] = w.view.desc.is_valid(c) ? w.view.data[w.view.desc.offset(c)] : from_float<T>(0.0f);
  }
  return r;
}
template <int N, class View, int Rank, class Dist, class T>
TG_FN void store_tile(const tile_window<View, Rank>& w, const Dist& dist, index_t thread, const distributed_tensor<T, N>& t) {
  TG_UNROLL for (int e = 0; e < N; ++e) {
    const auto c = w.origin + dist.coord(thread, e);
    if (w.view.desc.is_valid(c)) w.view.data[w.view.desc.offset(c)] = t[e];
  }
}
// Read-modify-write of each element with op(address, value): a plain add, or the target's atomic
// add passed in by the lowering layer (the DSL names no vendor operation).
template <int N, class View, int Rank, class Dist, class T, class Op>
TG_FN void update_tile(const tile_window<View, Rank>& w, const Dist& dist, index_t thread, const distributed_tensor<T, N>& t, Op op) {
  TG_UNROLL for (int e = 0; e < N; ++e) {
    const auto c = w.origin + dist.coord(thread, e);
    if (w.view.desc.is_valid(c)) op(&w.view.data[w.view.desc.offset(c)], t[e]);
  }
}
}  // namespace tg
