// maxpool2d_bwd (seed 000): dx[n,c,h,w] = sum of dy over the windows whose maximum is x[n,c,h,w].
// Two forms: the argmax recomputed from x, or read from the indices of maxpool2d_fwd.
#pragma once
#include <cstdint>
#include "dsl/compose/window.hpp"
#include "lowering/window_reduce.hpp"
#include "ops/pool_problem.hpp"

namespace tg::ops {
using maxpool2d_problem = pool_problem<2>;

// y = max over each window of x; idx = flat input position h * W + w of the winner (PyTorch's).
template <class T, class Backend>
void maxpool2d_fwd(Backend& be, const maxpool2d_problem& p, const T* x, T* y, std::int32_t* idx) {
  p.validate("maxpool2d_fwd", sizeof(T), {"x", "y", "idx"});
  const auto g = p.geometry();
  const auto xw = make_view(x, window(p.in_desc(), seq<2, 3>{}, g));  // [N, C, Ho, Wo, Y, X]
  window_max_forward(be, g, xw, make_view(y, p.out_desc()), make_view(idx, p.out_desc()));
}

template <class T, class Backend>
void maxpool2d_bwd(Backend& be, const maxpool2d_problem& p, const T* x, const T* dy, T* dx) {
  p.validate("maxpool2d_bwd", sizeof(T), {"x", "dy"});  // dx: x's shape
  const auto g = p.geometry();
  const auto xw = make_view(x, window(p.in_desc(), seq<2, 3>{}, g));
  const argmax_route<2, decltype(xw)> route{xw, {{p.window[0], p.window[1]}}};
  window_gather(be, g, make_view(dy, p.out_desc()), make_view(dx, p.in_desc()), route);
}

template <class T, class Backend>
void maxpool2d_bwd_indices(Backend& be, const maxpool2d_problem& p, const std::int32_t* idx, const T* dy, T* dx) {
  p.validate("maxpool2d_bwd", sizeof(T), {"dx", "dy", "idx"});
  const auto route = index_route<2, decltype(make_view(idx, p.out_desc()))>{make_view(idx, p.out_desc()), {{p.in[0], p.in[1]}}};
  window_gather(be, p.geometry(), make_view(dy, p.out_desc()), make_view(dx, p.in_desc()), route);
}
}  // namespace tg::ops
