// grouped_conv_bwd_weight (seed 004): per group, dw = dy^T * im2col(x), one implicit GEMM:
// dw[G, K, (taps..., C)] = dy[G, K, (N, out...)] * im2col(x)[G, (taps..., C), (N, out...)].
// The reduction runs over N * out..., which is long: split-K cuts it into chunks.
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "lowering/gemm.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
template <int ND, class T, class Backend>
void grouped_conv_bwd_weight(Backend& be, const conv_problem& p, const T* x, const T* dy, T* dw, gemm_policy policy = {}) {
  p.validate("grouped_conv_bwd_weight", sizeof(T), conv_bwd_weight_tensors);
  require(p.ndim == ND, "grouped_conv_bwd_weight", "ndim", "the problem is " + std::to_string(p.ndim) + "-d");
  using spatial = seq_range<3, 3 + ND>;
  const auto a = make_view(dy, group_dims(p.y_desc<ND>(), seq<0>{}, seq<2>{}, seq_cat<seq<1>, spatial>{}));
  const auto b = make_view(x, im2col_t<ND>(p.x_desc<ND>(), p.geometry<ND>()));
  const auto c = make_view(dw, group_dims(p.w_desc<ND>(), seq<0>{}, seq<1>{}, seq_cat<spatial, seq<2>>{}));
  gemm(be, single(make_gemm_views(a, b, c)), gemm_epilogue{}, policy);
}

template <class T, class Backend>
void grouped_conv_bwd_weight(Backend& be, const conv_problem& p, const T* x, const T* dy, T* dw, gemm_policy policy = {}) {
  p.validate("grouped_conv_bwd_weight", sizeof(T), conv_bwd_weight_tensors);
  switch (p.ndim) {
    case 1: return grouped_conv_bwd_weight<1>(be, p, x, dy, dw, policy);
    case 2: return grouped_conv_bwd_weight<2>(be, p, x, dy, dw, policy);
    default: return grouped_conv_bwd_weight<3>(be, p, x, dy, dw, policy);
  }
}
}  // namespace tg::ops
