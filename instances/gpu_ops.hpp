// The op programs on the GPU backend, as seen from host code built by the host compiler: the
// instantiations are compiled once, by nvcc (or clang HIP), in instances/*.cpp. This layer sits above
// ops/ (the programs) and lowering/ (the pipelines), so neither includes the other: a new op adds its
// lines here, not in lowering/.
#pragma once
#include <cstdint>
#include "lowering/gpu/backend.hpp"
#include "ops/avgpool3d_bwd.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/maxpool2d_bwd.hpp"
#include "ops/relayout.hpp"

#define TG_GPU_OP_INSTANCES(EXTERN, T)                                                                                               \
  EXTERN template void tg::ops::maxpool2d_fwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::maxpool2d_problem&, const T*, T*, \
                                                                   std::int32_t*);                                                   \
  EXTERN template void tg::ops::maxpool2d_bwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::maxpool2d_problem&, const T*,     \
                                                                   const T*, T*);                                                    \
  EXTERN template void tg::ops::maxpool2d_bwd_indices<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::maxpool2d_problem&,       \
                                                                           const std::int32_t*, const T*, T*);                       \
  EXTERN template void tg::ops::avgpool3d_bwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::avgpool3d_problem&, const T*, T*); \
  EXTERN template void tg::ops::convnd_bwd_data<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::conv_problem&, const T*,        \
                                                                     const T*, T*, tg::gemm_policy);                                 \
  EXTERN template void tg::ops::grouped_conv_bwd_weight<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::conv_problem&,          \
                                                                             const T*, const T*, T*, tg::gemm_policy);               \
  EXTERN template void tg::ops::groupnorm_fwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::groupnorm_problem&, const T*,     \
                                                                   const T*, const T*, T*, float*, float*);                          \
  EXTERN template void tg::ops::groupnorm_bwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::groupnorm_problem&, const T*,     \
                                                                   const T*, const T*, const float*, const float*, T*, T*, T*);

// The forward convolution has units of its own (instances/conv_fwd_<dtype>.cpp), which ninja compiles
// in parallel with the ops_<dtype>.cpp units instead of after them in one.
#define TG_GPU_CONV_FWD_INSTANCES(EXTERN, T)                                                                         \
  EXTERN template void tg::ops::conv_fwd<T, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::conv_problem&, const T*, \
                                                             const T*, T*, tg::gemm_policy);

// relayout (a unit of its own, instances/relayout.cpp): every pair of element types.
#define TG_GPU_RELAYOUT_INSTANCE(EXTERN, TD, TS) \
  EXTERN template void tg::ops::relayout<TD, TS, tg::gpu_backend>(tg::gpu_backend&, const tg::ops::relayout_problem&, const TS*, TD*);
#define TG_GPU_RELAYOUT_INSTANCES(EXTERN, TD)         \
  TG_GPU_RELAYOUT_INSTANCE(EXTERN, TD, float)         \
  TG_GPU_RELAYOUT_INSTANCE(EXTERN, TD, tg::half_t)    \
  TG_GPU_RELAYOUT_INSTANCE(EXTERN, TD, tg::bf16_t)

#if !defined(TG_GPU_INSTANTIATING)
TG_GPU_OP_INSTANCES(extern, float)
TG_GPU_OP_INSTANCES(extern, tg::half_t)
TG_GPU_OP_INSTANCES(extern, tg::bf16_t)
TG_GPU_CONV_FWD_INSTANCES(extern, float)
TG_GPU_CONV_FWD_INSTANCES(extern, tg::half_t)
TG_GPU_CONV_FWD_INSTANCES(extern, tg::bf16_t)
TG_GPU_RELAYOUT_INSTANCES(extern, float)
TG_GPU_RELAYOUT_INSTANCES(extern, tg::half_t)
TG_GPU_RELAYOUT_INSTANCES(extern, tg::bf16_t)
#endif
