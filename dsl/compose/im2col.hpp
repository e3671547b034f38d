// im2col: the GEMM view of a (grouped) convolution input, without materialising it.
// x in canonical order [G, N, C, in...] -> [G, M = (N, out...), K = (taps..., C)], C fastest in K
// (contiguous in the channels-last layouts, and the order of CK's KYXC filters).
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/window.hpp"

namespace tg {
template <int NDim, class A>
TG_FN auto im2col(const descriptor<A>& x, const window_geometry<NDim>& g) {
  static_assert(A::n_top == 3 + NDim, "im2col: x must be [G, N, C, spatial...]");
  auto win = window(x, seq_range<3, 3 + NDim>{}, g);  // [G, N, C, out..., taps...]
  return group_dims(win, seq<0>{}, seq_cat<seq<1>, seq_range<3, 3 + NDim>>{},
                    seq_cat<seq_range<3 + NDim, 3 + 2 * NDim>, seq<2>>{});
}

// The transposed GEMM view [G, (taps..., C), (N, out...)] (backward weight reduces over N, out...),
// made directly by group_dims so that its top stage is the separable merge stage.
template <int NDim, class A>
TG_FN auto im2col_t(const descriptor<A>& x, const window_geometry<NDim>& g) {
  static_assert(A::n_top == 3 + NDim, "im2col_t: x must be [G, N, C, spatial...]");
  auto win = window(x, seq_range<3, 3 + NDim>{}, g);
  return group_dims(win, seq<0>{}, seq_cat<seq_range<3 + NDim, 3 + 2 * NDim>, seq<2>>{},
                    seq_cat<seq<1>, seq_range<3, 3 + NDim>>{});
}
}  // namespace tg
