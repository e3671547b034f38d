// GPU instantiation of the forward convolution for one element type (compiled by nvcc or clang HIP).
#define TG_GPU_INSTANTIATING 1
#include "lowering/gpu.hpp"
#include "instances/gpu_ops.hpp"

TG_GPU_CONV_FWD_INSTANCES(, tg::bf16_t)
