// The GPU backend: pipelines launch kernels (lowering/gpu/*.hpp) on the current device through the
// thin runtime layer of arch/ (CUDA for NVIDIA, HIP for AMD). Tensors are device pointers.
#pragma once
#include <memory>
#include <vector>
#include "arch/runtime.hpp"
#include "dsl/config.hpp"
#include "lowering/backend.hpp"

// Launch bounds for AMD only: hipcc otherwise assumes 1024 threads per block and budgets registers
// for that; nvcc with the same bound spills some small kernels, so NVIDIA gets none.
#if defined(__HIP__)
#define TG_AMD_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)
#else
#define TG_AMD_LAUNCH_BOUNDS(...)
#endif

namespace tg {
// Scratch memory for pipelines (split-K workspaces, per-row sums): one device allocation reused
// across calls, so a steady state makes no cudaMalloc/cudaFree (both synchronise the device).
// It is handed out front to back; when a request does not fit, the stream is drained first, so no
// kernel still reads the memory that is handed out again.
class scratch_arena {
 public:
  void* take(std::size_t bytes, arch::stream_handle s) {
    bytes = (bytes + 255) / 256 * 256;
    if (used_ + bytes > buf_.size()) {
      if (s) TG_CHECK(TG_RT(StreamSynchronize)(s)); else arch::synchronize();
      if (bytes > buf_.size()) {
        const std::size_t want = bytes > (64u << 20) ? bytes : (64u << 20);
        const std::size_t have = arch::device_memory().free + buf_.size();  // the old buffer goes first
        if (bytes > have) throw scratch_shortfall(bytes, have);
        buf_ = arch::device_buffer<unsigned char>();
        buf_ = arch::device_buffer<unsigned char>(want <= have ? want : bytes);
      }
      used_ = 0;
    }
    void* p = buf_.data() + used_;
    used_ += bytes;
    return p;
  }
 private:
  arch::device_buffer<unsigned char> buf_;
  std::size_t used_ = 0;
};

template <class T>
struct scratch_span {
  T* ptr;
  T* data() const { return ptr; }
};

struct gpu_backend {
#if defined(__HIP__)
  static constexpr const char* name = "gpu(hip)";
#else
  static constexpr const char* name = "gpu";
#endif
  arch::stream_handle stream = nullptr;
  std::shared_ptr<scratch_arena> arena = std::make_shared<scratch_arena>();
  // Tensor copies a pipeline runs on (lowering/gpu/feature_last.hpp), apart from `arena` so that a
  // pipeline's own scratch requests cannot hand out (or free) the memory of copies still in use.
  std::shared_ptr<scratch_arena> copies = std::make_shared<scratch_arena>();

  static bool available() { return arch::device_count() > 0; }
  // Multiprocessors (NVIDIA) or compute units (AMD) of the current device, read once.
  int processors() const {
    if (*sms == 0) *sms = arch::query_device(arch::current_device()).multiprocessors;
    return *sms;
  }
  std::shared_ptr<int> sms = std::make_shared<int>(0);
  template <class T>
  scratch_span<T> scratch(index_t n) const { return {static_cast<T*>(arena->take(static_cast<std::size_t>(n) * sizeof(T), stream))}; }
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
