// fp16/bf16 conversions, checked exhaustively against independent decodings (ldexp) and an independent
// rounding oracle (nearest value in the sorted table of all representable values, ties to even code).
#include "dsl/numeric.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {
using tg::bf16_t;
using tg::from_float;
using tg::half_t;
using tg::to_float;

// The conversions are constexpr: usable in descriptors and static tables.
static_assert(from_float<half_t>(1.0f).bits == 0x3c00);
static_assert(to_float(half_t{0xc000}) == -2.0f);
static_assert(from_float<bf16_t>(1.0f).bits == 0x3f80);

// binary16 decoded from its definition, independently of the bit tricks in numeric.hpp.
double decode_half(std::uint16_t b) {
  const int s = b >> 15, e = (b >> 10) & 0x1f, m = b & 0x3ff;
  const double sign = s ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}
double decode_bf16(std::uint16_t b) {
  const int s = b >> 15, e = (b >> 7) & 0xff, m = b & 0x7f;
  const double sign = s ? -1.0 : 1.0;
  if (e == 0xff) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, -133);
  return sign * std::ldexp(128 + m, e - 134);
}
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

TEST(Numeric, HalfToFloatExhaustive) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const double want = decode_half(std::uint16_t(b));
    const float got = to_float(half_t{std::uint16_t(b)});
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << b;
      EXPECT_EQ(bits(got) & 0x00400000u, 0x00400000u) << "NaN not quiet: " << b;
      EXPECT_EQ(std::signbit(got), bool(b & 0x8000)) << b;
    } else {
      ASSERT_EQ(double(got), want) << b;
      ASSERT_EQ(std::signbit(got), bool(b & 0x8000)) << b;  // covers -0
    }
  }
}

TEST(Numeric, Bf16ToFloatExhaustive) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const double want = decode_bf16(std::uint16_t(b));
    const float got = to_float(bf16_t{std::uint16_t(b)});
    if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << b;
    else ASSERT_EQ(double(got), want) << b;
  }
}

TEST(Numeric, RoundTripExhaustive) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const std::uint16_t h = std::uint16_t(b);
    if (!std::isnan(decode_half(h))) {
      ASSERT_EQ(from_float<half_t>(to_float(half_t{h})).bits, h) << b;
    }
    if (!std::isnan(decode_bf16(h))) {
      ASSERT_EQ(from_float<bf16_t>(to_float(bf16_t{h})).bits, h) << b;
    }
  }
}

// For every pair of consecutive non-negative codes (c, c+1), including subnormals and (max, inf): the
// midpoint goes to the even code, and the floats just below/above it go to c / c+1. Negatives mirror.
// The successor of the largest finite value is treated as the next power of two (IEEE overflow rule).
template <class T>
void check_halfways(double (*decode)(std::uint16_t), std::uint16_t inf_code) {
  for (std::uint16_t c = 0; c < inf_code; ++c) {
    const double lo = decode(c);
    const double hi = (c + 1 == inf_code) ? 2 * lo - decode(std::uint16_t(c - 1)) : decode(std::uint16_t(c + 1));
    const float mid = float((lo + hi) / 2);
    ASSERT_EQ(double(mid), (lo + hi) / 2) << "midpoint not exact in float: " << c;
    const std::uint16_t even = (c & 1) ? std::uint16_t(c + 1) : c;
    for (float sgn : {1.0f, -1.0f}) {
      const std::uint16_t s = sgn < 0 ? 0x8000 : 0;
      ASSERT_EQ(from_float<T>(sgn * mid).bits, even | s) << "tie at code " << c;
      ASSERT_EQ(from_float<T>(sgn * std::nextafter(mid, 0.0f)).bits, c | s) << "below tie at " << c;
      ASSERT_EQ(from_float<T>(sgn * std::nextafter(mid, INFINITY)).bits, (c + 1) | s) << "above tie at " << c;
    }
  }
}
TEST(Numeric, HalfRoundToNearestEvenAllHalfways) { check_halfways<half_t>(decode_half, 0x7c00); }
TEST(Numeric, Bf16RoundToNearestEvenAllHalfways) { check_halfways<bf16_t>(decode_bf16, 0x7f80); }

// Random floats over the whole exponent range against a table oracle: the nearest representable
// value, ties to the even code, beyond max + half an ulp -> inf.
template <class T>
void check_random(double (*decode)(std::uint16_t), std::uint16_t inf_code, unsigned seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::vector<double> table;  // non-negative finite values by code, then the overflow point
  for (std::uint16_t c = 0; c < inf_code; ++c) table.push_back(decode(c));
  table.push_back(2 * table.back() - table[table.size() - 2]);
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000000; ++i) {
    const float f = std::bit_cast<float>(std::uint32_t(rng()));
    if (std::isnan(f)) continue;
    const double a = std::fabs(double(f));
    std::size_t c = std::lower_bound(table.begin(), table.end(), a) - table.begin();  // table[c] >= a
    if (c == table.size()) c = table.size() - 1;                                       // beyond: inf
    else if (c > 0) {
      const double dl = a - table[c - 1], dh = table[c] - a;
      if (dl < dh || (dl == dh && ((c - 1) & 1) == 0)) --c;
    }
    const std::uint16_t want = std::uint16_t(c | (std::signbit(f) ? 0x8000 : 0));
    ASSERT_EQ(from_float<T>(f).bits, want) << "f = " << f << " bits " << bits(f);
  }
}
TEST(Numeric, HalfRandomAgainstTable) { check_random<half_t>(decode_half, 0x7c00, 12345); }
TEST(Numeric, Bf16RandomAgainstTable) { check_random<bf16_t>(decode_bf16, 0x7f80, 67890); }

TEST(Numeric, Specials) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(from_float<half_t>(0.0f).bits, 0x0000);
  EXPECT_EQ(from_float<half_t>(-0.0f).bits, 0x8000);
  EXPECT_EQ(from_float<bf16_t>(-0.0f).bits, 0x8000);
  EXPECT_EQ(from_float<half_t>(inf).bits, 0x7c00);
  EXPECT_EQ(from_float<half_t>(-inf).bits, 0xfc00);
  EXPECT_EQ(from_float<bf16_t>(inf).bits, 0x7f80);
  EXPECT_EQ(from_float<bf16_t>(-inf).bits, 0xff80);
  // Overflow: 65504 is fp16's max; 65519.99 rounds down to it, 65520 (the tie) and above go to inf.
  EXPECT_EQ(from_float<half_t>(65504.0f).bits, 0x7bff);
  EXPECT_EQ(from_float<half_t>(std::nextafter(65520.0f, 0.0f)).bits, 0x7bff);
  EXPECT_EQ(from_float<half_t>(65520.0f).bits, 0x7c00);
  EXPECT_EQ(from_float<half_t>(-1e30f).bits, 0xfc00);
  EXPECT_EQ(from_float<half_t>(std::numeric_limits<float>::max()).bits, 0x7c00);
  EXPECT_EQ(from_float<bf16_t>(std::numeric_limits<float>::max()).bits, 0x7f80);
  // Underflow: float subnormals and anything at or below 2^-25 (the tie with 0) become signed zero.
  EXPECT_EQ(from_float<half_t>(std::ldexp(1.0f, -25)).bits, 0x0000);
  EXPECT_EQ(from_float<half_t>(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).bits, 0x0001);
  EXPECT_EQ(from_float<half_t>(-std::numeric_limits<float>::denorm_min()).bits, 0x8000);
  EXPECT_EQ(from_float<bf16_t>(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  // NaN stays NaN, becomes quiet, keeps its sign; signalling NaNs whose payload sits in the low bits
  // would otherwise truncate to inf.
  for (std::uint32_t nb : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fa00000u, 0xffffffffu}) {
    const float nan = std::bit_cast<float>(nb);
    const half_t h = from_float<half_t>(nan);
    const bf16_t b = from_float<bf16_t>(nan);
    EXPECT_TRUE(std::isnan(to_float(h))) << nb;
    EXPECT_TRUE(std::isnan(to_float(b))) << nb;
    EXPECT_EQ(h.bits & 0x7e00, 0x7e00) << nb;  // exponent all ones + quiet bit
    EXPECT_EQ(b.bits & 0x7fc0, 0x7fc0) << nb;
    EXPECT_EQ(h.bits >> 15, nb >> 31);
    EXPECT_EQ(b.bits >> 15, nb >> 31);
  }
  EXPECT_TRUE(std::isnan(to_float(bf16_t{0x7f81})));  // signalling bf16 NaN read as quiet NaN
  EXPECT_EQ(bits(to_float(bf16_t{0x7f81})) & 0x00400000u, 0x00400000u);
}

TEST(Numeric, Traits) {
  EXPECT_STREQ(tg::dtype_traits<float>::name, "fp32");
  EXPECT_STREQ(tg::dtype_traits<half_t>::name, "fp16");
  EXPECT_STREQ(tg::dtype_traits<bf16_t>::name, "bf16");
  // Tolerances must cover the output's own rounding (half an ulp) with margin.
  EXPECT_GT(tg::dtype_traits<half_t>::rtol, std::ldexp(1.0, -11));
  EXPECT_GT(tg::dtype_traits<bf16_t>::rtol, std::ldexp(1.0, -8));
  EXPECT_GT(tg::dtype_traits<float>::rtol, std::ldexp(1.0, -24));
}
}  // namespace
