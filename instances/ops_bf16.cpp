// GPU instantiations of the five op programs for one element type (compiled by nvcc or clang HIP).
#define TG_GPU_INSTANTIATING 1
#include "lowering/gpu.hpp"
#include "instances/gpu_ops.hpp"

TG_GPU_OP_INSTANCES(, tg::bf16_t)
