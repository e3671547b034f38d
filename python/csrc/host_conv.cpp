// The convolution op programs on the host backend, for the extension's CPU tensors.
#include "bridge.hpp"
#include "lowering/host.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace tg::torch_ext::host {
void conv_bwd_data(const place&, dtype dt, const ops::conv_problem& p, const void* dy, const void* w, void* dx) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::convnd_bwd_data(be, p, as<T>(dy), as<T>(w), as<T>(dx));
  });
}
void conv_bwd_weight(const place&, dtype dt, const ops::conv_problem& p, const void* x, const void* dy, void* dw) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::grouped_conv_bwd_weight(be, p, as<T>(x), as<T>(dy), as<T>(dw));
  });
}
}  // namespace tg::torch_ext::host
