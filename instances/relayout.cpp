// GPU instantiations of relayout for every pair of element types (compiled by nvcc or clang HIP).
#define TG_GPU_INSTANTIATING 1
#include "lowering/gpu.hpp"
#include "instances/gpu_ops.hpp"

TG_GPU_RELAYOUT_INSTANCES(, float)
TG_GPU_RELAYOUT_INSTANCES(, tg::half_t)
TG_GPU_RELAYOUT_INSTANCES(, tg::bf16_t)
