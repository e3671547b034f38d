// unmerge: N upper dimensions to one lower, packed row-major: the inverse of merge. A packed view
// with the last dimension fastest.
#pragma once
#include "dsl/array.hpp"
#include "dsl/tuple.hpp"

namespace tg {
template <class Lengths>
struct unmerge {
  static constexpr int n_upper = tuple_size_v<Lengths>, n_lower = 1;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Lengths lengths;
  TG_FN multi_index<n_upper> upper_lengths() const {
    multi_index<n_upper> r{};
    static_for<n_upper>([&](auto i) { r[i] = as_index(get<i>(lengths)); });
    return r;
  }
  TG_FN multi_index<1> lower(const multi_index<n_upper>& up) const {
    index_t l = 0;
    static_for<n_upper>([&](auto i) { l = l * as_index(get<i>(lengths)) + up[i]; });
    return {{l}};
  }
  TG_FN bool is_valid(const multi_index<n_upper>&) const { return true; }
  TG_FN multi_index<1> lower_step(const multi_index<n_upper>& d, const multi_index<1>&, const multi_index<n_upper>&) const { return lower(d); }
};
template <class Lengths>
unmerge(Lengths) -> unmerge<Lengths>;
}  // namespace tg
