// pass_through: one dimension, unchanged. The identity that fills the dimensions a stage leaves alone.
#pragma once
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Len = index_t>
struct pass_through {
  static constexpr int n_upper = 1, n_lower = 1;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Len len;
  TG_FN multi_index<1> upper_lengths() const { return {{as_index(len)}}; }
  TG_FN multi_index<1> lower(const multi_index<1>& up) const { return up; }
  TG_FN bool is_valid(const multi_index<1>&) const { return true; }
  TG_FN multi_index<1> lower_step(const multi_index<1>& d, const multi_index<1>&, const multi_index<1>&) const { return d; }
};
template <class Len>
pass_through(Len) -> pass_through<Len>;
}  // namespace tg
