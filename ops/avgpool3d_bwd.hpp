// avgpool3d_bwd (seed 001): dx[n,c,d,h,w] = sum over the windows containing it of dy / divisor,
// divisor = the window volume (count_include_pad, PyTorch's default) or its valid positions.
#pragma once
#include "lowering/window_reduce.hpp"
#include "ops/pool_problem.hpp"

namespace tg::ops {
struct avgpool3d_problem : pool_problem<3> {
  bool count_include_pad = true;
};

template <class T, class Backend>
void avgpool3d_bwd(Backend& be, const avgpool3d_problem& p, const T* dy, T* dx) {
  p.validate("avgpool3d_bwd", sizeof(T), {"dx", "dy"});
  const mean_route<3> route{p.geometry(), p.count_include_pad};
  window_gather(be, p.geometry(), make_view(dy, p.out_desc()), make_view(dx, p.in_desc()), route);
}
}  // namespace tg::ops
