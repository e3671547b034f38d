// merge: one upper dimension of length prod(lengths) to N lower dimensions, row-major (last fastest).
// The GEMM views of a convolution merge (N, Ho, Wo) into M and (Y, X, C) into K.
#pragma once
#include "dsl/array.hpp"
#include "dsl/tuple.hpp"

namespace tg {
template <class Lengths>
struct merge {
  static constexpr int n_upper = 1, n_lower = tuple_size_v<Lengths>;
  static constexpr bool always_valid = true;
  static constexpr bool affine = false;  // digits by division / bit mixing
  Lengths lengths;
  TG_FN multi_index<1> upper_lengths() const { return {{as_index(product(lengths))}}; }
  TG_FN multi_index<n_lower> lower(const multi_index<1>& up) const { return digits(up[0]); }
  TG_FN bool is_valid(const multi_index<1>&) const { return true; }
  // Incremental update: split the step into digits (constant-folded when the step is static),
  // add them to the old digits and propagate one carry or borrow per digit; no division by the
  // run-time lengths on the moving coordinate.
  TG_FN multi_index<n_lower> lower_step(const multi_index<1>& d, const multi_index<n_lower>& low_old, const multi_index<1>&) const {
    const bool neg = d[0] < 0;
    multi_index<n_lower> dd = digits(neg ? -d[0] : d[0]);
    multi_index<n_lower> step{};
    index_t carry = 0;
    static_for<n_lower>([&](auto j) {
      constexpr int i = n_lower - 1 - static_cast<int>(decltype(j)::value);
      index_t s = (neg ? -dd[i] : dd[i]) + carry;
      index_t nv = low_old[i] + s;
      carry = 0;
      if constexpr (i > 0) {
        const index_t len = as_index(get<i>(lengths));
        if (nv >= len) { s -= len; carry = 1; }
        else if (nv < 0) { s += len; carry = -1; }
      }
      step[i] = s;
    });
    return step;
  }

 private:
  TG_FN multi_index<n_lower> digits(index_t x) const {
    multi_index<n_lower> r{};
    static_for<n_lower>([&](auto j) {
      constexpr int i = n_lower - 1 - static_cast<int>(decltype(j)::value);
      if constexpr (i == 0) {
        r[i] = x;
      } else if constexpr (is_static_v<decltype(get<i>(lengths))>) {
        // a compile-time length: an unsigned division by a constant (shifts and masks for powers of two)
        constexpr std::uint64_t len = static_cast<std::uint64_t>(std::remove_reference_t<decltype(get<i>(lengths))>::value);
        const index_t q = static_cast<index_t>(static_cast<std::uint64_t>(x) / len);
        r[i] = x - q * static_cast<index_t>(len);
        x = q;
      } else {
        const index_t len = as_index(get<i>(lengths));
        const index_t q = udiv(x, len);
        r[i] = x - q * len;
        x = q;
      }
    });
    return r;
  }
};
template <class Lengths>
merge(Lengths) -> merge<Lengths>;
}  // namespace tg
