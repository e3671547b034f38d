// 1 / n for a count n (a mean's number of valid taps) on the device, without a call: CUDA's 1.0f / x
// (rcp.rn) keeps a slow-path subroutine for subnormal and huge x, and a kernel that calls it saves its
// live registers on the stack around the call site (the ISA check's STACK > 0: session 30 found 16-32
// bytes in the box sum by lanes). A count is a normal float, where the fast path is all that runs:
// the hardware estimate and one Newton step, the same instructions as rcp.rn's fast path, so the same
// bits. tests/gpu/convert_test.cpp compares every n in [0, 2^24] with the host's 1.0f / n.
#pragma once
#include "dsl/config.hpp"

namespace tg::arch {
#if defined(TG_DEVICE_COMPILER)
// 1.0f / n for 0 < n <= 2^24 (bit for bit); 0 for n <= 0 (no valid taps: nothing to average).
__device__ inline float reciprocal_of_count(int n) {
  if (n <= 0) return 0.0f;
  const float x = static_cast<float>(n);
#if defined(__HIP__)
  return 1.0f / x;  // v_rcp_f32 with its refinement inline: no call on AMD
#else
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return fmaf(r, fmaf(-x, r, 1.0f), r);
#endif
}
#endif

struct reciprocal_check_result {
  unsigned long long bad, first_bad;
};
// Runs reciprocal_of_count on the device for every n in [0, 2^24] (instances/convert_check.cpp).
reciprocal_check_result check_device_reciprocals();
}  // namespace tg::arch
