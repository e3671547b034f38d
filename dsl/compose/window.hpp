// window: the sliding-window view of a tensor. Each listed spatial dimension `hi` of length `in`
// becomes an output position `ho` (same place) and a tap `k` (appended at the end), with
//   hi = ho * stride + k * dilation - pad_l,   valid iff 0 <= hi < in.
// Built as pad (the padded input) under embed (ho, k) -> padded position.
#pragma once
#include "dsl/descriptor.hpp"
#include "dsl/transform/embed.hpp"
#include "dsl/transform/pad.hpp"
#include "dsl/transform/pass_through.hpp"

namespace tg {
// Taps k in [0, win) of the window at output o whose input position o * stride + k * dilation - pad_l
// lies in [0, in), counted tap by tap. (A closed form with a dilation-1 branch and two divisions
// otherwise cost the GPU box-sum kernel 40 registers and then a spill; kernels whose windows are
// known undilated use taps_inside_undilated.) I: index_t, or int in device fast paths.
template <class I>
TG_FN I taps_inside(I in, I win, I stride, I dilation, I pad_l, I o) {
  const I lo = o * stride - pad_l;  // input position of tap 0
  I n = 0;
  for (I k = 0; k < win; ++k) {
    const I hi = lo + k * dilation;
    n += (hi >= 0 && hi < in) ? I(1) : I(0);
  }
  return n;
}
// The same at dilation 1, where the taps inside form one range: in closed form.
template <class I>
TG_FN I taps_inside_undilated(I in, I win, I stride, I pad_l, I o) {
  const I lo = o * stride - pad_l, a = lo > 0 ? lo : I(0), b = lo + win < in ? lo + win : in;
  return b > a ? b - a : I(0);
}

struct window_dim {
  index_t in = 1, win = 1, stride = 1, dilation = 1, pad_l = 0, pad_r = 0;
  // Output positions: windows that fit entirely in the padded input (floor mode).
  TG_FN index_t out() const { return floor_div(in + pad_l + pad_r - dilation * (win - 1) - 1, stride) + 1; }
  // Taps of the window at output o that lie inside the input (not in padding).
  TG_FN index_t taps_inside(index_t o) const { return tg::taps_inside(in, win, stride, dilation, pad_l, o); }
};
template <int NDim>
using window_geometry = array<window_dim, NDim>;

namespace detail {
template <int D, int... S>
constexpr int position_in() { int i = 0, r = -1; ((r = (S == D ? i : r), ++i), ...); return r; }

template <int I, int N>
TG_FN auto pad_or_pass(index_t len, const array<window_dim, N>& g) {
  if constexpr (I < 0) return pass_through<index_t>{len};
  else return pad<index_t, index_t, index_t>{g[I].in, g[I].pad_l, g[I].pad_r};
}
template <int I, int N>
TG_FN auto embed_or_pass(index_t len, const array<window_dim, N>& g) {
  if constexpr (I < 0) return pass_through<index_t>{len};
  else return embed<tuple<index_t, index_t>, tuple<index_t, index_t>>{tg::make_tuple(g[I].out(), g[I].win),
                                                                     tg::make_tuple(g[I].stride, g[I].dilation)};
}
template <int D, int I, int R>
constexpr auto window_up_ids() {
  if constexpr (I < 0) return seq<D>{}; else return seq<D, R + I>{};
}
template <class A, int... S, int... D>
TG_FN auto window_impl(const descriptor<A>& x, seq<S...>, const array<window_dim, sizeof...(S)>& g, seq<D...>) {
  constexpr int R = sizeof...(D);
  const auto len = x.lengths();
  auto padded = transform(x, tg::make_tuple(pad_or_pass<position_in<D, S...>()>(len[D], g)...), tg::make_tuple(seq<D>{}...),
                          tg::make_tuple(seq<D>{}...));
  return transform(padded, tg::make_tuple(embed_or_pass<position_in<D, S...>()>(len[D], g)...), tg::make_tuple(seq<D>{}...),
                   tg::make_tuple(window_up_ids<D, position_in<D, S...>(), R>()...));
}
}  // namespace detail

// x: any descriptor; Spatial: the ids of its spatial dimensions; g: one window_dim per spatial id
// (g[i].in must equal x's length there). Result: x's dimensions with each spatial one now the
// output position, followed by one tap dimension per spatial dimension.
template <class A, int... Spatial>
TG_FN auto window(const descriptor<A>& x, seq<Spatial...> s, const array<window_dim, sizeof...(Spatial)>& g) {
  return detail::window_impl(x, s, g, iota<A::n_top>{});
}
}  // namespace tg
