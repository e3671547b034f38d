// pad: extends a dimension of length `len` by `left` and `right` positions; lower = upper - left.
// Positions in the padding are invalid (a load reads zero / the identity, a store is skipped).
#pragma once
#include <cstdint>
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Len = index_t, class Left = index_t, class Right = index_t>
struct pad {
  static constexpr int n_upper = 1, n_lower = 1;
  static constexpr bool always_valid = false;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Len len;
  Left left;
  Right right;
  TG_FN multi_index<1> upper_lengths() const { return {{as_index(len) + as_index(left) + as_index(right)}}; }
  TG_FN multi_index<1> lower(const multi_index<1>& up) const { return {{up[0] - as_index(left)}}; }
  // left <= up < left + len as one unsigned comparison (len >= 0): the guard of every padded load.
  TG_FN bool is_valid(const multi_index<1>& up) const {
    return static_cast<std::uint64_t>(up[0] - as_index(left)) < static_cast<std::uint64_t>(as_index(len));
  }
  // The box is_valid tests, as (first valid coordinate, count): kernels that add a guard coordinate
  // from parts fold `left` into one part and compare against `len` alone.
  TG_FN void box(index_t& first, index_t& count) const {
    first = as_index(left);
    count = as_index(len);
  }
  TG_FN multi_index<1> lower_step(const multi_index<1>& d, const multi_index<1>&, const multi_index<1>&) const { return d; }
};
template <class Len, class Left, class Right>
pad(Len, Left, Right) -> pad<Len, Left, Right>;
}  // namespace tg
