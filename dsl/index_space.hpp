// Row-major walks over a box of multi-indices, usable in host and device code.
#pragma once
#include "dsl/array.hpp"

namespace tg {
// Advances idx to the next multi-index inside lengths (last dimension fastest); false past the end.
// Written with a carry instead of an early return so that it unrolls (registers, no local memory).
template <int N>
TG_FN bool next_index(multi_index<N>& idx, const multi_index<N>& lengths) {
  bool carry = true;
  TG_UNROLL for (int d = N - 1; d >= 0; --d) {
    if (carry) {
      carry = ++idx[d] >= lengths[d];
      if (carry) idx[d] = 0;
    }
  }
  return !carry;
}
// a[k] for a run-time k without indexing the array at run time (which would put it in local memory).
template <class T, int N>
TG_FN T select(const array<T, N>& a, int k) {
  T r = a[0];
  TG_UNROLL for (int d = 1; d < N; ++d) if (d == k) r = a[d];
  return r;
}
template <int N>
TG_FN index_t volume(const multi_index<N>& lengths) { index_t v = 1; TG_UNROLL for (int d = 0; d < N; ++d) v *= lengths[d]; return v; }
// The idx-th multi-index of the box, row-major.
template <int N>
TG_FN multi_index<N> unflatten(index_t i, const multi_index<N>& lengths) {
  multi_index<N> r{};
  TG_UNROLL for (int d = N - 1; d >= 0; --d) { const index_t q = udiv(i, lengths[d]); r[d] = i - q * lengths[d]; i = q; }
  return r;
}
template <int N>
TG_FN index_t flatten(const multi_index<N>& idx, const multi_index<N>& lengths) {
  index_t f = 0;
  TG_UNROLL for (int d = 0; d < N; ++d) f = f * lengths[d] + idx[d];
  return f;
}
}  // namespace tg
