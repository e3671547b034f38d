// The thin runtime layer host code uses to run kernels: device memory, copies, streams, events,
// device queries and a checked kernel launch. One header, two back ends picked at compile time:
//   hip clang (__HIP__)          -> HIP runtime   (<hip/hip_runtime.h>)
//   nvcc (__CUDACC__, no __HIP__) -> CUDA runtime  (<cuda_runtime.h>)
// HIP's own NVIDIA path is not used: its headers do not build with CUDA 13 (docs: Toolchain facts).
// Under a plain C++ compiler there is no GPU runtime: `has_gpu_runtime` is false, device_count()
// is 0, memory functions throw "built without a GPU runtime", and streams, events and launches
// do not exist (code that launches kernels is compiled by a device compiler anyway).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__HIP__)
#include <hip/hip_runtime.h>
#define TG_GPU_RUNTIME_HIP 1
#define TG_RT(name) hip##name
#elif defined(__CUDACC__) || defined(TG_WITH_CUDA_RUNTIME)  // nvcc, or host code linked with cudart
#include <cuda_runtime.h>
#define TG_GPU_RUNTIME_CUDA 1
#define TG_RT(name) cuda##name
#endif

namespace tg::arch {

// Free and total memory of the current device, in bytes: free bounds what new allocations can get.
struct device_memory_info {
  std::size_t free = 0, total = 0;
};

#if defined(TG_RT)
inline constexpr bool has_gpu_runtime = true;
using error_t = TG_RT(Error_t);
using stream_handle = TG_RT(Stream_t);
using event_handle = TG_RT(Event_t);
#if defined(TG_GPU_RUNTIME_HIP)
inline constexpr const char* runtime_name = "HIP";
using device_prop = hipDeviceProp_t;
#else
inline constexpr const char* runtime_name = "CUDA";
using device_prop = cudaDeviceProp;
#endif

namespace detail {
[[noreturn]] inline void fail(error_t e, const char* what, const char* file, int line) {
  const std::string where = file ? std::string(file) + ":" + std::to_string(line) + ": " : std::string();
  throw std::runtime_error(where + what + ": " + TG_RT(GetErrorName)(e) + ": " + TG_RT(GetErrorString)(e));
}
inline void check(error_t e, const char* what, const char* file, int line) {
  if (e != TG_RT(Success)) fail(e, what, file, line);
}
}  // namespace detail

// Throws std::runtime_error("file:line: call: errorName: error string") when `call` fails. The
// call is quoted after macro expansion, so calls made here read "cudaMalloc(...)", not "TG_RT(...)".
#define TG_CHECK_STR2(x) #x
#define TG_CHECK_STR(x) TG_CHECK_STR2(x)
#define TG_CHECK(call) ::tg::arch::detail::check((call), TG_CHECK_STR(call), __FILE__, __LINE__)

// Raw device memory; detail because device_buffer is the interface.
namespace detail {
inline void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) TG_CHECK(TG_RT(Malloc)(&p, bytes));
  return p;
}
inline void device_free(void* p) noexcept {
  if (p) (void)TG_RT(Free)(p);  // no throw from destructors; a failed free leaves nothing to do
}
inline void copy_bytes(void* dst, const void* src, std::size_t bytes, TG_RT(MemcpyKind) kind, stream_handle s) {
  if (!bytes) return;
  if (s) {
    TG_CHECK(TG_RT(MemcpyAsync)(dst, src, bytes, kind, s));
  } else {
    TG_CHECK(TG_RT(Memcpy)(dst, src, bytes, kind));
  }
}
inline void set_bytes(void* dst, int value, std::size_t bytes, stream_handle s) {
  if (!bytes) return;
  if (s) {
    TG_CHECK(TG_RT(MemsetAsync)(dst, value, bytes, s));
  } else {
    TG_CHECK(TG_RT(Memset)(dst, value, bytes));
  }
}
}  // namespace detail

// Every byte of [dst, dst + bytes) set to zero, in stream order (the legacy stream where s is null),
// without waiting: a kernel's counters zeroed before its launch.
inline void zero_bytes_async(void* dst, std::size_t bytes, stream_handle s) {
  if (bytes) TG_CHECK(TG_RT(MemsetAsync)(dst, 0, bytes, s));
}

// Number of usable devices; 0 (not an error) when the machine has no GPU or no driver, so callers
// can fall back to the host backend.
inline int device_count() {
  int n = 0;
  const error_t e = TG_RT(GetDeviceCount)(&n);
#if defined(TG_GPU_RUNTIME_HIP)
  if (e == hipErrorNoDevice || e == hipErrorInsufficientDriver) return 0;
#else
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) return 0;
#endif
  TG_CHECK(e);
  return n;
}
inline void set_device(int device) { TG_CHECK(TG_RT(SetDevice)(device)); }
inline int current_device() {
  int d = 0;
  TG_CHECK(TG_RT(GetDevice)(&d));
  return d;
}

// The properties lowering and examples care about, the same for both runtimes.
struct device_info {
  std::string name;                  // marketing name, e.g. "NVIDIA H100 80GB HBM3"
  std::string arch;                  // "sm_90" or the gfx name, e.g. "gfx90a:sramecc+:xnack-"
  int wave_size = 0;
  int multiprocessors = 0;           // SMs / CUs
  int max_threads_per_block = 0;
  std::size_t shared_bytes_per_block = 0;        // default limit
  std::size_t shared_bytes_per_block_optin = 0;  // most a kernel may request (NVIDIA opt-in)
  std::size_t shared_bytes_per_multiprocessor = 0;
  int registers_per_block = 0;       // 32-bit registers
  std::size_t global_bytes = 0;
};
inline device_info query_device(int device) {
  device_prop p{};
  TG_CHECK(TG_RT(GetDeviceProperties)(&p, device));
  device_info d;
  d.name = p.name;
#if defined(TG_GPU_RUNTIME_HIP)
  d.arch = p.gcnArchName;
  d.shared_bytes_per_block_optin = p.sharedMemPerBlock;  // HIP has no separate opt-in limit
  d.shared_bytes_per_multiprocessor = p.maxSharedMemoryPerMultiProcessor;
#else
  d.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
  d.shared_bytes_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_bytes_per_multiprocessor = p.sharedMemPerMultiprocessor;
#endif
  d.wave_size = p.warpSize;
  d.multiprocessors = p.multiProcessorCount;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.shared_bytes_per_block = p.sharedMemPerBlock;
  d.registers_per_block = p.regsPerBlock;
  d.global_bytes = p.totalGlobalMem;
  return d;
}
inline std::string device_name(int device) { return query_device(device).name; }
inline std::string device_name() { return device_name(current_device()); }

// Waits for all work on the current device; reports errors of earlier asynchronous work.
inline void synchronize() { TG_CHECK(TG_RT(DeviceSynchronize)()); }

inline device_memory_info device_memory() {
  device_memory_info m;
  TG_CHECK(TG_RT(MemGetInfo)(&m.free, &m.total));
  return m;
}

#else  // no GPU runtime: plain C++ compiler

inline constexpr bool has_gpu_runtime = false;
inline constexpr const char* runtime_name = "none";
using stream_handle = void*;  // only so that signatures stay the same; never a real stream
using event_handle = void*;

namespace detail {
[[noreturn]] inline void no_runtime(const char* what) {
  throw std::runtime_error(std::string(what) +
                           ": tilegrad was built without a GPU runtime (compile this file with nvcc or hip clang)");
}
inline void* device_alloc(std::size_t bytes) {
  if (bytes) no_runtime("device_alloc");
  return nullptr;
}
inline void device_free(void*) noexcept {}  // nothing can have been allocated
enum memcpy_kind { memcpy_h2d, memcpy_d2h, memcpy_d2d };
inline void copy_bytes(void*, const void*, std::size_t bytes, memcpy_kind, stream_handle) {
  if (bytes) no_runtime("copy");
}
inline void set_bytes(void*, int, std::size_t bytes, stream_handle) {
  if (bytes) no_runtime("fill_bytes");
}
}  // namespace detail

inline void zero_bytes_async(void*, std::size_t bytes, stream_handle) {
  if (bytes) detail::no_runtime("zero_bytes_async");
}
inline int device_count() { return 0; }
inline void set_device(int) { detail::no_runtime("set_device"); }
inline int current_device() { detail::no_runtime("current_device"); }
inline std::string device_name(int) { detail::no_runtime("device_name"); }
inline std::string device_name() { detail::no_runtime("device_name"); }
inline void synchronize() { detail::no_runtime("synchronize"); }
inline device_memory_info device_memory() { detail::no_runtime("device_memory"); }

#endif

namespace detail {
#if defined(TG_RT)
inline constexpr auto h2d = TG_RT(MemcpyHostToDevice);
inline constexpr auto d2h = TG_RT(MemcpyDeviceToHost);
inline constexpr auto d2d = TG_RT(MemcpyDeviceToDevice);
#else
inline constexpr auto h2d = memcpy_h2d;
inline constexpr auto d2h = memcpy_d2h;
inline constexpr auto d2d = memcpy_d2d;
#endif
}  // namespace detail

// Copies of n elements. With a stream the copy is queued on it (asynchronous for pinned host
// memory); without one it completes before returning.
template <class T>
void copy_to_device(T* dst, const T* src, std::size_t n, stream_handle s = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::copy_bytes(dst, src, n * sizeof(T), detail::h2d, s);
}
template <class T>
void copy_to_host(T* dst, const T* src, std::size_t n, stream_handle s = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::copy_bytes(dst, src, n * sizeof(T), detail::d2h, s);
}
template <class T>
void copy_on_device(T* dst, const T* src, std::size_t n, stream_handle s = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::copy_bytes(dst, src, n * sizeof(T), detail::d2d, s);
}

// Owning, move-only array of n elements in device memory.
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable elements");

 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : ptr_(static_cast<T*>(detail::device_alloc(n * sizeof(T)))), size_(n) {}
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      detail::device_free(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { detail::device_free(ptr_); }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

  // Host vector -> device; the sizes must match (a silent partial copy hides bugs).
  void upload(const std::vector<T>& host, stream_handle s = nullptr) {
    require_size(host.size(), "upload");
    copy_to_device(ptr_, host.data(), size_, s);
  }
  void download(std::vector<T>& host, stream_handle s = nullptr) const {
    host.resize(size_);
    copy_to_host(host.data(), ptr_, size_, s);
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    copy_to_host(host.data(), ptr_, size_);
    return host;
  }
  // Every byte set to `value` (memset semantics: 0 gives zeros of any arithmetic type).
  void fill_bytes(unsigned char value, stream_handle s = nullptr) { detail::set_bytes(ptr_, value, bytes(), s); }

 private:
  void require_size(std::size_t n, const char* what) const {
    if (n != size_)
      throw std::invalid_argument(std::string("device_buffer::") + what + ": host has " + std::to_string(n) +
                                  " elements, device buffer " + std::to_string(size_));
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

#if defined(TG_RT)
// Owning stream (created with default flags: it orders with the legacy default stream).
class stream {
 public:
  stream() { TG_CHECK(TG_RT(StreamCreate)(&s_)); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  stream& operator=(stream&& o) noexcept {
    if (this != &o) {
      release();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~stream() { release(); }
  stream_handle get() const { return s_; }
  void synchronize() const { TG_CHECK(TG_RT(StreamSynchronize)(s_)); }

 private:
  void release() noexcept {
    if (s_) (void)TG_RT(StreamDestroy)(s_);
  }
  stream_handle s_ = nullptr;
};

// Owning timing event.
class event {
 public:
  event() { TG_CHECK(TG_RT(EventCreate)(&e_)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  event& operator=(event&& o) noexcept {
    if (this != &o) {
      release();
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  ~event() { release(); }
  event_handle get() const { return e_; }
  void record(stream_handle s = nullptr) { TG_CHECK(TG_RT(EventRecord)(e_, s)); }
  void synchronize() const { TG_CHECK(TG_RT(EventSynchronize)(e_)); }

 private:
  void release() noexcept {
    if (e_) (void)TG_RT(EventDestroy)(e_);
  }
  event_handle e_ = nullptr;
};

// Milliseconds between two recorded events; waits for `stop` first.
inline float elapsed_ms(const event& start, const event& stop) {
  stop.synchronize();
  float ms = 0.f;
  TG_CHECK(TG_RT(EventElapsedTime)(&ms, start.get(), stop.get()));
  return ms;
}

#if defined(__CUDACC__) || defined(__HIP__)  // launching needs the device compiler; host-only code links against launched code
// Launches kernel<<<grid, block, shmem, stream>>>(args...) and turns a launch error (bad
// configuration, too much shared memory, no kernel image for this GPU) into an exception naming
// `file:line`. Errors inside the running kernel surface at the next synchronizing call.
namespace detail {
template <class... Params, class... Args>
void launch_at(const char* file, int line, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shmem,
               stream_handle s, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel argument count");
  kernel<<<grid, block, shmem, s>>>(static_cast<Params>(std::forward<Args>(args))...);
  check(TG_RT(GetLastError)(), "kernel launch", file, line);
}
}  // namespace detail
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shmem, stream_handle s, Args&&... args) {
  detail::launch_at(nullptr, 0, kernel, grid, block, shmem, s, std::forward<Args>(args)...);
}

// Lets `kernel` be launched with up to `bytes` of dynamic shared memory (above the default 48 KiB
// a block may take it only on request, on both vendors).
template <class... Params>
void allow_dynamic_shared(void (*kernel)(Params...), std::size_t bytes) {
#if defined(TG_GPU_RUNTIME_HIP)
  TG_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
#else
  TG_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
#endif
}

// How many blocks of `kernel` (with `threads` threads and `shmem` bytes of dynamic shared memory) one
// multiprocessor holds at once: its registers, shared memory and launch bounds decide it. Launches
// that size their grid to whole waves (split-K) read it instead of assuming a count.
template <class... Params>
int resident_blocks(void (*kernel)(Params...), int threads, std::size_t shmem) {
  int blocks = 0;
#if defined(TG_GPU_RUNTIME_HIP)
  TG_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(kernel), threads, shmem));
#else
  TG_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shmem));
#endif
  return blocks > 0 ? blocks : 1;
}

// TG_LAUNCH(kernel, grid, block, shmem, stream, args...): launch with this file/line in errors.
// A template kernel goes in parentheses: TG_LAUNCH((k<float, 4>), grid, block, 0, s, x, y).
#define TG_LAUNCH(kernel, grid, block, shmem, stream, ...) \
  ::tg::arch::detail::launch_at(__FILE__, __LINE__, kernel, grid, block, shmem, stream __VA_OPT__(, ) __VA_ARGS__)
#endif

#endif

}  // namespace tg::arch
