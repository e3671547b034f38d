// The GPU backend: every pipeline as kernels (compiled by nvcc for NVIDIA, clang HIP for AMD).
#pragma once
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/gemm_dispatch.hpp"
#include "lowering/gpu/group_rows.hpp"
#include "lowering/gpu/relayout.hpp"
#include "lowering/gpu/row_reduce.hpp"
#include "lowering/gpu/window_reduce.hpp"
