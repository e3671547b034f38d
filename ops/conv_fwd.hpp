// conv_fwd: the forward of a grouped 1D/2D/3D convolution, y = x (*) w, as one implicit GEMM per group.
// docs/new-op.md shows the text between the --8<-- marks as its tutorial; tests/ops/tutorial_conv_fwd_test.cpp
// keeps the two equal.
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gemm_tensors.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
// --8<-- [start:op]
// Per group, y[G, (N, out...), K] = im2col(x)[G, (N, out...), (taps..., C)] * w[G, K, (taps..., C)].
// The GEMM's views of the tensors x, w, y (channels, dimension 2 of each, contiguous for the GEMM;
// an activation's groups, dimension 0, where a group has one channel; the weight's groups and rows,
// dimensions 0 and 1, so that the lowering may pack narrow groups into block-diagonal ones).
template <int ND>
struct conv_fwd_rule {
  static constexpr bool one_gemm = true;
  window_geometry<ND> g;
  TG_FN index_t count() const { return 1; }
  template <class Tensors>
  TG_FN auto views(const Tensors& ts, index_t) const {
    using spatial = seq_range<3, 3 + ND>;
    return make_gemm_views(make_view(ts[0].in(), im2col<ND>(ts[0].desc, g)),                                          // A [G, M, K]
                           make_view(ts[1].in(), group_dims(ts[1].desc, seq<0>{}, seq<1>{}, seq_cat<spatial, seq<2>>{})),  // B [G, N, K]
                           make_view(ts[2].data, group_dims(ts[2].desc, seq<0>{}, seq_cat<seq<1>, spatial>{}, seq<2>{})));  // C [G, M, N]
  }
};

template <int ND, class T, class Backend>
void conv_fwd(Backend& be, const conv_problem& p, const T* x, const T* w, T* y, gemm_policy policy = {}) {
  p.validate("conv_fwd", sizeof(T), conv_fwd_tensors);  // messages name x, w and y
  require(p.ndim == ND, "conv_fwd", "ndim", [&] { return "the problem is " + std::to_string(p.ndim) + "-d"; });
  const auto batch = make_tensor_batch(conv_fwd_rule<ND>{p.geometry<ND>()}, read_tensor(x, p.x_desc<ND>(), 2, 0), read_weight(w, p.w_desc<ND>(), 2, 0, 1),
                                       written_tensor(y, p.y_desc<ND>(), 2, 0));
  gemm(be, batch, gemm_epilogue{}, policy);
}
// --8<-- [end:op]

template <class T, class Backend>
void conv_fwd(Backend& be, const conv_problem& p, const T* x, const T* w, T* y, gemm_policy policy = {}) {
  // The ND form validates (once per call: an ndim outside 1-3 reaches the 3-d form, which rejects it).
  switch (p.ndim) {
    case 1: return conv_fwd<1>(be, p, x, w, y, policy);
    case 2: return conv_fwd<2>(be, p, x, w, y, policy);
    default: return conv_fwd<3>(be, p, x, w, y, policy);
  }
}
}  // namespace tg::ops
