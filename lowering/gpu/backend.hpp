// The GPU backend: pipelines launch kernels (lowering/gpu/*.hpp) on the current device through the
// thin runtime layer of arch/ (CUDA for NVIDIA, HIP for AMD). Tensors are device pointers.
#pragma once
#include <vector>
#include "arch/runtime.hpp"
#include "dsl/config.hpp"

namespace tg {
struct gpu_backend {
#if defined(__HIP__)
  static constexpr const char* name = "gpu(hip)";
#else
  static constexpr const char* name = "gpu";
#endif
  arch::stream_handle stream = nullptr;

  static bool available() { return arch::device_count() > 0; }
  template <class T>
  arch::device_buffer<T> scratch(index_t n) const { return arch::device_buffer<T>(static_cast<std::size_t>(n)); }
  template <class T>
  arch::device_buffer<T> upload(const std::vector<T>& v) const { return arch::device_buffer<T>(v); }
  template <class T>
  void download(const arch::device_buffer<T>& b, std::vector<T>& out) const { b.download(out, stream); arch::synchronize(); }
  void synchronize() const { arch::synchronize(); }
};

// Grid for n independent items at `block` threads each, capped so that a grid-stride loop covers the rest.
inline unsigned grid_for(index_t n, int block) {
  const index_t g = (n + block - 1) / block;
  return static_cast<unsigned>(g < 65535 * 32 ? (g > 0 ? g : 1) : 65535 * 32);
}
}  // namespace tg
