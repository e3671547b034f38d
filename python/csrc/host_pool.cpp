// The pooling and normalisation op programs on the host backend, for the extension's CPU tensors.
#include "bridge.hpp"
#include "lowering/host.hpp"

namespace tg::torch_ext::host {
void maxpool2d_bwd(const place&, dtype dt, const ops::maxpool2d_problem& p, const void* x, const void* dy, void* dx) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::maxpool2d_bwd(be, p, as<T>(x), as<T>(dy), as<T>(dx));
  });
}
void maxpool2d_bwd_indices(const place&, dtype dt, const ops::maxpool2d_problem& p, const std::int32_t* idx, const void* dy, void* dx) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::maxpool2d_bwd_indices(be, p, idx, as<T>(dy), as<T>(dx));
  });
}
void avgpool3d_bwd(const place&, dtype dt, const ops::avgpool3d_problem& p, const void* dy, void* dx) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::avgpool3d_bwd(be, p, as<T>(dy), as<T>(dx));
  });
}
void groupnorm_bwd(const place&, dtype dt, const ops::groupnorm_problem& p, const void* x, const void* dy, const void* gamma,
                   const float* mean, const float* rstd, void* dx, void* dgamma, void* dbeta) {
  with_dtype(dt, [&](auto t) {
    using T = decltype(t);
    host_backend be;
    ops::groupnorm_bwd(be, p, as<T>(x), as<T>(dy), as<T>(gamma), mean, rstd, as<T>(dx), as<T>(dgamma), as<T>(dbeta));
  });
}
}  // namespace tg::torch_ext::host
