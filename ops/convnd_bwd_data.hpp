// convnd_bwd_data (seed 002): dx = dy (*) rot180(w), as implicit GEMMs over col2im's classes:
// for each class, dx[G, (N, rows...), C] = dy[G, (N, rows...), (taps..., K)] * w[G, C, (taps..., K)].
// All classes run in one GEMM batch; tapless classes (gcd(stride, dilation) > 1) write zeros.
#pragma once
#include "dsl/compose/col2im.hpp"
#include "lowering/gemm.hpp"
#include "ops/conv_problem.hpp"

namespace tg::ops {
// The batch of GEMMs: class t's three views.
template <int ND, class TDy, class TW, class TDx, class DyD, class WD, class DxD>
struct col2im_batch {
  col2im<ND> classes;
  const TDy* dy; const TW* w; TDx* dx;
  DyD dy_desc; WD w_desc; DxD dx_desc;
  TG_FN index_t count() const { return classes.classes(); }
  TG_FN auto views(index_t t) const {
    return make_gemm_views(make_view(dy, classes.dy_view(dy_desc, t)), make_view(w, classes.w_view(w_desc, t)),
                           make_view(dx, classes.dx_view(dx_desc, t)));
  }
};

template <int ND, class T, class Backend>
void convnd_bwd_data(Backend& be, const conv_problem& p, const T* dy, const T* w, T* dx, gemm_policy policy = {}) {
  p.validate("convnd_bwd_data", sizeof(T), conv_bwd_data_tensors);
  require(p.ndim == ND, "convnd_bwd_data", "ndim", "the problem is " + std::to_string(p.ndim) + "-d");
  const col2im_batch<ND, T, T, T, decltype(p.y_desc<ND>()), decltype(p.w_desc<ND>()), decltype(p.x_desc<ND>())> batch{
      col2im<ND>(p.geometry<ND>()), dy, w, dx, p.y_desc<ND>(), p.w_desc<ND>(), p.x_desc<ND>()};
  gemm(be, batch, gemm_epilogue{}, policy);
}

template <class T, class Backend>
void convnd_bwd_data(Backend& be, const conv_problem& p, const T* dy, const T* w, T* dx, gemm_policy policy = {}) {
  p.validate("convnd_bwd_data", sizeof(T), conv_bwd_data_tensors);
  switch (p.ndim) {
    case 1: return convnd_bwd_data<1>(be, p, dy, w, dx, policy);
    case 2: return convnd_bwd_data<2>(be, p, dy, w, dx, policy);
    default: return convnd_bwd_data<3>(be, p, dy, w, dx, policy);
  }
}
}  // namespace tg::ops
