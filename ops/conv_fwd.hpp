// conv_fwd: the forward of a grouped 1D/2D/3D convolution, y = x (*) w, as one implicit GEMM per group.
// docs/new-op.md shows the text between the --8<-- marks as its tutorial; tests/ops/tutorial_conv_fwd_test.cpp
// keeps the two equal.
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "lowering/gemm.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
// --8<-- [start:op]
// Per group, y[G, (N, out...), K] = im2col(x)[G, (N, out...), (taps..., C)] * w[G, K, (taps..., C)].
template <int ND, class T, class Backend>
void conv_fwd(Backend& be, const conv_problem& p, const T* x, const T* w, T* y, gemm_policy policy = {}) {
  p.validate("conv_fwd", sizeof(T), conv_fwd_tensors);  // messages name x, w and y
  require(p.ndim == ND, "conv_fwd", "ndim", "the problem is " + std::to_string(p.ndim) + "-d");
  using spatial = seq_range<3, 3 + ND>;
  const auto a = make_view(x, im2col<ND>(p.x_desc<ND>(), p.geometry<ND>()));                                // A [G, M, K]
  const auto b = make_view(w, group_dims(p.w_desc<ND>(), seq<0>{}, seq<1>{}, seq_cat<spatial, seq<2>>{}));  // B [G, N, K]
  const auto c = make_view(y, group_dims(p.y_desc<ND>(), seq<0>{}, seq_cat<seq<1>, spatial>{}, seq<2>{}));  // C [G, M, N]
  gemm(be, single(make_gemm_views(a, b, c)), gemm_epilogue{}, policy);
}
// --8<-- [end:op]

template <class T, class Backend>
void conv_fwd(Backend& be, const conv_problem& p, const T* x, const T* w, T* y, gemm_policy policy = {}) {
  p.validate("conv_fwd", sizeof(T), conv_fwd_tensors);
  switch (p.ndim) {
    case 1: return conv_fwd<1>(be, p, x, w, y, policy);
    case 2: return conv_fwd<2>(be, p, x, w, y, policy);
    default: return conv_fwd<3>(be, p, x, w, y, policy);
  }
}
}  // namespace tg::ops
