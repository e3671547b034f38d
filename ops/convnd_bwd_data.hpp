// convnd_bwd_data (seed 002): dx = dy (*) rot180(w), as implicit GEMMs over col2im's classes:
// for each class, dx[G, (N, rows...), C] = dy[G, (N, rows...), (taps..., K)] * w[G, C, (taps..., K)].
// All classes run in one GEMM batch; tapless classes (gcd(stride, dilation) > 1) write zeros.
#pragma once
#include "dsl/compose/col2im.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gemm_tensors.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
// The batch's rule: class t's three views of the tensors dy, w, dx.
template <int ND>
struct col2im_rule {
  static constexpr bool one_gemm = false;
  col2im<ND> classes;
  TG_FN index_t count() const { return classes.classes(); }
  template <class Tensors>
  TG_FN auto views(const Tensors& ts, index_t t) const {
    return make_gemm_views(make_view(ts[0].in(), classes.dy_view(ts[0].desc, t)),
                           make_view(ts[1].in(), classes.w_view(ts[1].desc, t)),
                           make_view(ts[2].data, classes.dx_view(ts[2].desc, t)));
  }
};
// Channels (dimension 2 of every tensor) are the GEMM's contiguous dimension; dy's and dx's groups
// (dimension 0) where a group has one channel; w's groups and rows (dimensions 0 and 1) let the
// lowering pack narrow groups.
template <int ND, class T, class Desc>
auto make_col2im_batch(const window_geometry<ND>& g, const T* dy, const T* w, T* dx, const Desc& dy_d, const Desc& w_d, const Desc& dx_d) {
  return make_tensor_batch(col2im_rule<ND>{col2im<ND>(g)}, read_tensor(dy, dy_d, 2, 0), read_weight(w, w_d, 2, 0, 1), written_tensor(dx, dx_d, 2, 0));
}

template <int ND, class T, class Backend>
void convnd_bwd_data(Backend& be, const conv_problem& p, const T* dy, const T* w, T* dx, gemm_policy policy = {}) {
  p.validate("convnd_bwd_data", sizeof(T), conv_bwd_data_tensors);
  require(p.ndim == ND, "convnd_bwd_data", "ndim", [&] { return "the problem is " + std::to_string(p.ndim) + "-d"; });
  gemm(be, make_col2im_batch(p.geometry<ND>(), dy, w, dx, p.y_desc<ND>(), p.w_desc<ND>(), p.x_desc<ND>()), gemm_epilogue{}, policy);
}

template <class T, class Backend>
void convnd_bwd_data(Backend& be, const conv_problem& p, const T* dy, const T* w, T* dx, gemm_policy policy = {}) {
  // The ND form validates (once per call: an ndim outside 1-3 reaches the 3-d form, which rejects it).
  switch (p.ndim) {
    case 1: return convnd_bwd_data<1>(be, p, dy, w, dx, policy);
    case 2: return convnd_bwd_data<2>(be, p, dy, w, dx, policy);
    default: return convnd_bwd_data<3>(be, p, dy, w, dx, policy);
  }
}
}  // namespace tg::ops
