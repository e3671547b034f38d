// Host backend of the implicit GEMM: a serial loop nest. K is walked with coordinates that move by
// one step (merge carries, no divisions), the same way a GPU tile window walks it.
#pragma once
#include <algorithm>
#include "lowering/backend.hpp"
#include "lowering/gemm.hpp"

namespace tg {
template <class Batch>
void gemm(host_backend, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    const index_t G = v.groups(), M = v.m(), N = v.n(), K = v.k();
    const index_t splits = std::max<index_t>(1, std::min<index_t>(pol.k_splits, K));
    const index_t chunk = K == 0 ? 0 : ceil_div(K, splits);
    for (index_t g = 0; g < G; ++g)
      for (index_t m = 0; m < M; ++m)
        for (index_t n = 0; n < N; ++n) {
          float acc = 0.0f;
          for (index_t k0 = 0; k0 < K; k0 += chunk) {
            float part = 0.0f;
            auto ca = make_coordinate(v.a.desc, {{g, m, k0}});
            auto cb = make_coordinate(v.b.desc, {{g, n, k0}});
            for (index_t k = k0; k < std::min(K, k0 + chunk); ++k) {
              part += load(v.a, ca) * load(v.b, cb);
              move(v.a.desc, ca, {{0, 0, 1}});
              move(v.b.desc, cb, {{0, 0, 1}});
            }
            acc += part;
          }
          const multi_index<3> ic{{g, m, n}};
          v.c.store(ic, ep.apply(acc, ep.op == epilogue_op::accumulate ? v.c.load(ic) : 0.0f));
        }
  }
}
}  // namespace tg
