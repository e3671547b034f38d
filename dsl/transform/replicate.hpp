// replicate: upper dimensions with no lower dimension, so every position of them maps to the same
// element (a broadcast). insert(len) is the one-dimensional case.
#pragma once
#include "dsl/array.hpp"
#include "dsl/tuple.hpp"

namespace tg {
template <class Lengths>
struct replicate {
  static constexpr int n_upper = tuple_size_v<Lengths>, n_lower = 0;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Lengths lengths;
  TG_FN multi_index<n_upper> upper_lengths() const {
    multi_index<n_upper> r{};
    static_for<n_upper>([&](auto i) { r[i] = as_index(get<i>(lengths)); });
    return r;
  }
  TG_FN multi_index<0> lower(const multi_index<n_upper>&) const { return {}; }
  TG_FN bool is_valid(const multi_index<n_upper>&) const { return true; }
  TG_FN multi_index<0> lower_step(const multi_index<n_upper>&, const multi_index<0>&, const multi_index<n_upper>&) const { return {}; }
};
template <class Lengths>
replicate(Lengths) -> replicate<Lengths>;

template <class Len>
TG_FN auto insert(Len len) { return replicate<tuple<Len>>{tg::make_tuple(len)}; }
}  // namespace tg
