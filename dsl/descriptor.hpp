// descriptor: a tensor as an adaptor whose bottom is the one-dimensional element offset, plus the
// size of the element space it addresses. Built from lengths and strides (naive), packed lengths,
// or by stacking transforms on another descriptor.
#pragma once
#include "dsl/adaptor.hpp"
#include "dsl/transform/embed.hpp"
#include "dsl/transform/pass_through.hpp"
#include "dsl/transform/unmerge.hpp"

namespace tg {
template <class Adaptor>
struct descriptor {
  static_assert(Adaptor::n_bottom == 1, "a tensor descriptor ends in one offset dimension");
  using adaptor_type = Adaptor;
  static constexpr int rank = Adaptor::n_top;
  Adaptor chain;
  index_t element_space;  // elements between the lowest and highest addressable offset, plus one

  TG_FN multi_index<rank> lengths() const { return chain.top_lengths(); }
  TG_FN index_t length(int i) const { return chain.top_lengths()[i]; }
  TG_FN index_t size() const { auto l = lengths(); index_t n = 1; for (int i = 0; i < rank; ++i) n *= l[i]; return n; }
  TG_FN index_t offset(const multi_index<rank>& c) const { return chain.bottom(c)[0]; }
  TG_FN bool is_valid(const multi_index<rank>& c) const { return chain.is_valid(c); }
  static constexpr bool always_valid = Adaptor::always_valid;
};

template <class A>
TG_FN descriptor<A> make_descriptor(const A& a, index_t element_space) { return {a, element_space}; }

template <int N>
using iota = std::make_integer_sequence<int, N>;

// A run-time multi-index as a tuple of index_t (the form transforms take their lengths in).
template <int N, int... I>
TG_FN auto as_tuple(const multi_index<N>& m, seq<I...>) { return tg::make_tuple(static_cast<index_t>(m[I])...); }

// lengths and strides: tuples whose entries are index_t or number<N>.
template <class Lengths, class Strides>
TG_FN auto make_naive_descriptor(Lengths lengths, Strides strides) {
  constexpr int n = tuple_size_v<Lengths>;
  index_t space = 1;
  bool empty = false;  // a tensor with a zero length addresses nothing
  static_for<n>([&](auto i) {
    const index_t s = as_index(get<i>(strides));
    space += (as_index(get<i>(lengths)) - 1) * (s < 0 ? -s : s);
    empty = empty || as_index(get<i>(lengths)) == 0;
  });
  if (empty) space = 0;
  auto st = make_stage(tg::make_tuple(embed<Lengths, Strides>{lengths, strides}), tg::make_tuple(seq<0>{}), tg::make_tuple(iota<n>{}));
  return make_descriptor(make_adaptor(st), space);
}

// Packed, row-major (last dimension fastest).
template <class Lengths>
TG_FN auto make_packed_descriptor(Lengths lengths) {
  constexpr int n = tuple_size_v<Lengths>;
  auto st = make_stage(tg::make_tuple(unmerge<Lengths>{lengths}), tg::make_tuple(seq<0>{}), tg::make_tuple(iota<n>{}));
  return make_descriptor(make_adaptor(st), as_index(product(lengths)));
}

// Stacks transforms on a descriptor. low_ids name the descriptor's current dimensions each transform
// consumes; up_ids name the new dimensions it produces. Checked at compile time.
template <class A, class Ts, class Ls, class Us>
TG_FN auto transform(const descriptor<A>& d, Ts ts, Ls ls, Us us) {
  return make_descriptor(stack(d.chain, make_stage(ts, ls, us)), d.element_space);
}

// The same tensor with its dimensions reordered: new dimension i is old dimension Order[i].
template <class A, int... Order, int... I>
TG_FN auto reorder_impl(const descriptor<A>& d, seq<Order...>, seq<I...>) {
  const auto len = d.lengths();
  return transform(d, tg::make_tuple(pass_through<index_t>{len[Order]}...), tg::make_tuple(seq<Order>{}...), tg::make_tuple(seq<I>{}...));
}
template <class A, int... Order>
TG_FN auto reorder(const descriptor<A>& d, seq<Order...> o) { return reorder_impl(d, o, iota<sizeof...(Order)>{}); }
}  // namespace tg

namespace tg {
// A packed tensor whose logical dimensions (in the order the op program uses) are stored in another
// physical order: order[0] is the slowest-varying logical dimension in memory. This is how a layout
// (NCHW, NHWC, GNHWC...) becomes strides, and why op programs never mention a layout again.
template <int N>
TG_FN auto make_ordered_descriptor(const multi_index<N>& lengths, const array<int, N>& order) {
  multi_index<N> strides{};
  index_t s = 1;
  for (int p = N - 1; p >= 0; --p) { strides[order[p]] = s; s *= lengths[order[p]]; }
  return make_naive_descriptor(as_tuple(lengths, iota<N>{}), as_tuple(strides, iota<N>{}));
}
}  // namespace tg
