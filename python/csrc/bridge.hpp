// The line between the PyTorch side of the extension (torch_ops.cpp: schemas, tensor checks, outputs)
// and tilegrad's op programs (host_*.cpp on the host backend, gpu.cpp on the GPU backend). Only
// tilegrad's problem structs and raw pointers cross it, so the op programs' translation units never
// see a PyTorch header and the PyTorch one never instantiates an op program.
#pragma once
#include <cstddef>
#include <cstdint>
#include "ops/avgpool3d_bwd.hpp"
#include "ops/conv_problem.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/maxpool2d_bwd.hpp"

namespace tg::torch_ext {
enum class dtype { f32, f16, bf16 };

// Where an op runs: the host backend, or a CUDA device and stream (a cudaStream_t) of PyTorch's, with
// the allocator that lends the GPU backend its scratch (PyTorch's caching allocator).
struct place {
  bool cuda = false;
  int device = 0;
  void* stream = nullptr;
  void* (*lend)(std::size_t bytes, void* stream) = nullptr;
  void (*take_back)(void* p) = nullptr;
};

// One function per op; each exists for the host backend (namespace host) and, in builds with the
// NVIDIA targets and a CUDA-enabled PyTorch, for the GPU backend (namespace gpu).
#define TG_TORCH_EXT_OPS(NS, PLACE)                                                                                         \
  namespace NS {                                                                                                            \
  void maxpool2d_bwd(PLACE, dtype, const ops::maxpool2d_problem&, const void* x, const void* dy, void* dx);                  \
  void maxpool2d_bwd_indices(PLACE, dtype, const ops::maxpool2d_problem&, const std::int32_t* idx, const void* dy, void* dx); \
  void avgpool3d_bwd(PLACE, dtype, const ops::avgpool3d_problem&, const void* dy, void* dx);                                 \
  void groupnorm_bwd(PLACE, dtype, const ops::groupnorm_problem&, const void* x, const void* dy, const void* gamma,          \
                     const float* mean, const float* rstd, void* dx, void* dgamma, void* dbeta);                             \
  void conv_bwd_data(PLACE, dtype, const ops::conv_problem&, const void* dy, const void* w, void* dx);                       \
  void conv_bwd_weight(PLACE, dtype, const ops::conv_problem&, const void* x, const void* dy, void* dw);                    \
  }
TG_TORCH_EXT_OPS(host, const place&)
TG_TORCH_EXT_OPS(gpu, const place&)
#undef TG_TORCH_EXT_OPS

// Calls f with a value of the element type named by dt.
template <class F>
void with_dtype(dtype dt, F&& f) {
  switch (dt) {
    case dtype::f32: return f(float{});
    case dtype::f16: return f(half_t{});
    case dtype::bf16: return f(bf16_t{});
  }
}
template <class T> const T* as(const void* p) { return static_cast<const T*>(p); }
template <class T> T* as(void* p) { return static_cast<T*>(p); }
}  // namespace tg::torch_ext
