// Build-wide basics: the function qualifier that makes DSL code usable on host and device, and the
// index type. Offsets are 64-bit so tensors of more than 2^31 elements work everywhere.
#pragma once
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIP__)
#define TG_HD __host__ __device__
#define TG_DEVICE_COMPILER 1
#else
#define TG_HD
#endif

// Everything in dsl/ is a constexpr host/device function.
#define TG_FN TG_HD constexpr inline

namespace tg {
using index_t = std::int64_t;
}
