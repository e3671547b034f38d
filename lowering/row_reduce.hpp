// Grouped row reductions followed by elementwise passes (normalisation). Tensors are [R, L] views
// (rows and the reduced dimension, any layout underneath):
//   row_sums     dot[r] = sum_l (u[r,l] - s[r]) * (v[r,l] - s[r]),  sum[r] = sum_l (v[r,l] - s[r])
//                with an optional per-row shift s (a second pass for a variance that does not cancel)
//   for_each     f(i) for i in [0, n): the small per-group / per-channel steps between passes
//   row_affine   out[r,l] = a[r] * u[r,l] + b[r] * v[r,l] + c[r]
// Backends implement each one; sums accumulate in fp32 (host: fp64) in a fixed order.
#pragma once
#include "dsl/tensor_view.hpp"

namespace tg {
struct row_coefficients {
  const float* a;
  const float* b;
  const float* c;
};
}  // namespace tg
