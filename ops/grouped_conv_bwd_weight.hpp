// grouped_conv_bwd_weight (seed 004): per group, dw = dy^T * im2col(x), one implicit GEMM:
// dw[G, K, (taps..., C)] = dy[G, K, (N, out...)] * im2col(x)[G, (taps..., C), (N, out...)].
// The reduction runs over N * out..., which is long: split-K cuts it into chunks.
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gemm_tensors.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
// The GEMM's views of the tensors dy, x, dw (channels, dimension 2 of each, contiguous for the GEMM;
// an activation's groups, dimension 0, where a group has one channel; dw's groups and rows,
// dimensions 0 and 1, so that the lowering may pack narrow groups).
template <int ND>
struct conv_bwd_weight_rule {
  static constexpr bool one_gemm = true;
  window_geometry<ND> g;
  TG_FN index_t count() const { return 1; }
  template <class Tensors>
  TG_FN auto views(const Tensors& ts, index_t) const {
    using spatial = seq_range<3, 3 + ND>;
    return make_gemm_views(make_view(ts[0].in(), group_dims(ts[0].desc, seq<0>{}, seq<2>{}, seq_cat<seq<1>, spatial>{})),
                           make_view(ts[1].in(), im2col_t<ND>(ts[1].desc, g)),
                           make_view(ts[2].data, group_dims(ts[2].desc, seq<0>{}, seq<1>{}, seq_cat<spatial, seq<2>>{})));
  }
};

template <int ND, class T, class Backend>
void grouped_conv_bwd_weight(Backend& be, const conv_problem& p, const T* x, const T* dy, T* dw, gemm_policy policy = {}) {
  p.validate("grouped_conv_bwd_weight", sizeof(T), conv_bwd_weight_tensors);
  require(p.ndim == ND, "grouped_conv_bwd_weight", "ndim", [&] { return "the problem is " + std::to_string(p.ndim) + "-d"; });
  const auto batch = make_tensor_batch(conv_bwd_weight_rule<ND>{p.geometry<ND>()}, read_tensor(dy, p.y_desc<ND>(), 2, 0),
                                       read_tensor(x, p.x_desc<ND>(), 2, 0), written_weight(dw, p.w_desc<ND>(), 2, 0, 1));
  gemm(be, batch, gemm_epilogue{}, policy);
}

template <class T, class Backend>
void grouped_conv_bwd_weight(Backend& be, const conv_problem& p, const T* x, const T* dy, T* dw, gemm_policy policy = {}) {
  // The ND form validates (once per call: an ndim outside 1-3 reaches the 3-d form, which rejects it).
  switch (p.ndim) {
    case 1: return grouped_conv_bwd_weight<1>(be, p, x, dy, dw, policy);
    case 2: return grouped_conv_bwd_weight<2>(be, p, x, dy, dw, policy);
    default: return grouped_conv_bwd_weight<3>(be, p, x, dy, dw, policy);
  }
}
}  // namespace tg::ops
