// offset: lower = upper + off, over an upper dimension of length `len`. Unlike slice it says nothing
// of the lower extent; it shifts a view (a col2im sub-problem's first row, say).
#pragma once
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Len = index_t, class Off = index_t>
struct offset {
  static constexpr int n_upper = 1, n_lower = 1;
  static constexpr bool always_valid = true;
  static constexpr bool affine = true;  // lower is affine in upper; validity a box
  Len len;
  Off off;
  TG_FN multi_index<1> upper_lengths() const { return {{as_index(len)}}; }
  TG_FN multi_index<1> lower(const multi_index<1>& up) const { return {{up[0] + as_index(off)}}; }
  TG_FN bool is_valid(const multi_index<1>&) const { return true; }
  TG_FN multi_index<1> lower_step(const multi_index<1>& d, const multi_index<1>&, const multi_index<1>&) const { return d; }
};
template <class Len, class Off>
offset(Len, Off) -> offset<Len, Off>;
}  // namespace tg
