// Host backend of the row reductions and elementwise passes.
#pragma once
#include "lowering/backend.hpp"
#include "lowering/row_reduce.hpp"

namespace tg {
template <class UView, class VView>
void row_sums(host_backend, const UView& u, const VView& v, float* dot, float* sum, const float* shift = nullptr) {
  const index_t R = v.desc.length(0), L = v.desc.length(1);
  for (index_t r = 0; r < R; ++r) {
    double d = 0.0, s = 0.0;
    const float sh = shift ? shift[r] : 0.0f;
    for (index_t l = 0; l < L; ++l) {
      const float vv = v.load({{r, l}}) - sh;
      d += static_cast<double>(u.load({{r, l}}) - sh) * vv;
      s += vv;
    }
    dot[r] = static_cast<float>(d);
    sum[r] = static_cast<float>(s);
  }
}

template <class F>
void for_each(host_backend, index_t n, const F& f) {
  for (index_t i = 0; i < n; ++i) f(i);
}

template <class OutView, class UView, class VView>
void row_affine(host_backend, const OutView& out, const UView& u, const VView& v, row_coefficients k) {
  const index_t R = out.desc.length(0), L = out.desc.length(1);
  for (index_t r = 0; r < R; ++r)
    for (index_t l = 0; l < L; ++l)
      out.store({{r, l}}, k.a[r] * u.load({{r, l}}) + k.b[r] * v.load({{r, l}}) + k.c[r]);
}
}  // namespace tg
