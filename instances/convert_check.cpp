// arch/convert.hpp's hardware conversions against dsl/numeric.hpp, and arch/reciprocal.hpp's reciprocals
// against the host's division, on the device (tests/gpu/convert_test.cpp).
#include <vector>
#include "arch/convert.hpp"
#include "arch/reciprocal.hpp"
#include "arch/runtime.hpp"

namespace tg::arch {
namespace {
__device__ bool half_nan(std::uint16_t b) { return (b & 0x7fffu) > 0x7c00u; }
__device__ bool float_nan(std::uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// r[0], r[1]: mismatches of to_float and from_float; r[2], r[3]: their lowest inputs.
__global__ void convert_check_kernel(unsigned long long* r) {
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < (1ull << 32); i += step) {
    const std::uint32_t u = static_cast<std::uint32_t>(i);
    if (i < (1ull << 16)) {
      const half_t h{static_cast<std::uint16_t>(i)};
      const std::uint32_t got = __builtin_bit_cast(std::uint32_t, cvt_to_float(h)), want = __builtin_bit_cast(std::uint32_t, to_float(h));
      const bool ok = half_nan(h.bits) ? float_nan(got) && (got & 0x00400000u) : got == want;
      if (!ok) { atomicAdd(&r[0], 1ull); atomicMin(&r[2], i); }
    }
    const float f = __builtin_bit_cast(float, u);
    const std::uint16_t got = cvt_from_float<half_t>(f).bits, want = from_float<half_t>(f).bits;
    const bool ok = float_nan(u) ? half_nan(got) && (got & 0x0200u) : got == want;
    if (!ok) { atomicAdd(&r[1], 1ull); atomicMin(&r[3], i); }
  }
}

// r[0]: counts n in [0, 2^24] whose reciprocal differs from want[n] (the host's 1.0f / n); r[1]: the lowest.
__global__ void reciprocal_check_kernel(const float* want, unsigned long long* r) {
  constexpr int last = 1 << 24;
  for (int n = blockIdx.x * blockDim.x + threadIdx.x; n <= last; n += gridDim.x * blockDim.x) {
    if (__builtin_bit_cast(std::uint32_t, reciprocal_of_count(n)) != __builtin_bit_cast(std::uint32_t, want[n])) {
      atomicAdd(&r[0], 1ull);
      atomicMin(&r[1], static_cast<unsigned long long>(n));
    }
  }
}
}  // namespace

reciprocal_check_result check_device_reciprocals() {
  std::vector<float> want((1u << 24) + 1);
  want[0] = 0.0f;
  for (std::size_t n = 1; n < want.size(); ++n) want[n] = 1.0f / static_cast<float>(n);
  device_buffer<float> w(want);
  const std::vector<unsigned long long> init{0, ~0ull};
  device_buffer<unsigned long long> r(init);
  TG_LAUNCH(reciprocal_check_kernel, 1024u, 256u, 0u, nullptr, w.data(), r.data());
  std::vector<unsigned long long> h;
  r.download(h);
  synchronize();
  return {h[0], h[1]};
}

convert_check_result check_device_conversions() {
  const std::vector<unsigned long long> init{0, 0, ~0ull, ~0ull};
  device_buffer<unsigned long long> r(init);
  TG_LAUNCH(convert_check_kernel, 4096u, 256u, 0u, nullptr, r.data());
  std::vector<unsigned long long> h;
  r.download(h);
  synchronize();
  return {h[0], h[1], h[2], h[3]};
}
}  // namespace tg::arch
