// coordinate: a top index together with every index below it in an adaptor's chain, so that moving
// it by a step updates each level incrementally (transform::lower_step) instead of recomputing the
// chain. Tile windows move their coordinates this way along K.
#pragma once
#include "dsl/adaptor.hpp"
#include "dsl/descriptor.hpp"

namespace tg {
template <class Adaptor>
struct coordinate {
  static constexpr int n_top = Adaptor::n_top, n_bottom = Adaptor::n_bottom;
  multi_index<Adaptor::n_hidden> hidden;

  template <int L>
  TG_FN multi_index<Adaptor::template level_size<L>()> level() const {
    multi_index<Adaptor::template level_size<L>()> r{};
    TG_UNROLL for (int i = 0; i < Adaptor::template level_size<L>(); ++i) r[i] = hidden[Adaptor::template level_offset<L>() + i];
    return r;
  }
  template <int L, int N>
  TG_FN void set_level(const multi_index<N>& v) {
    TG_UNROLL for (int i = 0; i < N; ++i) hidden[Adaptor::template level_offset<L>() + i] = v[i];
  }
  TG_FN multi_index<n_top> top() const { return level<0>(); }
  TG_FN multi_index<n_bottom> bottom() const { return level<Adaptor::n_stages>(); }
  TG_FN index_t offset() const { return hidden[Adaptor::template level_offset<Adaptor::n_stages>()]; }
};

template <class A>
TG_FN coordinate<A> make_coordinate(const A& a, const multi_index<A::n_top>& top) {
  coordinate<A> c{};
  c.template set_level<0>(top);
  static_for<A::n_stages>([&](auto s) {
    constexpr int S = decltype(s)::value;
    c.template set_level<S + 1>(get<S>(a.stages).lower(c.template level<S>()));
  });
  return c;
}
template <class A>
TG_FN coordinate<A> make_coordinate(const descriptor<A>& d, const multi_index<A::n_top>& top) { return make_coordinate(d.chain, top); }

namespace detail {
template <int S, class A, int N>
TG_FN void move_from(const A& a, coordinate<A>& c, const multi_index<N>& d, const multi_index<N>& up_new) {
  const auto& st = get<S>(a.stages);
  const auto low_old = c.template level<S + 1>();
  const auto low_step = st.lower_step(d, low_old, up_new);
  const auto low_new = low_old + low_step;
  c.template set_level<S + 1>(low_new);
  if constexpr (S + 1 < A::n_stages) move_from<S + 1>(a, c, low_step, low_new);
}
template <int S, class A>
TG_FN bool valid_from(const A& a, const coordinate<A>& c) {
  const auto& st = get<S>(a.stages);
  bool ok = true;
  if constexpr (!std::remove_reference_t<decltype(st)>::always_valid) ok = st.is_valid(c.template level<S>());
  if constexpr (S + 1 < A::n_stages) return ok && valid_from<S + 1>(a, c); else return ok;
}
}  // namespace detail

// Moves c by step (in top coordinates), level by level, each transform updating incrementally.
template <class A>
TG_FN void move(const A& a, coordinate<A>& c, const multi_index<A::n_top>& step) {
  const auto up_new = c.template level<0>() + step;
  c.template set_level<0>(up_new);
  detail::move_from<0>(a, c, step, up_new);
}
template <class A>
TG_FN void move(const descriptor<A>& d, coordinate<A>& c, const multi_index<A::n_top>& step) { move(d.chain, c, step); }

// Whether the coordinate lies outside every padding region of the chain, from its stored levels.
template <class A>
TG_FN bool is_valid(const A& a, const coordinate<A>& c) {
  if constexpr (A::always_valid) return true; else return detail::valid_from<0>(a, c);
}
template <class A>
TG_FN bool is_valid(const descriptor<A>& d, const coordinate<A>& c) { return is_valid(d.chain, c); }
}  // namespace tg
