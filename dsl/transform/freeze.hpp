// freeze: fixes a lower dimension at `at`; it has no upper dimension (selects a plane of a tensor).
#pragma once
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class At = index_t>
struct freeze {
  static constexpr int n_upper = 0, n_lower = 1;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  At at;
  TG_FN multi_index<0> upper_lengths() const { return {}; }
  TG_FN multi_index<1> lower(const multi_index<0>&) const { return {{as_index(at)}}; }
  TG_FN bool is_valid(const multi_index<0>&) const { return true; }
  TG_FN multi_index<1> lower_step(const multi_index<0>&, const multi_index<1>&, const multi_index<0>&) const { return {{0}}; }
};
template <class At>
freeze(At) -> freeze<At>;
}  // namespace tg
