// lowering/gpu/strided.hpp, host part: which descriptors count as plain strided, and their 32-bit
// strides (with the checks that every offset fits).
#include "lowering/gpu/strided.hpp"

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/window.hpp"

using tg::index_t;
using tg::multi_index;

TEST(Strided, OrderedDescriptorsAreStridedWithTheirStrides) {
  // NHWC storage of [N, C, H, W] = [2, 3, 4, 5]: strides N 60, C 1, H 15, W 3.
  const auto d = tg::make_ordered_descriptor(multi_index<4>{{2, 3, 4, 5}}, tg::array<int, 4>{{0, 2, 3, 1}});
  static_assert(tg::gpu_fast::is_strided_v<std::remove_cv_t<decltype(d)>>);
  const auto s = tg::gpu_fast::strides_of(d);
  EXPECT_TRUE(s.ok);
  EXPECT_EQ(s.s[0], 60);
  EXPECT_EQ(s.s[1], 1);
  EXPECT_EQ(s.s[2], 15);
  EXPECT_EQ(s.s[3], 3);
}

TEST(Strided, LengthOneDimensionsKeepTheirStride) {
  const auto d = tg::make_ordered_descriptor(multi_index<3>{{1, 4, 1}}, tg::array<int, 3>{{0, 1, 2}});
  const auto s = tg::gpu_fast::strides_of(d);
  EXPECT_TRUE(s.ok);
  EXPECT_EQ(s.s[0], 4);
  EXPECT_EQ(s.s[1], 1);
  EXPECT_EQ(s.s[2], 1);
}

TEST(Strided, TransformedDescriptorsAreNot) {
  const auto d = tg::make_ordered_descriptor(multi_index<3>{{2, 3, 4}}, tg::array<int, 3>{{0, 1, 2}});
  const auto rows = tg::group_dims(d, tg::seq<0, 1>{}, tg::seq<2>{});
  static_assert(!tg::gpu_fast::is_strided_v<std::remove_cv_t<decltype(rows)>>);
  const auto win = tg::window(d, tg::seq<2>{}, tg::array<tg::window_dim, 1>{{{4, 2, 1, 1, 0, 0}}});
  static_assert(!tg::gpu_fast::is_strided_v<std::remove_cv_t<decltype(win)>>);
}

TEST(Strided, LargeOrNegativeOffsetsAreRejected) {
  // 2^31 elements: the element space does not fit in 32 bits.
  const auto big = tg::make_ordered_descriptor(multi_index<2>{{index_t{1} << 16, index_t{1} << 15}}, tg::array<int, 2>{{0, 1}});
  EXPECT_FALSE(tg::gpu_fast::strides_of(big).ok);
  const auto just = tg::make_ordered_descriptor(multi_index<2>{{index_t{1} << 16, (index_t{1} << 15) - 1}}, tg::array<int, 2>{{0, 1}});
  EXPECT_TRUE(tg::gpu_fast::strides_of(just).ok);
  // A negative stride moves below the origin.
  const auto neg = tg::make_naive_descriptor(tg::make_tuple(index_t{4}), tg::make_tuple(index_t{-1}));
  EXPECT_FALSE(tg::gpu_fast::strides_of(neg).ok);
}

TEST(Strided, VectorWidthIsSixteenBytes) {
  EXPECT_EQ(tg::gpu_fast::vec_of<float>, 4);
  EXPECT_EQ(tg::gpu_fast::vec_of<tg::half_t>, 8);
  EXPECT_EQ(tg::gpu_fast::vec_of<tg::bf16_t>, 8);
}

TEST(Strided, FastDivisionMatchesIntegerDivision) {
  // Every divisor up to 4096 against numerators near 0, near multiples and near 2^31; a few large divisors.
  std::vector<int> divisors;
  for (int d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (int d : {65535, 65536, 65537, 1 << 20, (1 << 30) + 1, 2147483647}) divisors.push_back(d);
  for (int d : divisors) {
    const tg::gpu_fast::fast_div f(d);
    auto check = [&](long long n) {
      if (n < 0 || n > 2147483647LL) return;
      ASSERT_EQ(f.div(static_cast<int>(n)), static_cast<int>(n / d)) << n << " / " << d;
    };
    for (long long n = 0; n < 64; ++n) check(n);
    for (long long k = 1; k < 64; ++k) for (long long e = -1; e <= 1; ++e) check(k * d + e);
    for (long long n = 2147483647LL - 64; n <= 2147483647LL; ++n) check(n);
    for (long long q = 2147483647LL / d, e = -1; e <= 1; ++e) check(q * d + e);
  }
}

// Regression: a zero divisor (once built for a layout the kernel did not take) must fail loudly on
// the host instead of dividing by zero.
TEST(Strided, FastDivRejectsNonPositiveDivisors) {
  EXPECT_THROW(tg::gpu_fast::fast_div(0), std::invalid_argument);
  EXPECT_THROW(tg::gpu_fast::fast_div(-3), std::invalid_argument);
  EXPECT_EQ(tg::gpu_fast::fast_div(7).div(50), 7);
}
