// Hardware fp16 <-> fp32 conversions for device code: one instruction each instead of the integer
// bit manipulation of dsl/numeric.hpp (which stays the definition, and the host path). Both directions
// give dsl/numeric.hpp's bits for every non-NaN value: fp16 -> fp32 is exact, fp32 -> fp16 rounds to
// nearest even with fp16 subnormals kept (no .ftz; fp32 subnormal inputs round to a signed zero either
// way); a NaN gives a quiet NaN. tests/gpu/convert_test.cpp compares all 2^16 and 2^32 inputs.
// float and bf16 (a shift and a rounding add already) keep dsl/numeric.hpp's functions.
#pragma once
#include <cstdint>
#include <type_traits>
#include "dsl/numeric.hpp"

namespace tg::arch {
#if defined(TG_DEVICE_COMPILER)
__device__ inline float cvt_to_float(float f) { return f; }
__device__ inline float cvt_to_float(bf16_t b) { return to_float(b); }
__device__ inline float cvt_to_float(half_t h) {
#if defined(__HIP__)
  return static_cast<float>(__builtin_bit_cast(_Float16, h.bits));  // v_cvt_f32_f16
#else
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
#endif
}

// A 16-bit value widened only to be an operand of a multiply or add, which quiets a signalling NaN
// itself: bf16 is then one shift, without to_float's quieting (bf16 depthwise convolutions ran 1.6-2x
// slower than fp16 for it, performance.md section 21).
template <class T>
__device__ inline float cvt_to_operand(T x) { return cvt_to_float(x); }
__device__ inline float cvt_to_operand(bf16_t b) { return __builtin_bit_cast(float, static_cast<std::uint32_t>(b.bits) << 16); }

// Two 16-bit values packed in a word (the lower one first) as operands: a pair of channels read from
// shared memory with one 4-byte load.
template <class T>
__device__ inline void cvt_pair_to_operands(std::uint32_t w, float& lo, float& hi) {
  if constexpr (std::is_same_v<T, bf16_t>) {
    lo = __builtin_bit_cast(float, w << 16);
    hi = __builtin_bit_cast(float, w & 0xffff0000u);
  } else {
    lo = cvt_to_operand(T{static_cast<std::uint16_t>(w & 0xffffu)});
    hi = cvt_to_operand(T{static_cast<std::uint16_t>(w >> 16)});
  }
}

template <class T>
__device__ inline T cvt_from_float(float f) { return from_float<T>(f); }
template <>
__device__ inline half_t cvt_from_float<half_t>(float f) {
#if defined(__HIP__)
  return half_t{__builtin_bit_cast(std::uint16_t, static_cast<_Float16>(f))};  // v_cvt_f16_f32, round to nearest even
#else
  std::uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return half_t{h};
#endif
}
#endif
}  // namespace tg::arch

namespace tg::arch {
// The check of the conversions above on the current device (instances/convert_check.cpp):
// every fp16 and every fp32 bit pattern converted both ways, counted where they disagree with
// dsl/numeric.hpp (NaN inputs: where the result is not a quiet NaN); first_* the lowest such input.
struct convert_check_result {
  unsigned long long to_float_bad, from_float_bad, first_to_float, first_from_float;
};
convert_check_result check_device_conversions();
}  // namespace tg::arch
