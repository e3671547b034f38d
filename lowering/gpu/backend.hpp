// The GPU backend: pipelines launch kernels (lowering/gpu/*.hpp) on the current device through the
// thin runtime layer of arch/ (CUDA for NVIDIA, HIP for AMD). Tensors are device pointers.
#pragma once
#include <memory>
#include <vector>
#include "arch/codegen.hpp"
#include "arch/runtime.hpp"
#include "dsl/config.hpp"
#include "lowering/backend.hpp"

namespace tg {
// Memory a framework lends for scratch (the PyTorch extension: its caching allocator), so that the
// framework accounts for it and can reuse it. A loan is taken per request, on the call's stream, and
// returned when the call ends (gpu_backend::end_call): stream order makes the memory safe to lend
// again to later work on that stream, as with the framework's own temporary buffers.
struct scratch_lender {
  virtual ~scratch_lender() = default;
  virtual void* lend(std::size_t bytes, arch::stream_handle s) = 0;  // throws when it cannot
  virtual void take_back(void* p) = 0;
};

// Scratch memory for pipelines (split-K workspaces, per-row sums): one device allocation reused
// across calls, so a steady state makes no cudaMalloc/cudaFree (both synchronise the device).
// It is handed out front to back; when a request does not fit, the stream is drained first, so no
// kernel still reads the memory that is handed out again. With a lender, every request is a loan
// instead, held until end_call().
class scratch_arena {
 public:
  void* take(std::size_t bytes, arch::stream_handle s) {
    bytes = (bytes + 255) / 256 * 256;
    if (lender_) {
      loans_.push_back(lender_->lend(bytes > 0 ? bytes : 256, s));
      return loans_.back();
    }
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
  void lend_from(std::shared_ptr<scratch_lender> l) {
    end_call();
    lender_ = std::move(l);
  }
  // Returns the call's loans (nothing to do for the arena's own buffer, which stays for the next call).
  void end_call() {
    for (void* p : loans_) lender_->take_back(p);
    loans_.clear();
  }
  std::size_t own_bytes() const { return buf_.size(); }  // the arena's own buffer (none while lent to)

 private:
  arch::device_buffer<unsigned char> buf_;
  std::size_t used_ = 0;
  std::shared_ptr<scratch_lender> lender_;
  std::vector<void*> loans_;
};

template <class T>
struct scratch_span {
  T* ptr;
  T* data() const { return ptr; }
};

struct gpu_backend {
  static constexpr const char* name = arch::backend_name;
  arch::stream_handle stream = nullptr;
  std::shared_ptr<scratch_arena> arena = std::make_shared<scratch_arena>();
  // Tensor copies a pipeline runs on (lowering/gpu/feature_last.hpp), apart from `arena` so that a
  // pipeline's own scratch requests cannot hand out (or free) the memory of copies still in use.
  std::shared_ptr<scratch_arena> copies = std::make_shared<scratch_arena>();
  // Packed weights of narrow groups (lowering/gpu/group_packing.hpp), apart from both: a GEMM on
  // feature-last copies may pack its groups, and the GEMM then takes its own scratch.
  std::shared_ptr<scratch_arena> packs = std::make_shared<scratch_arena>();
  // Weights copied with their rows innermost for the tf32 tiles (lowering/gpu/tma_gemm/k_major_weights.hpp),
  // apart from the others: that copy may be of a feature-last copy or a packed weight.
  std::shared_ptr<scratch_arena> k_major = std::make_shared<scratch_arena>();

  // Scratch from a framework's allocator from now on (every arena); each call must then end with
  // end_call(), which returns that call's loans (scratch_call does it on scope exit).
  void lend_scratch_from(std::shared_ptr<scratch_lender> l) const {
    arena->lend_from(l);
    copies->lend_from(l);
    packs->lend_from(l);
    k_major->lend_from(std::move(l));
  }
  void end_call() const {
    arena->end_call();
    copies->end_call();
    packs->end_call();
    k_major->end_call();
  }

  static bool available() { return arch::device_count() > 0; }
  // Multiprocessors (NVIDIA) or compute units (AMD) of the current device, read once.
  int processors() const {
    if (*sms == 0) *sms = arch::query_device(arch::current_device()).multiprocessors;
    return *sms;
  }
  std::shared_ptr<int> sms = std::make_shared<int>(0);
  // The most shared memory one block may take (NVIDIA: by opting in), read once.
  std::size_t shared_per_block() const {
    if (*shared == 0) *shared = arch::query_device(arch::current_device()).shared_bytes_per_block_optin;
    return *shared;
  }
  std::shared_ptr<std::size_t> shared = std::make_shared<std::size_t>(0);
  template <class T>
  scratch_span<T> scratch(index_t n) const { return {static_cast<T*>(arena->take(static_cast<std::size_t>(n) * sizeof(T), stream))}; }
  template <class T>
  arch::device_buffer<T> upload(const std::vector<T>& v) const { return arch::device_buffer<T>(v); }
  template <class T>
  void download(const arch::device_buffer<T>& b, std::vector<T>& out) const { b.download(out, stream); arch::synchronize(); }
  void synchronize() const { arch::synchronize(); }
};

// One op call on a backend whose scratch is lent (gpu_backend::lend_scratch_from): the loans go back
// when the call's scope ends, thrown out of or not (its kernels are queued on the stream by then).
struct scratch_call {
  const gpu_backend& be;
  explicit scratch_call(const gpu_backend& b) : be(b) {}
  scratch_call(const scratch_call&) = delete;
  scratch_call& operator=(const scratch_call&) = delete;
  ~scratch_call() { be.end_call(); }
};

// Grid for n independent items at `block` threads each, capped so that a grid-stride loop covers the rest.
inline unsigned grid_for(index_t n, int block) {
  const index_t g = (n + block - 1) / block;
  return static_cast<unsigned>(g < 65535 * 32 ? (g > 0 ? g : 1) : 65535 * 32);
}
}  // namespace tg
