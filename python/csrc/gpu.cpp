// The five op programs on the GPU backend, for the extension's CUDA tensors: host code (built by the
// host compiler) that reaches the instantiations compiled by nvcc in instances/ through
// instances/gpu_ops.hpp's extern templates. Each call runs on the caller's CUDA stream (PyTorch's current
// stream), its scratch lent by PyTorch's caching allocator.
#include <map>
#include <mutex>
#include <utility>
#include "bridge.hpp"
#include "instances/gpu_ops.hpp"

namespace tg::torch_ext::gpu {
namespace {
// PyTorch's caching allocator, through the bridge's function pointers (this unit sees no PyTorch header).
struct framework_lender final : scratch_lender {
  void* (*lend_fn)(std::size_t, void*);
  void (*take_back_fn)(void*);
  framework_lender(void* (*l)(std::size_t, void*), void (*t)(void*)) : lend_fn(l), take_back_fn(t) {}
  void* lend(std::size_t bytes, arch::stream_handle s) override { return lend_fn(bytes, static_cast<void*>(s)); }
  void take_back(void* p) override { take_back_fn(p); }
};

// A backend per (device, stream), kept for the life of the process. Its scratch is lent by PyTorch's
// allocator where the place names one (the extension always does) and returned at the end of each call;
// otherwise it is the backend's own arena, which drains only its own stream before reusing memory, so
// two streams must never share one.
gpu_backend& backend_for(const place& at) {
  static std::mutex m;
  static std::map<std::pair<int, void*>, gpu_backend> backends;
  std::lock_guard<std::mutex> lock(m);
  auto [it, fresh] = backends.try_emplace({at.device, at.stream});
  if (fresh) {
    it->second.stream = static_cast<arch::stream_handle>(at.stream);
    if (at.lend && at.take_back) it->second.lend_scratch_from(std::make_shared<framework_lender>(at.lend, at.take_back));
  }
  return it->second;
}
// Runs f(backend) on the place's device; one op at a time per process (the backends are not
// thread-safe); the call's scratch goes back to the allocator when it returns or throws.
template <class F>
void run(const place& at, F&& f) {
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  if (arch::current_device() != at.device) arch::set_device(at.device);
  gpu_backend& be = backend_for(at);
  scratch_call call(be);
  f(be);
}
}  // namespace

void maxpool2d_bwd(const place& at, dtype dt, const ops::maxpool2d_problem& p, const void* x, const void* dy, void* dx) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) { using T = decltype(t); ops::maxpool2d_bwd(be, p, as<T>(x), as<T>(dy), as<T>(dx)); });
  });
}
void maxpool2d_bwd_indices(const place& at, dtype dt, const ops::maxpool2d_problem& p, const std::int32_t* idx, const void* dy, void* dx) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) { using T = decltype(t); ops::maxpool2d_bwd_indices(be, p, idx, as<T>(dy), as<T>(dx)); });
  });
}
void avgpool3d_bwd(const place& at, dtype dt, const ops::avgpool3d_problem& p, const void* dy, void* dx) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) { using T = decltype(t); ops::avgpool3d_bwd(be, p, as<T>(dy), as<T>(dx)); });
  });
}
void groupnorm_bwd(const place& at, dtype dt, const ops::groupnorm_problem& p, const void* x, const void* dy, const void* gamma,
                   const float* mean, const float* rstd, void* dx, void* dgamma, void* dbeta) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) {
      using T = decltype(t);
      ops::groupnorm_bwd(be, p, as<T>(x), as<T>(dy), as<T>(gamma), mean, rstd, as<T>(dx), as<T>(dgamma), as<T>(dbeta));
    });
  });
}
void conv_bwd_data(const place& at, dtype dt, const ops::conv_problem& p, const void* dy, const void* w, void* dx) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) { using T = decltype(t); ops::convnd_bwd_data(be, p, as<T>(dy), as<T>(w), as<T>(dx)); });
  });
}
void conv_bwd_weight(const place& at, dtype dt, const ops::conv_problem& p, const void* x, const void* dy, void* dw) {
  run(at, [&](gpu_backend& be) {
    with_dtype(dt, [&](auto t) { using T = decltype(t); ops::grouped_conv_bwd_weight(be, p, as<T>(x), as<T>(dy), as<T>(dw)); });
  });
}
}  // namespace tg::torch_ext::gpu
