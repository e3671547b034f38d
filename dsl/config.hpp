// Build-wide basics: the function qualifier that makes DSL code usable on host and device, and the
// index type. Offsets are 64-bit so tensors of more than 2^31 elements work everywhere.
#pragma once
#include <cstdint>

// Debian's clang 15 HIP does not pre-include the HIP wrapper, so __host__/__device__ come from here.
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#endif

#if defined(__CUDACC__) || defined(__HIP__)
#define TG_HD __host__ __device__
#define TG_DEVICE_COMPILER 1
#else
#define TG_HD
#endif

// Loops over small register arrays must unroll, or the arrays are placed in local memory.
// TG_UNROLL_BY(n): n iterations at a time (n a literal, a macro that expands to one, or a constexpr name).
#define TG_PRAGMA(x) _Pragma(#x)
#if defined(__CUDACC__) || defined(__HIP__)
#define TG_UNROLL _Pragma("unroll")
#define TG_UNROLL_BY(n) TG_PRAGMA(unroll n)
#else
#define TG_UNROLL
#define TG_UNROLL_BY(n)
#endif

// Everything in dsl/ is a constexpr host/device function.
#define TG_FN TG_HD constexpr inline

namespace tg {
using index_t = std::int64_t;
}
