// xor_swizzle: (row, col) -> (row, col ^ (row % cols)) over a [rows, cols] tile, cols a power of two.
// A bijection on each row that spreads a column of a shared-memory tile over distinct banks.
#pragma once
#include "dsl/array.hpp"
#include "dsl/number.hpp"

namespace tg {
template <class Rows = index_t, class Cols = index_t>
struct xor_swizzle {
  static constexpr int n_upper = 2, n_lower = 2;
  static constexpr bool always_valid = true;
  static constexpr bool affine = false;  // digits by division / bit mixing
  Rows rows;
  Cols cols;
  TG_FN multi_index<2> upper_lengths() const { return {{as_index(rows), as_index(cols)}}; }
  TG_FN multi_index<2> lower(const multi_index<2>& up) const {
    return {{up[0], up[1] ^ (up[0] & (as_index(cols) - 1))}};
  }
  TG_FN bool is_valid(const multi_index<2>&) const { return true; }
  TG_FN multi_index<2> lower_step(const multi_index<2>& d, const multi_index<2>& low_old, const multi_index<2>& up_new) const {
    multi_index<2> n = lower(up_new);
    return {{d[0], n[1] - low_old[1]}};
  }
};
template <class Rows, class Cols>
xor_swizzle(Rows, Cols) -> xor_swizzle<Rows, Cols>;
}  // namespace tg
