// 16-bit storage types with fp32 arithmetic. Tensors are stored as half_t / bf16_t; kernels load them,
// compute (and accumulate) in float and round once when storing. The conversions are pure integer bit
// manipulation, so they give the same bits on host and device (no dependence on FTZ or on the FPU
// rounding mode) and need no vendor header (cuda_fp16.h / hip_fp16.h).
#pragma once
#include <cstdint>
#include "dsl/config.hpp"

namespace tg {

struct half_t { std::uint16_t bits; };  // IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits
struct bf16_t { std::uint16_t bits; };  // bfloat16: the upper half of a binary32

namespace detail {
// __builtin_bit_cast (gcc >= 11, clang, nvcc) is constexpr and device-safe, unlike std::bit_cast under
// nvcc without --expt-relaxed-constexpr.
TG_FN std::uint32_t f32_bits(float f) { return __builtin_bit_cast(std::uint32_t, f); }
TG_FN float f32_from_bits(std::uint32_t u) { return __builtin_bit_cast(float, u); }
// v >> shift rounded to nearest, ties to even (1 <= shift <= 31).
TG_FN std::uint32_t rne_shift(std::uint32_t v, std::uint32_t shift) {
  const std::uint32_t q = v >> shift, rem = v & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
  return q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u);
}
}  // namespace detail

TG_FN float to_float(float f) { return f; }

TG_FN float to_float(bf16_t b) {
  std::uint32_t u = std::uint32_t(b.bits) << 16;
  if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x00400000u;  // NaN: make it quiet, as hardware does
  return detail::f32_from_bits(u);
}

TG_FN float to_float(half_t h) {
  const std::uint32_t sign = std::uint32_t(h.bits & 0x8000u) << 16;
  const std::uint32_t exp = (h.bits >> 10) & 0x1fu;
  std::uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0x1f)  // inf, or NaN (quieted, payload kept)
    return detail::f32_from_bits(sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0u));
  if (exp != 0)     // normal: rebias the exponent 15 -> 127
    return detail::f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return detail::f32_from_bits(sign);  // signed zero
  // Subnormal mant * 2^-24 = 0.mant * 2^-14: shift the leading one up to the implicit-bit position;
  // each shift lowers the exponent by one from 2^-14's (biased 113).
  std::uint32_t e = 113;
  do { mant <<= 1; --e; } while ((mant & 0x400u) == 0);
  return detail::f32_from_bits(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

template <class T>
TG_FN T from_float(float f);

template <>
TG_FN float from_float<float>(float f) { return f; }

template <>
TG_FN bf16_t from_float<bf16_t>(float f) {
  const std::uint32_t u = detail::f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16_t{std::uint16_t((u >> 16) | 0x0040u)};  // quiet NaN
  // RNE on the low 16 bits; a carry out of the mantissa correctly bumps the exponent, up to inf.
  return bf16_t{std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}

template <>
TG_FN half_t from_float<half_t>(float f) {
  const std::uint32_t u = detail::f32_bits(f);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)  // NaN: quiet, top payload bits kept
    return half_t{std::uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu))};
  if (a >= 0x477ff000u)  // >= 65520 = halfway between 65504 (max, odd mantissa) and 2^16: rounds to inf
    return half_t{std::uint16_t(sign | 0x7c00u)};
  if (a >= 0x38800000u)  // >= 2^-14: normal; rebias 127 -> 15, a mantissa carry bumps the exponent
    return half_t{std::uint16_t(sign | detail::rne_shift(a - 0x38000000u, 13))};
  // Subnormal result q * 2^-24 from float mant * 2^(e-150): q = mant >> (126 - e), rounded.
  const std::uint32_t e = a >> 23;
  if (e < 102) return half_t{sign};  // below 2^-25: rounds to (signed) zero, float subnormals included
  const std::uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  return half_t{std::uint16_t(sign | detail::rne_shift(mant, 126u - e))};  // q = 0x400 is 2^-14: correct
}

// Default tolerances for comparing a kernel (16-bit or fp32 storage, fp32 accumulation) with a double
// reference: about two units of the output's final rounding (half an ulp: fp32 2^-24, fp16 2^-11,
// bf16 2^-8), atol the same for outputs near zero; scale atol by the summands' magnitude for long sums.
template <class T>
struct dtype_traits;
template <>
struct dtype_traits<float> { static constexpr const char* name = "fp32"; static constexpr double rtol = 1e-5, atol = 1e-5; };
template <>
struct dtype_traits<half_t> { static constexpr const char* name = "fp16"; static constexpr double rtol = 1e-3, atol = 1e-3; };
template <>
struct dtype_traits<bf16_t> { static constexpr const char* name = "bf16"; static constexpr double rtol = 8e-3, atol = 8e-3; };

}  // namespace tg
