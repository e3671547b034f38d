// group_dims: a new descriptor whose dimension i merges the listed old dimensions of group i
// (row-major, the last listed fastest). GEMM views are made this way: [G, (N, Ho, Wo), (Y, X, C)].
#pragma once
#include "dsl/descriptor.hpp"
#include "dsl/transform/merge.hpp"
#include "dsl/transform/pass_through.hpp"

namespace tg {
namespace detail {
template <int... D, int N>
TG_FN auto merge_of(const multi_index<N>& len, seq<D...>) {
  if constexpr (sizeof...(D) == 1) {
    return pass_through<index_t>{len[D]...};
  } else {
    const auto lengths = tg::make_tuple(static_cast<index_t>(len[D])...);
    return merge<std::remove_const_t<decltype(lengths)>>{lengths};
  }
}
template <class A, class... Groups, int... I>
TG_FN auto group_dims_impl(const descriptor<A>& d, seq<I...>, Groups... groups) {
  const auto len = d.lengths();
  return transform(d, tg::make_tuple(merge_of(len, groups)...), tg::make_tuple(groups...), tg::make_tuple(seq<I>{}...));
}
}  // namespace detail

template <class A, class... Groups>
TG_FN auto group_dims(const descriptor<A>& d, Groups... groups) {
  return detail::group_dims_impl(d, iota<sizeof...(Groups)>{}, groups...);
}

// Compile-time sequence helpers for building groups: seq_range<B, E> = B..E-1, and concatenation.
namespace detail {
template <int B, int... I>
constexpr seq<(B + I)...> shift(seq<I...>) { return {}; }
template <int... A, int... B>
constexpr seq<A..., B...> cat(seq<A...>, seq<B...>) { return {}; }
}  // namespace detail
template <int B, int E>
using seq_range = decltype(detail::shift<B>(iota<E - B>{}));
template <class S1, class S2>
using seq_cat = decltype(detail::cat(S1{}, S2{}));
}  // namespace tg
