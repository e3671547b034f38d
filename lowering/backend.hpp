// Backends an op program runs on. A pipeline call `gemm(backend, ...)` picks the host loop nest or
// the GPU kernel by overload; op programs are templates over the backend and never see either.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "dsl/config.hpp"

namespace tg {
// A pipeline's scratch (split-K workspaces, per-row sums) needs more memory than the device has free:
// thrown before allocating, with the bytes, so that callers reject the problem instead of crashing
// (the examples exit 2 on it, as on an invalid problem).
struct scratch_shortfall : std::runtime_error {
  std::uint64_t bytes, available;
  scratch_shortfall(std::uint64_t need, std::uint64_t have)
      : std::runtime_error("pipeline scratch needs " + std::to_string(need) + " bytes of device memory, more than the " +
                           std::to_string(have) + " bytes free"),
        bytes(need),
        available(have) {}
};

// Executes every pipeline serially on the CPU, through the same descriptors the kernels use.
struct host_backend {
  static constexpr const char* name = "host";
  template <class T>
  std::vector<T> scratch(index_t n) const { return std::vector<T>(static_cast<std::size_t>(n)); }
  // Tensors the caller hands in live in host memory already.
  template <class T>
  std::vector<T> upload(const std::vector<T>& v) const { return v; }
  template <class T>
  void download(const std::vector<T>& buf, std::vector<T>& out) const { out = buf; }
  void synchronize() const {}
};
}  // namespace tg
