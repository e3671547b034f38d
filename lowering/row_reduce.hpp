// Grouped row reductions followed by elementwise passes (normalisation). Tensors are [R, L] views
// (rows and the reduced dimension, any layout underneath):
//   row_sums     dot[r] = sum_l (u[r,l] - s[r]) * (v[r,l] - s[r]),  sum[r] = sum_l (v[r,l] - s[r])
//                with an optional per-row shift s (a second pass for a variance that does not cancel)
//   for_each     f(i) for i in [0, n): the small per-group / per-channel steps between passes
//   row_affine   out[r,l] = a[r] * u[r,l] + b[r] * v[r,l] + c[r]
//   row_sums_then_affine  a normalisation's backward pass as one pipeline, so that a backend may keep
//                each group's u and v on chip between its passes (lowering/gpu/group_rows.hpp):
//                dot[r] = sum_l u[r,l] * v[r,l], sum[r] = sum_l v[r,l]; then for each group q of `rows`
//                consecutive rows f(q, dot + q*rows, sum + q*rows, a + q*rows, b + q*rows, c + q*rows)
//                (the group's sums in, its coefficients out); then out[r,l] = a[r] * v[r,l] + b[r] * u[r,l] + c[r]
// Backends implement each one; sums accumulate in fp32 (host: fp64) in a fixed order.
#pragma once
#include "dsl/tensor_view.hpp"

namespace tg {
struct row_coefficients {
  const float* a;
  const float* b;
  const float* c;
};
// The same arrays, writable: row_sums_then_affine's group steps fill them.
struct row_coefficient_arrays {
  float *a, *b, *c;
  operator row_coefficients() const { return {a, b, c}; }
};

// A group step of row_sums_then_affine as a for_each item: group q's rows of the arrays.
template <class F>
struct group_step {
  F f;
  const float *dot, *sum;
  row_coefficient_arrays k;
  index_t rows;
  TG_FN void operator()(index_t q) const {
    const index_t r = q * rows;
    f(q, dot + r, sum + r, k.a + r, k.b + r, k.c + r);
  }
};

// The three passes in turn: every backend's form unless it has one of its own.
template <class Backend, class OutView, class UView, class VView, class F>
void row_sums_then_affine(Backend& be, const OutView& out, const UView& u, const VView& v, index_t rows, float* dot, float* sum, const F& f,
                          row_coefficient_arrays k) {
  row_sums(be, u, v, dot, sum);
  for_each(be, v.desc.length(0) / rows, group_step<F>{f, dot, sum, k, rows});
  row_affine(be, out, v, u, k);
}
}  // namespace tg
