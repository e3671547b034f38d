// slice: the sub-range [begin, end) of a lower dimension; upper = lower - begin, length end - begin.
#pragma once
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Begin = index_t, class End = index_t>
struct slice {
  static constexpr int n_upper = 1, n_lower = 1;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Begin begin;
  End end;
  TG_FN multi_index<1> upper_lengths() const { return {{as_index(end) - as_index(begin)}}; }
  TG_FN multi_index<1> lower(const multi_index<1>& up) const { return {{up[0] + as_index(begin)}}; }
  TG_FN bool is_valid(const multi_index<1>&) const { return true; }
  TG_FN multi_index<1> lower_step(const multi_index<1>& d, const multi_index<1>&, const multi_index<1>&) const { return d; }
};
template <class Begin, class End>
slice(Begin, End) -> slice<Begin, End>;
}  // namespace tg
